import CatalogCore
import LineEditing
import StateRestoration
import SystemSupport

/// `history`: the REPL's lines, oldest first, shared by every `catalog` process.
package struct HistoryFile: VersionedFormat, Hashable {
  package static let currentFormatVersion = 1
  package var formatVersion = currentFormatVersion
  /// The lines, oldest first.
  package var lines: [String]

  package static let path = "history"
  /// The most lines kept.
  package static let capacity = 1000

  package init(lines: [String]) {
    self.lines = lines
  }

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
    ((try? directory.load(HistoryFile.self, from: path))??.lines) ?? []
  }

  /// Adds a line under a lock, merging what other processes added meanwhile, and writes the
  /// file durably. A file that cannot be read is left alone.
  ///
  /// - Parameters:
  ///   - line: The line typed.
  ///   - directory: The state directory.
  /// - Returns: The history after the change, oldest first.
  /// - Throws: A `StateRestorationError` when the file cannot be read or written.
  @discardableResult
  package static func add(_ line: String, in directory: StateDirectory) throws -> [String] {
    let lock = try directory.lockWaiting("locks/history.lock")
    defer { withExtendedLifetime(lock) {} }
    let current = try directory.load(HistoryFile.self, from: path)?.lines ?? []
    let updated = adding(line, to: current)
    if updated != current || !directory.contains(path) {
      try directory.save(HistoryFile(lines: updated), to: path)
    }
    return updated
  }
}
