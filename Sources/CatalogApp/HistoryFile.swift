import CatalogCore
import Foundation
import LineEditing
import StateRestoration
import SystemSupport

/// `history`: the REPL's lines, oldest first, shared by every `catalog` process — a line of
/// text each, appended as shells append theirs (one write and one `fdatasync` a command), and
/// written whole, durably, only when it holds twice the lines it keeps, or an earlier version's
/// JSON.
package enum HistoryFile {
  package static let path = "history"
  /// The most lines kept.
  package static let capacity = 1000
  /// The size past which the file is written again with the lines it keeps.
  static let compactionSize = 4 << 20

  /// The lines with one more (without trailing spaces): not after an equal line, nor a blank
  /// one, and at most ``capacity`` of them.
  ///
  /// - Parameters:
  ///   - line: The line typed.
  ///   - lines: The history so far, oldest first.
  /// - Returns: The new history.
  package static func adding(_ line: String, to lines: [String]) -> [String] {
    LineHistoryRule.adding(line, to: lines, capacity: capacity)
  }

  /// Reads the history; a file that cannot be read gives an empty history.
  ///
  /// - Parameter directory: The state directory.
  /// - Returns: The lines, oldest first.
  package static func lines(in directory: StateDirectory) -> [String] {
    ((try? read(in: directory))?.lines).map { Array($0.suffix(capacity)) } ?? []
  }

  /// The file as read: its lines, oldest first, and whether it is written in full next time.
  struct Contents {
    var lines: [String]
    /// An earlier version's JSON, or a file grown past twice what it keeps.
    var needsRewrite: Bool
  }

  /// Reads the file: its lines of text, of which only those ending in a newline (a crash while
  /// appending may leave part of a line), or an earlier version's JSON.
  ///
  /// - Parameter directory: The state directory.
  /// - Returns: The contents; nil when there is no file.
  /// - Throws: A `SystemError` when it cannot be read, is too large or is not UTF-8 text.
  static func read(in directory: StateDirectory) throws -> Contents? {
    let file = directory.path(of: path)
    guard let data = try DurableFile.read(file, limit: StateDirectory.defaultSizeLimit) else {
      return nil
    }
    // An earlier version's JSON object; a text whose first line starts with `{` is read as text.
    if data.first == UInt8(ascii: "{"), let earlier = try? Earlier.decoded(from: data, path: file) {
      return Contents(lines: earlier.lines, needsRewrite: true)
    }
    let whole = data.lastIndex(of: 0x0A).map { data[...$0] } ?? data.prefix(0)
    guard let text = String(validating: whole, as: UTF8.self) else {
      throw SystemError.cannotRead(path: file, reason: "it is not UTF-8 text")
    }
    let lines = text.split(separator: "\n").map(String.init)
    // Part of a line left at the end (a crash or a full disk while appending) would run into
    // the next line appended: the file is written whole without it.
    return Contents(
      lines: lines,
      needsRewrite: lines.count >= 2 * capacity || data.count >= compactionSize
        || whole.count < data.count)
  }

  /// Adds a line under a lock, after what other processes added meanwhile: appended and
  /// flushed, or the file written whole (durably) when it is due. A file that cannot be read
  /// is left alone.
  ///
  /// - Parameters:
  ///   - line: The line typed.
  ///   - directory: The state directory.
  /// - Returns: The history after the change, oldest first.
  /// - Throws: A `SystemError` or `StateRestorationError` when the file cannot be read or
  ///   written.
  @discardableResult
  package static func add(_ line: String, in directory: StateDirectory) throws -> [String] {
    let lock = try directory.lockWaiting("locks/history.lock")
    defer { withExtendedLifetime(lock) {} }
    let contents = try read(in: directory)
    let current = Array((contents?.lines ?? []).suffix(capacity))
    // A line is one line of the file, whatever it holds.
    let updated = adding(
      String(line.map { $0.isNewline ? " " : $0 }), to: current)
    guard updated != current, let added = updated.last else { return current }
    let file = directory.path(of: path)
    if contents?.needsRewrite ?? true {
      try DurableFile.write(Data(updated.map { $0 + "\n" }.joined().utf8), to: file)
    } else {
      try DurableFile.append(Data((added + "\n").utf8), to: file)
    }
    return updated
  }

  /// The history as an earlier version wrote it: JSON, written whole at every line.
  private struct Earlier: VersionedFormat {
    static let currentFormatVersion = 1
    var formatVersion = currentFormatVersion
    var lines: [String]
  }
}
