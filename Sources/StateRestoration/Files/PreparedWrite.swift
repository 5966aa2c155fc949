#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file written and flushed beside its destination, waiting to replace it: the first half of
/// a durable write, made by ``DurableFile/prepare(_:for:permissions:)``.
///
/// A change that touches several files prepares them all, does whatever else may fail, and
/// only then commits them; committing is a `rename`, which needs no space on the disk. A
/// prepared write that is not committed is removed when the value is destroyed.
public final class PreparedWrite: @unchecked Sendable {
  /// The destination.
  public let path: String
  private let temporaryPath: String
  // Touched only by the owner, which commits or drops the value once.
  private var isSettled = false

  init(temporaryPath: String, path: String) {
    self.temporaryPath = temporaryPath
    self.path = path
  }

  /// Replaces the destination with the prepared contents and flushes its directory.
  ///
  /// - Throws: ``StateRestorationError/cannotWrite(path:reason:)``; the destination is then
  ///   as it was, unless only the directory's flush failed.
  public func commit() throws {
    guard !isSettled else { return }
    isSettled = true
    guard rename(temporaryPath, path) == 0 else {
      let reason = systemErrorDescription()
      unlink(temporaryPath)
      throw StateRestorationError.cannotWrite(path: path, reason: reason)
    }
    try DurableFile.synchronizeDirectory(DurableFile.parentDirectory(of: path))
  }

  /// Removes the prepared contents without touching the destination.
  public func discard() {
    guard !isSettled else { return }
    isSettled = true
    unlink(temporaryPath)
  }

  deinit {
    discard()
  }
}
