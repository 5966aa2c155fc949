#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension DurableFile {
  /// Creates a directory inside a directory the caller trusts, refusing a symbolic link or any
  /// other file in its place, so that nothing is ever written through a link.
  ///
  /// An existing directory that others may read is made private (0700).
  ///
  /// - Parameter path: The directory; its parent must exist.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)`` when it cannot be created or
  ///   something other than a directory stands there.
  package static func createPrivateSubdirectory(_ path: String) throws {
    if mkdir(path, 0o700) != 0 && errno != EEXIST {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
    }
    var status = stat()
    guard lstat(path, &status) == 0 else {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
    }
    switch status.st_mode & S_IFMT {
    case S_IFDIR:
      _ = try tightenPermissions(of: path, to: 0o700)
    case S_IFLNK:
      throw SystemError.cannotWrite(
        path: path, reason: "it is a symbolic link; remove it and try again")
    default:
      throw SystemError.cannotWrite(
        path: path, reason: "it is not a directory; move it away and try again")
    }
  }

  /// Takes away the group's and others' access to a file or directory, where it has any.
  ///
  /// A symbolic link is left alone: its own mode means nothing.
  ///
  /// - Parameters:
  ///   - path: The file or directory.
  ///   - mode: The mode to set when the current one lets others in: 0700 or 0600.
  /// - Returns: The mode it had when it was changed; nil when it was already private or is
  ///   missing.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)`` when it cannot be changed.
  @discardableResult
  package static func tightenPermissions(of path: String, to mode: mode_t) throws -> mode_t? {
    var status = stat()
    guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFLNK else { return nil }
    let current = status.st_mode & 0o7777
    guard current & 0o077 != 0 else { return nil }
    guard chmod(path, mode) == 0 else {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription())
    }
    return current
  }

  /// Removes the temporary files that writers killed before their `rename` left in a
  /// directory: those named as ``prepare(_:for:permissions:flushingInBackground:)`` names them, whose process is no
  /// longer running.
  ///
  /// A file of a live process, or one whose name does not say which process made it, is kept.
  ///
  /// - Parameter directory: The directory.
  /// - Returns: How many files were removed.
  /// - Complexity: O(*n*) in the number of entries in the directory.
  @discardableResult
  package static func removeAbandonedTemporaryFiles(in directory: String) -> Int {
    removeAbandonedTemporaryFiles(in: directory) { _ in true }
  }

  /// Removes the temporary files that writers of one destination killed before their `rename`
  /// left beside it: for a file written outside the app's own directories (an export), which
  /// no launch sweeps. Other files of the directory are left alone.
  ///
  /// - Parameter path: The destination.
  /// - Returns: How many files were removed.
  /// - Complexity: O(*n*) in the number of entries in the destination's directory.
  @discardableResult
  package static func removeAbandonedTemporaryFiles(of path: String) -> Int {
    let prefix = "." + baseName(of: path) + "."
    return removeAbandonedTemporaryFiles(in: parentDirectory(of: path)) { name in
      // `.NAME.PID.RANDOM.tmp`: what follows the name is the process and a number alone.
      name.hasPrefix(prefix)
        && name.dropFirst(prefix.count).split(separator: ".").count == 3
    }
  }

  private static func removeAbandonedTemporaryFiles(
    in directory: String, where belongs: (String) -> Bool
  ) -> Int {
    var removed = 0
    for name in entries(in: directory) {
      guard belongs(name), let pid = temporaryFileOwner(name),
        !ProcessIdentity(pid: pid, startTime: nil).isRunning
      else { continue }
      if unlink(directory + "/" + name) == 0 { removed += 1 }
    }
    return removed
  }

  /// The names in a directory, without `.` and `..`, in no particular order: what
  /// `FileManager`'s listing gives, without Foundation.
  ///
  /// - Parameter directory: The directory.
  /// - Returns: The names; none when it cannot be read.
  package static func entries(in directory: String) -> [String] {
    guard let stream = opendir(directory) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// The process that made a temporary file named `.NAME.PID.RANDOM.tmp`, if the name is one;
  /// also for the `-wal`, `-shm` and `-journal` files SQLite keeps beside a temporary database.
  static func temporaryFileOwner(_ name: String) -> pid_t? {
    // Every other file of a directory is passed over at its first byte.
    guard name.utf8.first == UInt8(ascii: ".") else { return nil }
    var name = Substring(name)
    for companion in ["-wal", "-shm", "-journal"] where name.hasSuffix(".tmp" + companion) {
      name = name.dropLast(companion.count)
    }
    guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
    let parts = name.dropFirst().dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count >= 3, UInt32(parts[parts.count - 1]) != nil,
      let pid = pid_t(parts[parts.count - 2]), pid > 0
    else { return nil }
    return pid
  }
}
