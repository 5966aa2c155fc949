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

/// A directory of state files: versioned JSON written durably, files that cannot be read moved
/// aside to `quarantine/`, and advisory locks.
///
/// The directory is created 0700 and its files 0600. Paths given to its methods are relative to
/// it, such as `scenes/main.json`.
package struct StateDirectory: Sendable, Hashable {
  /// The directory's absolute or working-directory-relative path.
  package let path: String

  /// The subdirectory holding files that could not be read; they are kept, never deleted.
  package static let quarantineFolder = "quarantine"

  /// The default size limit for a state file: larger ones are refused unread.
  package static let defaultSizeLimit = 8 << 20

  /// Opens a state directory, creating it (and its parents) 0700 when missing.
  ///
  /// - Parameter path: The directory.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)`` when it cannot be created.
  package init(creating path: String) throws {
    try DurableFile.createDirectory(path)
    self.path = path
  }

  /// Refers to a state directory without creating it, for reading only.
  ///
  /// - Parameter path: The directory.
  package init(existing path: String) {
    self.path = path
  }

  /// Takes away others' access to a directory, where a user or an older version left it,
  /// with its files and those of the subfolders named.
  ///
  /// - Parameters:
  ///   - path: The directory.
  ///   - subfolders: Folders in it whose files are made private too.
  /// - Returns: A one-line warning when the directory was changed or could not be.
  package static func makePrivate(_ path: String, subfolders: [String]) -> String? {
    do {
      guard let old = try DurableFile.tightenPermissions(of: path, to: 0o700) else {
        return nil
      }
      for folder in [path] + subfolders.map({ path + "/" + $0 }) {
        let entries = DurableFile.entries(in: folder)
        for entry in entries {
          let isFolder = folder == path && subfolders.contains(entry)
          try DurableFile.tightenPermissions(of: folder + "/" + entry, to: isFolder ? 0o700 : 0o600)
        }
      }
      return "'\(path)' was open to other users (mode \(String(old, radix: 8))); "
        + "made it and its files private (0700 and 0600)"
    } catch {
      return SystemError.describing(error)
    }
  }

  /// Takes away others' access to the files a library made in a directory it shares with a
  /// program — its folders and what is in them, and its files — and to nothing else: the
  /// directory's other entries keep their modes, and so does the directory itself unless all
  /// it holds is the library's.
  ///
  /// - Parameters:
  ///   - folders: The library's folders in the directory, made 0700, their entries 0600 (0700
  ///     for a folder).
  ///   - files: The library's files in the directory, made 0600.
  /// - Returns: A one-line warning when something was changed or could not be, or when the
  ///   directory is open to other users (which only its owner should change).
  package func makeOwnFilesPrivate(folders: [String], files: [String]) -> String? {
    var parts: [String] = []
    do {
      var changed = false
      for folder in folders {
        let folderPath = path(of: folder)
        // Others cannot reach into a private folder: its entries are checked only when it was
        // open, which spares every launch a look at each file.
        guard try DurableFile.tightenPermissions(of: folderPath, to: 0o700) != nil else {
          continue
        }
        changed = true
        for entry in DurableFile.entries(in: folderPath) {
          let entryPath = folderPath + "/" + entry
          var status = stat()
          guard lstat(entryPath, &status) == 0 else { continue }
          let mode: mode_t = status.st_mode & S_IFMT == S_IFDIR ? 0o700 : 0o600
          if try DurableFile.tightenPermissions(of: entryPath, to: mode) != nil { changed = true }
        }
      }
      for file in files
      where try DurableFile.tightenPermissions(of: path(of: file), to: 0o600) != nil {
        changed = true
      }
      if changed {
        parts.append("made the saved state in '\(path)' private again (0700 and 0600)")
      }
    } catch {
      parts.append(SystemError.describing(error))
    }
    // The directory is made private only when nothing but the library's own files is in it.
    var status = stat()
    if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
      let mode = String(status.st_mode & 0o777, radix: 8)
      let own = Set(folders + files)
      if DurableFile.entries(in: path).allSatisfy(own.contains) {
        do {
          try DurableFile.tightenPermissions(of: path, to: 0o700)
          parts.append("'\(path)' was open to other users (mode \(mode)); made it private (0700)")
        } catch {
          parts.append(SystemError.describing(error))
        }
      } else {
        parts.append(
          "'\(path)' is open to other users (mode \(mode)), who can see the names of its files; "
            + "'chmod 700' makes it private")
      }
    }
    return parts.isEmpty ? nil : parts.joined(separator: "; ")
  }

  /// The path of a file in the directory.
  ///
  /// - Parameter relativePath: The file's path inside the directory.
  /// - Returns: The full path.
  package func path(of relativePath: String) -> String {
    path.hasSuffix("/") ? path + relativePath : path + "/" + relativePath
  }

  /// Reads a versioned file.
  ///
  /// - Parameters:
  ///   - type: The file's format.
  ///   - relativePath: The file's path inside the directory.
  ///   - limit: The largest size accepted, in bytes.
  /// - Returns: The contents, or nil when the file does not exist.
  /// - Throws: A ``SystemError`` when it cannot be read, is too large, is malformed or
  ///   is of a newer format version.
  package func load<Content: VersionedFormat>(
    _ type: Content.Type, from relativePath: String, limit: Int = defaultSizeLimit
  ) throws -> Content? {
    let file = path(of: relativePath)
    guard let data = try DurableFile.read(file, limit: limit) else { return nil }
    return try Content.decoded(from: data, path: file)
  }

  /// Writes a versioned file atomically and durably, creating its subdirectory if needed.
  ///
  /// - Parameters:
  ///   - content: The contents.
  ///   - relativePath: The file's path inside the directory.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  package func save<Content: VersionedFormat>(_ content: Content, to relativePath: String) throws {
    try prepareSave(content, to: relativePath).commit()
  }

  /// Writes a versioned file beside its destination and flushes it, ready to replace the file:
  /// the first half of ``save(_:to:)``, for a change that must write several files or none.
  ///
  /// - Parameters:
  ///   - content: The contents.
  ///   - relativePath: The file's path inside the directory.
  ///   - flushingInBackground: Whether the file's flush runs beside the caller's next work,
  ///     ``PreparedWrite/commit()`` waiting for it and reporting its failure; false by default.
  /// - Returns: The prepared write; ``PreparedWrite/commit()`` puts it in place, and dropping
  ///   it leaves the old file.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  package func prepareSave<Content: VersionedFormat>(
    _ content: Content, to relativePath: String, flushingInBackground: Bool = false
  ) throws -> PreparedWrite {
    let file = path(of: relativePath)
    let data: Data
    do {
      data = try content.encoded()
    } catch {
      throw SystemError.cannotWrite(
        path: file, reason: "a value cannot be encoded as JSON")
    }
    // What is written is what ``load(_:from:limit:)`` reads back: a file it would refuse is
    // refused now, before anything is written, rather than set aside at the next launch.
    guard data.count <= Self.defaultSizeLimit else {
      throw SystemError.cannotWrite(
        path: file,
        reason:
          "it would take \(data.count) bytes, more than the \(Self.defaultSizeLimit) a state file may hold; nothing was saved"
      )
    }
    do {
      _ = try Content.decoded(from: data, path: file)
    } catch {
      throw SystemError.cannotWrite(
        path: file,
        reason:
          "it could not be read back (\(SystemError.describing(error))); nothing was saved"
      )
    }
    try ensureParent(of: relativePath)
    return try DurableFile.prepare(
      data, for: file, flushingInBackground: flushingInBackground)
  }

  /// Removes a file durably; a missing file is fine.
  ///
  /// - Parameter relativePath: The file's path inside the directory.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  package func remove(_ relativePath: String) throws {
    try DurableFile.remove(path(of: relativePath))
  }

  /// Whether anything stands at a path in the directory: a file, a folder, or a symbolic
  /// link, even one that points nowhere.
  ///
  /// - Parameter relativePath: The file's path inside the directory.
  /// - Returns: true when something exists at that path.
  package func contains(_ relativePath: String) -> Bool {
    var status = stat()
    return lstat(path(of: relativePath), &status) == 0
  }

  /// Moves a file that could not be read to `quarantine/`, with a UTC timestamp in its name.
  ///
  /// Nothing is overwritten: a name already taken gets a numeric suffix. Whatever stands at
  /// the path is moved — a regular file, a directory, a FIFO or a symbolic link (the link
  /// itself, not its target) — and a file or directory is made private (0600 or 0700).
  ///
  /// - Parameters:
  ///   - relativePath: The file's path inside the directory.
  ///   - date: The time to put in the name.
  /// - Returns: The quarantined file's full path.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  @discardableResult
  package func quarantine(_ relativePath: String, at date: Date = Date()) throws -> String {
    try ensureParent(of: Self.quarantineFolder + "/x")
    let source = path(of: relativePath)
    var status = stat()
    guard lstat(source, &status) == 0 else {
      throw SystemError.cannotWrite(path: source, reason: systemErrorDescription())
    }
    let kind = status.st_mode & S_IFMT
    let flatName = relativePath.replacing("/", with: "-")
    let (stem, fileExtension) = Self.splitExtension(flatName)
    let stamp = Self.timestamp(date)
    for attempt in 1...1000 {
      let suffix = attempt == 1 ? "" : "-\(attempt)"
      let destination = path(
        of: "\(Self.quarantineFolder)/\(stem).\(stamp)\(suffix)\(fileExtension)")
      guard try move(source, to: destination, isDirectory: kind == S_IFDIR) else { continue }
      // Kept private like every state file, whatever mode it came with.
      if kind == S_IFREG || kind == S_IFDIR {
        _ = try? DurableFile.tightenPermissions(
          of: destination, to: kind == S_IFDIR ? 0o700 : 0o600)
      }
      try DurableFile.synchronizeDirectory(path(of: Self.quarantineFolder))
      try DurableFile.synchronizeDirectory(DurableFile.parentDirectory(of: source))
      return destination
    }
    throw SystemError.cannotWrite(path: source, reason: "no free name in quarantine")
  }

  /// Keeps a copy of a file in `quarantine/`, named as ``quarantine(_:at:)`` names it, before
  /// the app replaces the file with what it could make of it (a scene whose products left the
  /// catalog, say).
  ///
  /// - Parameters:
  ///   - relativePath: The file's path inside the directory.
  ///   - date: The time to put in the name.
  /// - Returns: The copy's full path.
  /// - Throws: A `SystemError` when the file cannot be read or the copy written.
  @discardableResult
  package func quarantineCopy(of relativePath: String, at date: Date = Date()) throws -> String {
    let source = path(of: relativePath)
    guard let data = try DurableFile.read(source, limit: Self.defaultSizeLimit) else {
      throw SystemError.cannotRead(path: source, reason: "the file is missing")
    }
    try ensureParent(of: Self.quarantineFolder + "/x")
    let (stem, fileExtension) = Self.splitExtension(relativePath.replacing("/", with: "-"))
    let stamp = Self.timestamp(date)
    let copy = try DurableFile.prepare(
      data, for: path(of: "\(Self.quarantineFolder)/\(stem).\(stamp)\(fileExtension)"))
    for attempt in 1...1000 {
      let name = "\(stem).\(stamp)\(attempt == 1 ? "" : "-\(attempt)")\(fileExtension)"
      if try copy.commitIfAbsent(named: name) {
        return path(of: "\(Self.quarantineFolder)/\(name)")
      }
    }
    throw SystemError.cannotWrite(path: source, reason: "no free name in quarantine")
  }

  /// Moves a file to a name nothing holds yet.
  ///
  /// - Returns: false when the destination is taken.
  private func move(_ source: String, to destination: String, isDirectory: Bool) throws -> Bool {
    if isDirectory {
      // A directory cannot be hard-linked; `rename` would replace an empty directory there.
      var status = stat()
      guard lstat(destination, &status) != 0, errno == ENOENT else { return false }
      guard rename(source, destination) == 0 else {
        throw SystemError.cannotWrite(path: source, reason: systemErrorDescription())
      }
      return true
    }
    // `link` never replaces what is there, and links a symbolic link itself, not its target.
    guard link(source, destination) == 0 else {
      guard errno == EEXIST else {
        throw SystemError.cannotWrite(path: destination, reason: systemErrorDescription())
      }
      return false
    }
    guard unlink(source) == 0 else {
      throw SystemError.cannotWrite(path: source, reason: systemErrorDescription())
    }
    return true
  }

  /// Removes what writers killed mid-write left behind in the directory and its subfolders:
  /// temporary files of processes that are no longer running.
  ///
  /// - Parameter subfolders: The subfolders to sweep besides the directory itself.
  /// - Returns: How many files were removed.
  @discardableResult
  package func removeAbandonedTemporaryFiles(subfolders: [String] = []) -> Int {
    ([path] + subfolders.map(path(of:))).reduce(0) {
      $0 + DurableFile.removeAbandonedTemporaryFiles(in: $1)
    }
  }

  /// Takes the exclusive lock on a lock file in the directory, failing at once if it is held.
  ///
  /// - Parameters:
  ///   - relativePath: The lock file's path inside the directory.
  ///   - note: What the holder writes after its identity (``FileLock/record(note:)``); nil for
  ///     none.
  /// - Returns: The held lock; it is released when the value is destroyed or the process ends.
  /// - Throws: ``SystemError/locked(path:owner:)`` when another process holds it.
  package func lock(_ relativePath: String, note: String? = nil) throws -> FileLock {
    try ensureParent(of: relativePath)
    return try FileLock.acquire(path(of: relativePath), note: note)
  }

  /// Takes the exclusive lock on a lock file in the directory, waiting while another holds it.
  ///
  /// - Parameter relativePath: The lock file's path inside the directory.
  /// - Returns: The held lock.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``.
  package func lockWaiting(_ relativePath: String) throws -> FileLock {
    try ensureParent(of: relativePath)
    return try FileLock.acquireWaiting(path(of: relativePath))
  }

  /// Creates the folders of a relative path inside the directory, refusing links in their place.
  private func ensureParent(of relativePath: String) throws {
    let parent = DurableFile.parentDirectory(of: relativePath)
    guard parent != "." else { return }
    var prefix = ""
    for component in parent.split(separator: "/") {
      prefix += prefix.isEmpty ? String(component) : "/" + component
      try DurableFile.createPrivateSubdirectory(path(of: prefix))
    }
  }

  private static func splitExtension(_ name: String) -> (String, String) {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
    return (String(name[..<dot]), String(name[dot...]))
  }

  /// `20261121T120500.123Z`: sortable, and free of characters that need quoting in a shell.
  static func timestamp(_ date: Date) -> String {
    let seconds = date.timeIntervalSince1970
    var time = time_t(seconds.rounded(.down))
    let millis = Int((seconds - seconds.rounded(.down)) * 1000)
    var parts = tm()
    gmtime_r(&time, &parts)
    func pad(_ value: Int32, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2) + "T"
      + pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + pad(parts.tm_sec, 2) + "."
      + pad(Int32(millis), 3) + "Z"
  }
}
