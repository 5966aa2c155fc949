#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file's `fsync` running on a thread of its own while its writer does something else: a
/// prepared scene file flushes while the catalog commits, each waiting on the disk rather than
/// one after the other.
///
/// The flush owns the descriptor it is given and closes it. ``wait()`` is called at most once.
final class PendingFlush: @unchecked Sendable {
  // Written by the flushing thread before it ends; read only after `pthread_join`, which
  // orders the two.
  private var code: Int32 = 0
  private var thread: pthread_t?
  private let descriptor: Int32

  /// Starts flushing a file, on a thread of its own or, when the system would not start one,
  /// here.
  ///
  /// - Parameter descriptor: The file; the flush closes it.
  init(descriptor: Int32) {
    self.descriptor = descriptor
    let context = Unmanaged.passRetained(self).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(
      &thread, nil,
      { context in
        guard let context else { return nil }
        Unmanaged<PendingFlush>.fromOpaque(context).takeRetainedValue().run()
        return nil
      }, context)
    if started == 0 {
      self.thread = thread
    } else {
      Unmanaged<PendingFlush>.fromOpaque(context).release()
      run()
    }
  }

  private func run() {
    code = fsync(descriptor) == 0 ? 0 : errno
    close(descriptor)
  }

  /// Waits for the flush to end.
  ///
  /// - Returns: 0 when the file is on the disk, else the `errno` of its `fsync`.
  func wait() -> Int32 {
    if let thread {
      pthread_join(thread, nil)
      self.thread = nil
    }
    return code
  }

  deinit {
    // A flush nobody waited for still ends; its thread is not left to be joined.
    if let thread { pthread_detach(thread) }
  }
}
