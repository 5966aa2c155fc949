#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An advisory, exclusive lock on a file, held until it is released or the process ends.
///
/// The lock is a `flock(2)` lock on a file that is never renamed, so the kernel releases it when
/// its holder dies, even by `kill -9`. A symbolic link or anything but a regular file in its
/// place is refused, so a lock never writes outside its directory. The holder writes its process identifier in the file, so
/// that a process refused the lock can say who holds it.
public final class FileLock: Sendable {
  /// The lock file's path.
  public let path: String
  private let descriptor: Int32

  private init(path: String, descriptor: Int32) {
    self.path = path
    self.descriptor = descriptor
  }

  /// Takes the lock, or fails at once when another process holds it.
  ///
  /// - Parameter path: The lock file, created 0600 if missing.
  /// - Returns: The held lock.
  /// - Throws: ``StateRestorationError/locked(path:owner:)`` when another process holds it,
  ///   ``StateRestorationError/cannotWrite(path:reason:)`` when the file cannot be opened.
  public static func acquire(_ path: String) throws -> FileLock {
    try acquire(path, waiting: false)
  }

  /// Takes the lock, waiting for another holder to release it.
  ///
  /// - Parameter path: The lock file, created 0600 if missing.
  /// - Returns: The held lock.
  /// - Throws: ``StateRestorationError/cannotWrite(path:reason:)`` when the file cannot be
  ///   opened or locked.
  public static func acquireWaiting(_ path: String) throws -> FileLock {
    try acquire(path, waiting: true)
  }

  private static func acquire(_ path: String, waiting: Bool) throws -> FileLock {
    // The holder writes its pid in the file: never through a link, never into a FIFO.
    let descriptor = retryingOnInterrupt {
      open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
    }
    guard descriptor >= 0 else {
      let code = errno
      throw StateRestorationError.cannotWrite(
        path: path,
        reason: code == ELOOP
          ? "it is a symbolic link; remove it and try again" : systemErrorDescription(code))
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      throw StateRestorationError.cannotWrite(
        path: path, reason: "it is not a regular file; remove it and try again")
    }
    if status.st_mode & 0o077 != 0 { _ = fchmod(descriptor, 0o600) }
    let operation = waiting ? LOCK_EX : LOCK_EX | LOCK_NB
    guard retryingOnInterrupt({ flock(descriptor, operation) }) == 0 else {
      let code = errno
      defer { close(descriptor) }
      if code == EWOULDBLOCK {
        throw StateRestorationError.locked(path: path, owner: readOwner(descriptor))
      }
      throw StateRestorationError.cannotWrite(path: path, reason: systemErrorDescription(code))
    }
    let pid = Array("\(getpid())\n".utf8)
    _ = ftruncate(descriptor, 0)
    _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    return FileLock(path: path, descriptor: descriptor)
  }

  private static func readOwner(_ descriptor: Int32) -> Int32? {
    var buffer = [UInt8](repeating: 0, count: 16)
    let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { return nil }
    let text = String(decoding: buffer[..<count], as: UTF8.self)
    return Int32(text.prefix { $0.isNumber })
  }

  deinit {
    close(descriptor)
  }
}
