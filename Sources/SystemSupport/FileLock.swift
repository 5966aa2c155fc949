import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An advisory, exclusive lock on a file, held until it is released or the process ends.
///
/// The lock is a `flock(2)` lock on a file that is never renamed, so the kernel releases it when
/// its holder dies, even by `kill -9`. A symbolic link or anything but a regular file in its
/// place is refused, so a lock never writes outside its directory. The holder writes its
/// identity in the file (`PID STARTTIME`) and, if it likes, a note on the line after it, so
/// that others can say who holds it (``holder(of:)``) without touching the lock.
package final class FileLock: Sendable {
  /// The lock file's path.
  package let path: String
  private let descriptor: Int32
  /// What this holder last wrote in the file (nil before its first record, or after a write
  /// that failed), and how long the file is.
  private let recorded: Mutex<(text: [UInt8]?, length: Int)>

  private init(path: String, descriptor: Int32, length: Int) {
    self.path = path
    self.descriptor = descriptor
    recorded = Mutex((nil, length))
  }

  /// Takes the lock, or fails at once when another process holds it.
  ///
  /// - Parameters:
  ///   - path: The lock file, created 0600 if missing.
  ///   - note: What the holder writes after its identity (``record(note:)``); nil for none.
  /// - Returns: The held lock.
  /// - Throws: ``SystemError/locked(path:owner:)`` when another process holds it,
  ///   ``SystemError/cannotWrite(path:reason:)`` when the file cannot be opened.
  package static func acquire(_ path: String, note: String? = nil) throws -> FileLock {
    try acquire(path, waiting: false, note: note)
  }

  /// Takes the lock, waiting for another holder to release it.
  ///
  /// - Parameter path: The lock file, created 0600 if missing.
  /// - Returns: The held lock.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)`` when the file cannot be
  ///   opened or locked.
  package static func acquireWaiting(_ path: String) throws -> FileLock {
    try acquire(path, waiting: true, note: nil)
  }

  private static func acquire(_ path: String, waiting: Bool, note: String?) throws -> FileLock {
    // The holder writes its pid in the file: never through a link, never into a FIFO.
    let descriptor = retryingOnInterrupt {
      open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
    }
    guard descriptor >= 0 else {
      let code = errno
      throw SystemError.cannotWrite(
        path: path,
        reason: code == ELOOP
          ? "it is a symbolic link; remove it and try again" : systemErrorDescription(code))
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      throw SystemError.cannotWrite(
        path: path, reason: "it is not a regular file; remove it and try again")
    }
    if status.st_mode & 0o077 != 0 { _ = fchmod(descriptor, 0o600) }
    let operation = waiting ? LOCK_EX : LOCK_EX | LOCK_NB
    guard retryingOnInterrupt({ flock(descriptor, operation) }) == 0 else {
      let code = errno
      defer { close(descriptor) }
      if code == EWOULDBLOCK {
        throw SystemError.locked(path: path, owner: readOwner(descriptor))
      }
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription(code))
    }
    // The length as the lock is taken: the holder before may have written a longer record
    // while this process waited. Unknown, the first record cuts the file to its own length.
    let length = fstat(descriptor, &status) == 0 ? Int(clamping: status.st_size) : Int.max
    let lock = FileLock(path: path, descriptor: descriptor, length: length)
    lock.record(note: note)
    return lock
  }

  /// Writes the holder's identity in the lock file, and a note after it: what others read with
  /// ``holder(of:)``, such as which terminal holds a scene and whether it is in front there.
  ///
  /// - Parameter note: One line, or nil for none.
  package func record(note: String?) {
    let identity = ProcessIdentity.current
    var text = "\(identity.pid) \(identity.startTime.map(String.init) ?? "-")\n"
    if let note { text += note.filter { $0 != "\n" } + "\n" }
    let bytes = Array(text.utf8)
    recorded.withLock { recorded in
      // The same record again (a scene brought to the front where it was) writes nothing.
      guard recorded.text != bytes else { return }
      // Written over the old text, then cut where it was longer: a reader sees the identity
      // at every instant.
      let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
      guard written == bytes.count,
        bytes.count >= recorded.length || ftruncate(descriptor, off_t(bytes.count)) == 0
      else {
        recorded.text = nil
        recorded.length = max(recorded.length, written)
        return
      }
      recorded = (bytes, bytes.count)
    }
  }

  /// Who holds a lock file, by what its holder wrote in it: the process, if it is still
  /// running, and its note. The lock itself is not touched, so asking never disturbs a process
  /// taking it.
  ///
  /// - Parameter path: The lock file.
  /// - Returns: The holder's identity and note, or nil when no running process wrote it.
  package static func holder(of path: String) -> (process: ProcessIdentity, note: String?)? {
    let descriptor = retryingOnInterrupt {
      open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    }
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 512)
    let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { return nil }
    let lines = String(decoding: buffer[..<count], as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false)
    let fields = lines[0].split(separator: " ")
    guard let pid = fields.first.flatMap({ Int32($0) }) else { return nil }
    let identity = ProcessIdentity(
      pid: pid, startTime: fields.count > 1 ? UInt64(fields[1]) : nil)
    guard identity.isRunning else { return nil }
    let note = lines.count > 1 && !lines[1].isEmpty ? String(lines[1]) : nil
    return (identity, note)
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
