import CSQLite
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A file's place on disk, its device and inode: the same while the file is changed in place,
/// another once it is replaced or removed and created again.
package struct FileIdentity: Hashable, Sendable {
  /// The device holding the file.
  package var device: UInt64
  /// The file's inode on the device.
  package var inode: UInt64

  /// Creates an identity.
  ///
  /// - Parameters:
  ///   - device: The device holding the file.
  ///   - inode: The file's inode on the device.
  package init(device: UInt64, inode: UInt64) {
    self.device = device
    self.inode = inode
  }

  /// The identity of what is at a path now, not following a symbolic link; nil when nothing is.
  ///
  /// - Parameter path: The path.
  package init?(path: String) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    self.init(status)
  }

  /// The identity a file status describes.
  ///
  /// - Parameter status: What `stat` or `lstat` found.
  package init(_ status: stat) {
    self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
  }
}

/// One connection to a database file, shared by several threads and used by one at a time: the
/// form every long-lived connection of the package takes (``Database`` itself is not for
/// concurrent use). It remembers which file it opened, so that a file replaced since is told
/// from the one it has open.
///
/// A queue is either given its connection as it is made, or opens one at its first use (the
/// body of ``use(_:)-(((inout Database?)) throws -> Result)`` sets it); one of the second kind
/// may be closed and opened again.
package final class DatabaseQueue: Sendable {
  private struct Open {
    var database: Database
    var file: FileIdentity?
  }

  /// The database file's path.
  package let path: String
  private let state: Mutex<Open?>
  private let openings = Atomic(0)

  /// Creates a queue that opens its connection at its first use.
  ///
  /// - Parameter path: The database file's path.
  package init(path: String) {
    self.path = path
    state = Mutex(nil)
  }

  /// Creates a queue for a connection just opened, and nothing else uses.
  ///
  /// - Parameters:
  ///   - database: The connection.
  ///   - path: The database file's path.
  package init(_ database: sending Database, path: String) {
    self.path = path
    state = Mutex(Open(database: database, file: FileIdentity(path: path)))
    openings.store(1, ordering: .relaxed)
  }

  /// How many connections the queue has had.
  package var connectionsOpened: Int { openings.load(ordering: .relaxed) }

  /// The file the connection opened; nil when none is open, or nothing was at the path as it
  /// opened.
  package var openedFile: FileIdentity? { state.withLock { $0?.file } }

  /// Runs a body with the connection, no other thread using it meanwhile; the body may open
  /// one by setting it, or close it by setting nil. A connection whose file is no longer at the
  /// path (moved away, replaced, removed) is closed first, so that the body opens the file
  /// there now; one the body set is recorded with the file at the path as it returns.
  ///
  /// - Parameter body: What to do with the connection, nil when none is open.
  /// - Returns: What the body returns.
  /// - Throws: What the body throws; the connection is then as the body left it.
  package func use<Result>(_ body: (inout Database?) throws -> Result) throws -> Result {
    try use(closingReplaced: true, body)
  }

  private func use<Result>(
    closingReplaced: Bool, _ body: (inout Database?) throws -> Result
  ) throws -> Result {
    try state.withLock { open in
      if closingReplaced, let current = open,
        current.file == nil || current.file != FileIdentity(path: path)
      {
        open = nil
      }
      var database = open?.database
      do {
        let result = try body(&database)
        keep(database, in: &open)
        return result
      } catch {
        keep(database, in: &open)
        throw error
      }
    }
  }

  /// Records the connection a body left: one it opened with the file at the path now.
  private func keep(_ database: Database?, in open: inout Open?) {
    guard let database else {
      open = nil
      return
    }
    if open?.database !== database {
      open = Open(database: database, file: FileIdentity(path: path))
      openings.add(1, ordering: .relaxed)
    }
  }

  /// Runs a body with the open connection, no other thread using it meanwhile.
  ///
  /// - Parameter body: What to do with it.
  /// - Returns: What the body returns.
  /// - Throws: What the body throws; ``SQLiteError`` when no connection is open.
  package func use<Result>(_ body: (Database) throws -> Result) throws -> Result {
    try use(closingReplaced: false) { database in
      guard let database else {
        throw SQLiteError(
          extendedCode: SQLITE_MISUSE, message: "the connection to \(path) is closed")
      }
      return try body(database)
    }
  }

  /// Runs a body that cannot fail with the open connection, if there is one.
  ///
  /// - Parameter body: What to do with it.
  package func ifOpen(_ body: (Database) -> Void) {
    _ = try? use(closingReplaced: false) { database in
      if let database { body(database) }
    }
  }

  /// Closes the connection; the next use opens one again. As the process exits, one whose log
  /// stays as it is either way is left for the system to release
  /// (see ``Database/leaveOpenForExit()``).
  ///
  /// - Parameter forExit: Whether the process is exiting.
  package func close(forExit: Bool = false) {
    state.withLock { open in
      if forExit { open?.database.leaveOpenForExit() }
      open = nil
    }
  }
}
