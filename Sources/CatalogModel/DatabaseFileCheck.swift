import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Checks made on a database file before SQLite opens it, so that a file that is not a
/// database, or was cut short, is recognized as damaged and never written to.
enum DatabaseFileCheck {
  /// Checks that a path is a regular file holding a whole SQLite database: the header's magic,
  /// and a size that holds every page the header counts.
  ///
  /// - Parameter path: The file.
  /// - Throws: ``CatalogDatabaseError/damaged(_:)`` saying what is wrong.
  static func check(_ path: String) throws {
    var status = stat()
    guard lstat(path, &status) == 0 else {
      throw CatalogDatabaseError.damaged(String(cString: strerror(errno)))
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw CatalogDatabaseError.damaged(
        status.st_mode & S_IFMT == S_IFLNK
          ? "it is a symbolic link" : "it is not a regular file")
    }
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw CatalogDatabaseError.damaged(String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    var header = [UInt8](repeating: 0, count: 100)
    let count = read(descriptor, &header, 100)
    guard count == 100 else {
      throw CatalogDatabaseError.damaged(
        "it is truncated (\(max(0, count)) bytes; a database has at least 100)")
    }
    guard header.starts(with: Array("SQLite format 3\0".utf8)) else {
      throw CatalogDatabaseError.damaged("it is not a SQLite database")
    }
    func bigEndian(_ offset: Int, _ width: Int) -> Int {
      header[offset..<offset + width].reduce(0) { $0 << 8 | Int($1) }
    }
    let rawPageSize = bigEndian(16, 2)
    let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
    let pages = bigEndian(28, 4)
    // The page count is valid when the file's change counter matches "version valid for" — and
    // only for the file alone: a checkpoint killed halfway has written the first page, with the
    // new count, before the pages that make the file that long, which are still in the
    // write-ahead log. SQLite reads such a database whole; with frames in the log, it judges.
    var log = stat()
    let logHasFrames = lstat(path + "-wal", &log) == 0 && log.st_size > 32
    let (needed, overflow) = pages.multipliedReportingOverflow(by: pageSize)
    if bigEndian(24, 4) == bigEndian(92, 4), pages > 0, pageSize >= 512, !logHasFrames,
      overflow || Int(status.st_size) < needed
    {
      throw CatalogDatabaseError.damaged(
        "it is truncated (\(status.st_size) bytes of \(needed))")
    }
  }

  /// Flushes a file to the disk.
  static func synchronize(_ path: String) throws {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw CatalogDatabaseError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else {
      throw CatalogDatabaseError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
    }
  }
}
