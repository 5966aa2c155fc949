import CatalogModel
import Foundation
import SQLite

/// What a catalog database and its write-ahead log looked like — device, inode, size and
/// modification time of each — when the whole-file check last passed, or after one of this
/// program's commits since: kept beside the database (`catalog.sqlite-checked`), so that a file
/// only this program has changed since its last check is not checked again, and one that
/// another program changed is checked before anything is written into it.
///
/// The record is a cache, written without a flush: lost or torn, it only makes the next write
/// check the file again.
struct CatalogFileStamp: Equatable, Sendable {
  /// One file's identity and the last change to it.
  struct File: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var seconds: Int64
    var nanoseconds: Int64

    /// Which file it is, changed or not.
    var identity: FileIdentity { FileIdentity(device: device, inode: inode) }
  }

  /// The database file; nil when there is none.
  var database: File?
  /// Its write-ahead log; nil when there is none.
  var log: File?

  /// The record's path for a database.
  static func recordPath(of databasePath: String) -> String { databasePath + "-checked" }

  /// What the database and its log look like now.
  static func current(of databasePath: String) -> CatalogFileStamp {
    CatalogFileStamp(database: file(databasePath), log: file(databasePath + "-wal"))
  }

  private static func file(_ path: String) -> File? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    return File(
      device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
      seconds: Int64(status.st_mtim.tv_sec), nanoseconds: Int64(status.st_mtim.tv_nsec))
  }

  /// The stamp recorded beside a database; nil when there is none, or it cannot be read: a
  /// record whose checksum does not match what it says (cut short, or another's written over
  /// it in part) is not read.
  static func recorded(for databasePath: String) -> CatalogFileStamp? {
    guard let data = FileManager.default.contents(atPath: recordPath(of: databasePath)),
      data.count < 512
    else { return nil }
    let lines = String(decoding: data, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false)
    guard lines.count == 5, lines[0] == header, lines[4].isEmpty,
      lines[3] == checksumLine(of: lines[0] + "\n" + lines[1] + "\n" + lines[2])
    else { return nil }
    func file(_ line: Substring) -> File?? {
      if line == "-" { return .some(nil) }
      let fields = line.split(separator: " ")
      guard fields.count == 5, let device = UInt64(fields[0]), let inode = UInt64(fields[1]),
        let size = Int64(fields[2]), let seconds = Int64(fields[3]),
        let nanoseconds = Int64(fields[4])
      else { return nil }
      return File(
        device: device, inode: inode, size: size, seconds: seconds, nanoseconds: nanoseconds)
    }
    guard let database = file(lines[1]), let log = file(lines[2]) else { return nil }
    return CatalogFileStamp(database: database, log: log)
  }

  private static let header = "catalog file check 2"

  /// The last line of a record: the hash of the lines before it.
  private static func checksumLine(of text: some StringProtocol) -> String {
    "sum " + String(stableHash(text), radix: 16)
  }

  /// Records the stamp beside the database, written over the record in place (the file is not
  /// emptied first, which costs a commit more than the writing) and not flushed: a record cut
  /// short or left longer (a kill, a full disk) or written over in part by another process
  /// does not match its checksum, so the next write checks the file; no temporary file is ever
  /// left.
  func record(for databasePath: String) {
    func line(_ file: File?) -> String {
      file.map { "\($0.device) \($0.inode) \($0.size) \($0.seconds) \($0.nanoseconds)" } ?? "-"
    }
    let body = Self.header + "\n" + line(database) + "\n" + line(log)
    let text = body + "\n" + Self.checksumLine(of: body) + "\n"
    let path = Self.recordPath(of: databasePath)
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else { return }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    let ended = written == bytes.count && ftruncate(descriptor, off_t(bytes.count)) == 0
    close(descriptor)
    if !ended { unlink(path) }
  }

  /// Removes the record: the file must be checked again before it is written.
  static func forget(for databasePath: String) {
    unlink(recordPath(of: databasePath))
  }
}
