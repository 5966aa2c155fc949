#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file's `fsync` running on a thread of its own while its writer does something else: a
/// prepared scene file flushes while the catalog commits, each waiting on the disk rather than
/// one after the other.
///
/// The flush owns the descriptor it is given and closes it.
final class PendingFlush: Sendable {
  private let work: BackgroundWork<Int32>

  /// Starts flushing a file.
  ///
  /// - Parameter descriptor: The file; the flush closes it.
  init(descriptor: Int32) {
    work = BackgroundWork {
      let code = fsync(descriptor) == 0 ? 0 : errno
      close(descriptor)
      return code
    }
  }

  /// Waits for the flush to end.
  ///
  /// - Returns: 0 when the file is on the disk, else the `errno` of its `fsync`.
  func wait() -> Int32 {
    work.wait()
  }
}
