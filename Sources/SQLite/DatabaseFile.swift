#if canImport(Glibc)
  import Glibc
#endif

/// What is wrong with a file that should hold a SQLite database, found before SQLite opens
/// it: SQLite would take a missing first page from a write-ahead log left beside a file that
/// is not a database, and never notice.
package enum DatabaseFileProblem: Sendable, Hashable, CustomStringConvertible {
  /// The file cannot be looked at: the system's reason.
  case unreadable(String)
  /// A symbolic link stands at the path; it is never followed.
  case symbolicLink
  /// A directory, a FIFO or a device stands at the path.
  case notRegularFile
  /// The file is shorter than the database its header describes.
  case truncated(bytes: Int, needed: Int)
  /// The file does not start with SQLite's header.
  case notSQLite

  package var description: String {
    switch self {
    case .unreadable(let reason): reason
    case .symbolicLink: "it is a symbolic link"
    case .notRegularFile: "it is not a regular file"
    case .truncated(let bytes, let needed) where needed == DatabaseFile.headerSize:
      "it is truncated (\(bytes) bytes; a database has at least \(needed))"
    case .truncated(let bytes, let needed): "it is truncated (\(bytes) bytes of \(needed))"
    case .notSQLite: "it is not a SQLite database"
    }
  }
}

/// Checks made on a database file before SQLite opens it, so that a file that is not a
/// database, or was cut short, is recognized as damaged and never written to. Every database
/// of the package is opened through them.
package enum DatabaseFile {
  /// The size of SQLite's file header.
  package static let headerSize = 100

  /// Checks that a path is a regular file holding a whole SQLite database: the header's magic,
  /// and a size that holds every page the header counts.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - beingWritten: Whether other processes may be writing the file in place, as they do a
  ///     database they create and share at its path: an empty file (SQLite creating it) then
  ///     passes, and a size short of the pages the header counts is not taken for damage, as it
  ///     is for a file put in place whole.
  /// - Throws: A ``SQLiteError`` whose ``SQLiteError/fileProblem`` says what is wrong.
  package static func check(_ path: String, beingWritten: Bool = false) throws(SQLiteError) {
    var status = stat()
    guard lstat(path, &status) == 0 else {
      throw SQLiteError(fileProblem: .unreadable(String(cString: strerror(errno))))
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFLNK: throw SQLiteError(fileProblem: .symbolicLink)
    default: throw SQLiteError(fileProblem: .notRegularFile)
    }
    if beingWritten && status.st_size == 0 { return }
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw SQLiteError(fileProblem: .unreadable(String(cString: strerror(errno))))
    }
    defer { close(descriptor) }
    var header = [UInt8](repeating: 0, count: headerSize)
    let count = read(descriptor, &header, headerSize)
    guard count == headerSize else {
      throw SQLiteError(fileProblem: .truncated(bytes: max(0, count), needed: headerSize))
    }
    guard header.starts(with: magic) else { throw SQLiteError(fileProblem: .notSQLite) }
    func bigEndian(_ offset: Int, _ width: Int) -> Int {
      header[offset..<offset + width].reduce(0) { $0 << 8 | Int($1) }
    }
    let rawPageSize = bigEndian(16, 2)
    let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
    let pages = bigEndian(28, 4)
    // The page count is valid when the file's change counter matches "version valid for". A
    // file as long as it says is whole: the pages commits add since are in the log.
    let (needed, overflow) = pages.multipliedReportingOverflow(by: pageSize)
    guard !beingWritten, pageSize >= 512, bigEndian(24, 4) == bigEndian(92, 4), pages > 0,
      overflow || Int(status.st_size) < needed
    else { return }
    switch committedLog(of: path, pageSize: pageSize) {
    case .unknown:
      // A log too long to read here, or not of this file: SQLite judges.
      return
    case .pages(let logged, let databasePages):
      // A checkpoint killed halfway writes the first page, with the new count, before the pages
      // that make the file that long, which are still in the log: the pages past the file's end
      // must be there.
      let filePages = Int(status.st_size) / pageSize
      guard databasePages > filePages else { return }
      let missing =
        databasePages - filePages > logged.count
        || (filePages + 1...databasePages).contains { !logged.contains($0) }
      if missing {
        throw SQLiteError(
          fileProblem: .truncated(bytes: Int(status.st_size), needed: databasePages * pageSize))
      }
    case nil:
      throw SQLiteError(
        fileProblem: .truncated(bytes: Int(status.st_size), needed: overflow ? Int.max : needed))
    }
  }

  /// What a database's write-ahead log holds, for the file check.
  private enum LogContents {
    /// Too long to read for a check, or not a log of pages of this size.
    case unknown
    /// The pages its committed frames hold, and the database's length in pages after the last
    /// commit.
    case pages(Set<Int>, databasePages: Int)
  }

  /// The most frames the check reads: 256 MiB of log with pages of 4 KiB.
  private static let checkedFrames = 65_536

  /// The committed contents of the write-ahead log beside a database (`PATH-wal`), read from
  /// its frames' headers (page number, length after a commit, salts); nil when it has no
  /// committed frame (missing, empty, or only what an interrupted transaction wrote).
  private static func committedLog(of path: String, pageSize: Int) -> LogContents? {
    let descriptor = open(path + "-wal", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    func word(_ bytes: [UInt8], _ offset: Int) -> Int {
      bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }
    var header = [UInt8](repeating: 0, count: 32)
    guard pread(descriptor, &header, 32, 0) == 32 else { return nil }
    guard word(header, 0) & ~1 == 0x377F_0682 else { return nil }
    guard word(header, 8) == pageSize else { return .unknown }
    var pending: [Int] = []
    var committed = Set<Int>()
    var databasePages: Int?
    var frame = [UInt8](repeating: 0, count: 24)
    for index in 0... {
      guard index < checkedFrames else { return .unknown }
      let offset = off_t(32 + index * (24 + pageSize))
      guard pread(descriptor, &frame, 24, offset) == 24,
        frame[8..<16].elementsEqual(header[16..<24])
      else { break }
      pending.append(word(frame, 0))
      let length = word(frame, 4)
      if length > 0 {
        committed.formUnion(pending)
        pending.removeAll()
        databasePages = length
      }
    }
    return databasePages.map { .pages(committed, databasePages: $0) }
  }

  /// Whether a symbolic link stands at a path.
  ///
  /// - Parameter path: The path.
  /// - Returns: true for a link, even one that points nowhere.
  package static func isSymbolicLink(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
  }

  /// Flushes a file to the disk.
  ///
  /// - Parameter path: The file.
  /// - Throws: The system's reason when it cannot be opened or flushed.
  package static func synchronize(_ path: String) throws(SQLiteError) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw SQLiteError(fileProblem: .unreadable(String(cString: strerror(errno))))
    }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else {
      throw SQLiteError(fileProblem: .unreadable(String(cString: strerror(errno))))
    }
  }

  private static let magic = Array("SQLite format 3\0".utf8)
}
