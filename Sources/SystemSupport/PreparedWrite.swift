#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file written and flushed beside its destination, waiting to replace it: the first half of
/// a durable write, made by ``DurableFile/prepare(_:for:permissions:flushingInBackground:)``.
///
/// A change that touches several files prepares them all, does whatever else may fail, and
/// only then commits them; committing is a `rename`, which needs no space on the disk. A
/// prepared write that is not committed is removed when the value is destroyed.
package final class PreparedWrite: @unchecked Sendable {
  /// The destination.
  package let path: String
  private let temporaryPath: String
  // The temporary file's flush when it runs beside the caller's work; committing waits for it.
  private let flush: PendingFlush?
  // Touched only by the owner, which commits or drops the value once.
  private var isSettled = false

  init(temporaryPath: String, path: String, flush: PendingFlush? = nil) {
    self.temporaryPath = temporaryPath
    self.path = path
    self.flush = flush
  }

  /// Waits for a flush running in the background; a failed one removes the temporary file.
  private func waitForFlush() throws {
    guard let flush else { return }
    let code = flush.wait()
    guard code == 0 else {
      unlink(temporaryPath)
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription(code))
    }
  }

  /// Replaces the destination with the prepared contents and flushes its directory, first
  /// waiting for the contents' own flush when it ran in the background.
  ///
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``; the destination is then
  ///   as it was, unless only the directory's flush failed.
  package func commit() throws {
    guard !isSettled else { return }
    isSettled = true
    try waitForFlush()
    guard rename(temporaryPath, path) == 0 else {
      let reason = systemErrorDescription()
      unlink(temporaryPath)
      throw SystemError.cannotWrite(path: path, reason: reason)
    }
    try DurableFile.synchronizeDirectory(DurableFile.parentDirectory(of: path))
  }

  /// Puts the prepared contents at the destination, or at another name in the same
  /// directory, only if nothing is there yet.
  ///
  /// - Parameter name: The file's name in the destination's directory; by default the
  ///   destination's own.
  /// - Returns: false, with the prepared contents still pending, when that name is taken.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  package func commitIfAbsent(named name: String? = nil) throws -> Bool {
    guard !isSettled else { return false }
    try waitForFlush()
    let directory = DurableFile.parentDirectory(of: path)
    let destination = name.map { directory + "/" + $0 } ?? path
    // `link` fails rather than replace what is there, unlike `rename`.
    guard link(temporaryPath, destination) == 0 else {
      guard errno == EEXIST else {
        throw SystemError.cannotWrite(
          path: destination, reason: systemErrorDescription())
      }
      return false
    }
    discard()
    try DurableFile.synchronizeDirectory(directory)
    return true
  }

  /// Removes the prepared contents without touching the destination.
  package func discard() {
    guard !isSettled else { return }
    isSettled = true
    unlink(temporaryPath)
  }

  deinit {
    discard()
  }
}
