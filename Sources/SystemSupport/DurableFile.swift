#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading and writing whole files so that a crash at any instant leaves either the old or the
/// new contents, never a torn file.
package enum DurableFile {
  /// Writes data atomically and durably: a temporary file in the same directory, `fsync`,
  /// `rename` over the destination, then `fsync` of the directory.
  ///
  /// When this returns, the new contents survive a power loss or `kill -9`; when it throws, the
  /// old file (if any) is untouched and no temporary file is left behind.
  ///
  /// - Parameters:
  ///   - data: The complete new contents.
  ///   - path: The destination; its directory must exist.
  ///   - permissions: The new file's mode; 0600 by default.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  /// - Complexity: O(*n*) in the size of `data`, plus two `fsync` calls.
  package static func write(_ data: Data, to path: String, permissions: mode_t = 0o600) throws {
    try prepare(data, for: path, permissions: permissions).commit()
  }

  /// Writes data to a temporary file beside the destination and flushes it, without replacing
  /// the destination yet: the first half of ``write(_:to:permissions:)``.
  ///
  /// Preparing every file a change touches before committing any of them makes a failure
  /// (a full disk, say) leave all of them as they were. A prepared write that is neither
  /// committed nor kept is discarded when the value is destroyed.
  ///
  /// - Parameters:
  ///   - data: The complete new contents.
  ///   - path: The destination; its directory must exist.
  ///   - permissions: The new file's mode; 0600 by default.
  ///   - flushingInBackground: Whether the contents' flush runs on a thread of its own while
  ///     the caller goes on (with another file's flush, say), ``PreparedWrite/commit()``
  ///     waiting for it: a failed flush is then reported by the commit, not here. False by
  ///     default: the flush is done when this returns.
  /// - Returns: The prepared write; ``PreparedWrite/commit()`` puts it in place.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``; no temporary file is left.
  /// - Complexity: O(*n*) in the size of `data`, plus one `fsync` call.
  package static func prepare(
    _ data: Data, for path: String, permissions: mode_t = 0o600,
    flushingInBackground: Bool = false
  ) throws -> PreparedWrite {
    try prepare(
      for: path, permissions: permissions, flushingInBackground: flushingInBackground
    ) { descriptor in
      // Exactly the mode asked for, whatever the umask: state files are private.
      _ = fchmod(descriptor, permissions)
      try writeAll(data, to: descriptor, path: path)
    }
  }

  /// Streams a file's contents into a temporary file beside the destination and flushes it,
  /// without replacing the destination yet: for contents too large to hold in memory (an
  /// export of ten million products, a search index).
  ///
  /// - Parameters:
  ///   - path: The destination; its directory must exist.
  ///   - permissions: The new file's mode, less the umask; 0600 by default.
  ///   - flushingInBackground: Whether the contents' flush runs on a thread of its own while
  ///     the caller goes on, ``PreparedWrite/commit()`` waiting for it and reporting its
  ///     failure; false by default.
  ///   - body: Writes the contents to the descriptor it is given (with `write` or `pwrite`);
  ///     what it throws stops the writing, and the temporary file is removed.
  /// - Returns: The prepared write; ``PreparedWrite/commit()`` puts it in place.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``, or what `body` throws; no
  ///   temporary file is left.
  package static func prepare(
    for path: String, permissions: mode_t = 0o600, flushingInBackground: Bool = false,
    writing body: (_ descriptor: Int32) throws -> Void
  ) throws -> PreparedWrite {
    let temporary = temporaryPath(for: path)
    let descriptor = retryingOnInterrupt {
      open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, permissions)
    }
    guard descriptor >= 0 else {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
    }
    var isComplete = false
    defer {
      if !isComplete { unlink(temporary) }
    }
    var ownsDescriptor = true
    defer {
      if ownsDescriptor { close(descriptor) }
    }
    try body(descriptor)
    if flushingInBackground {
      ownsDescriptor = false
      isComplete = true
      return PreparedWrite(
        temporaryPath: temporary, path: path, flush: PendingFlush(descriptor: descriptor))
    }
    guard fsync(descriptor) == 0 else {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
    }
    isComplete = true
    return PreparedWrite(temporaryPath: temporary, path: path)
  }

  /// Has a file built at a temporary path beside the destination by code that writes files by
  /// path (SQLite, say), then flushes it, without replacing the destination yet.
  ///
  /// - Parameters:
  ///   - path: The destination; its directory must exist.
  ///   - permissions: The new file's mode; 0600 by default.
  ///   - body: Creates the file at the temporary path it is given; what it throws stops the
  ///     building, and the temporary file is removed (files the body made beside it are its
  ///     own to remove).
  /// - Returns: The prepared write; ``PreparedWrite/commit()`` puts it in place.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``, or what `body` throws.
  package static func prepare(
    for path: String, permissions: mode_t = 0o600,
    building body: (_ temporaryPath: String) throws -> Void
  ) throws -> PreparedWrite {
    let temporary = temporaryPath(for: path)
    var isComplete = false
    defer {
      if !isComplete { unlink(temporary) }
    }
    try body(temporary)
    let descriptor = retryingOnInterrupt { open(temporary, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
    guard descriptor >= 0 else {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
    }
    defer { close(descriptor) }
    _ = fchmod(descriptor, permissions)
    guard fsync(descriptor) == 0 else {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
    }
    isComplete = true
    return PreparedWrite(temporaryPath: temporary, path: path)
  }

  /// A fresh temporary file's path beside a destination, named so that one a killed writer
  /// left behind is recognised and removed at the next launch
  /// (``removeAbandonedTemporaryFiles(in:)``): `.NAME.PID.RANDOM.tmp`.
  ///
  /// - Parameter path: The destination.
  /// - Returns: The temporary path, in the destination's directory.
  package static func temporaryPath(for path: String) -> String {
    "\(parentDirectory(of: path))/.\(baseName(of: path)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
  }

  /// Reads a whole file, refusing one larger than a limit before reading it.
  ///
  /// Only a regular file is read: a symbolic link is not followed, and a FIFO, a device or a
  /// directory is refused without waiting on it.
  ///
  /// - Parameters:
  ///   - path: The file to read.
  ///   - limit: The largest size accepted, in bytes.
  /// - Returns: The contents, or nil when the file does not exist.
  /// - Throws: ``SystemError/tooLarge(path:size:limit:)`` or
  ///   ``SystemError/cannotRead(path:reason:)``.
  /// - Complexity: O(*n*) in the size of the file.
  package static func read(_ path: String, limit: Int) throws -> Data? {
    // Neither a link nor a FIFO is followed or waited on: either is "not a regular file".
    let descriptor = retryingOnInterrupt {
      open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    }
    guard descriptor >= 0 else {
      let code = errno
      if code == ENOENT { return nil }
      throw SystemError.cannotRead(
        path: path, reason: code == ELOOP ? "it is a symbolic link" : systemErrorDescription(code))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw SystemError.cannotRead(path: path, reason: systemErrorDescription())
    }
    guard (status.st_mode & S_IFMT) == S_IFREG else {
      throw SystemError.cannotRead(path: path, reason: "it is not a regular file")
    }
    let size = Int(status.st_size)
    guard size <= limit else {
      throw SystemError.tooLarge(path: path, size: size, limit: limit)
    }
    var data = Data(count: size)
    var filled = 0
    while filled < size {
      let count = data.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return retryingOnInterrupt { systemRead(descriptor, base + filled, size - filled) }
      }
      guard count >= 0 else {
        throw SystemError.cannotRead(path: path, reason: systemErrorDescription())
      }
      if count == 0 { break }
      filled += count
    }
    return filled == size ? data : data.prefix(filled)
  }

  /// Appends data to a file durably: written at its end (`O_APPEND`), then `fdatasync`. A file
  /// that does not exist is made (mode 0600) and its directory flushed.
  ///
  /// A crash before the flush loses the appended data, or leaves part of it at the end: readers
  /// of an appended file take only what ends as a whole record does (a line's newline).
  ///
  /// - Parameters:
  ///   - data: What to append.
  ///   - path: The file; its directory must exist.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  /// - Complexity: O(*n*) in the size of `data`, plus one `fdatasync` call.
  package static func append(_ data: Data, to path: String) throws {
    let existed = access(path, F_OK) == 0
    let descriptor = retryingOnInterrupt {
      open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    }
    guard descriptor >= 0 else {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
    }
    defer { close(descriptor) }
    try writeAll(data, to: descriptor, path: path)
    guard retryingOnInterrupt({ fdatasync(descriptor) }) == 0 else {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
    }
    if !existed { try synchronizeDirectory(parentDirectory(of: path)) }
  }

  /// Removes a file durably: `unlink`, then `fsync` of its directory. A missing file is fine.
  ///
  /// - Parameter path: The file to remove.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  package static func remove(_ path: String) throws {
    if unlink(path) != 0 && errno != ENOENT {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
    }
    try synchronizeDirectory(parentDirectory(of: path))
  }

  /// Creates a directory and its missing parents with the given mode (0700 by default).
  ///
  /// - Parameters:
  ///   - path: The directory.
  ///   - permissions: The mode of the directories created.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  package static func createDirectory(_ path: String, permissions: mode_t = 0o700) throws {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
      // `append(contentsOf:)` takes the substring as it is; `+` would go through the generic
      // collection path, which looks up Substring's conformances at run time, at launch.
      prefix += "/"
      prefix.append(contentsOf: component)
      if mkdir(prefix, permissions) != 0 && errno != EEXIST {
        throw SystemError.cannotWrite(path: prefix, reason: systemErrorDescription())
      }
    }
    var status = stat()
    guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
      throw SystemError.cannotWrite(path: path, reason: "not a directory")
    }
  }

  /// Flushes a directory's entries (a rename or unlink in it) to the disk.
  ///
  /// - Parameter directory: The directory.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  package static func synchronizeDirectory(_ directory: String) throws {
    let descriptor = retryingOnInterrupt { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    guard descriptor >= 0 else {
      throw SystemError.cannotWrite(path: directory, reason: systemErrorDescription())
    }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else {
      throw SystemError.cannotWrite(path: directory, reason: systemErrorDescription())
    }
  }

  private static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
    try data.withUnsafeBytes { buffer in
      var written = 0
      while written < buffer.count {
        let count = retryingOnInterrupt {
          guard let base = buffer.baseAddress else { return 0 }
          return systemWrite(descriptor, base + written, buffer.count - written)
        }
        guard count > 0 else {
          throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
        }
        written += count
      }
    }
  }

  static func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  static func baseName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }
}
