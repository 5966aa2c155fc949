import CatalogModel
import Foundation
import LineEditing
import StateRestoration
import SystemSupport
import TestSupport
import Testing

@testable import CatalogApp
@testable import CatalogCore

@Suite struct HistoryFileTests {
  @Test func addsWithoutBlanksOrRepeatsAndKeepsAThousand() {
    var lines: [String] = []
    for line in ["list", "list", "  ", "select cher  ", "list"] {
      lines = HistoryFile.adding(line, to: lines)
    }
    #expect(lines == ["list", "select cher", "list"])
    for number in 0..<1500 { lines = HistoryFile.adding("select \(number)", to: lines) }
    #expect(lines.count == 1000)
    #expect(lines.first == "select 500" && lines.last == "select 1499")
  }
}

extension HistoryFileTests {
  /// Two writers at once (two processes' worth of locks: flock locks each open file) lose no
  /// line.
  @Test func twoWritersLoseNothing() async throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    await withTaskGroup(of: Void.self) { group in
      for writer in 0..<2 {
        group.addTask {
          for number in 0..<40 { _ = try? HistoryFile.add("select \(writer)-\(number)", in: state) }
        }
      }
    }
    let lines = HistoryFile.lines(in: state)
    #expect(lines.count == 80)
    #expect(Set(lines).count == 80)
  }
}

extension HistoryFileTests {
  /// A line is appended to the file, as shells append theirs; the file is written whole only
  /// when it holds twice the lines kept, or an earlier version's JSON.
  @Test func appendsLinesAndCompactsAtTwiceWhatItKeeps() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let file = state.path(of: HistoryFile.path)
    try Data(#"{"formatVersion": 1, "lines": ["list", "select cher"]}"#.utf8).write(
      to: URL(fileURLWithPath: file))
    #expect(HistoryFile.lines(in: state) == ["list", "select cher"])
    try HistoryFile.add("tab photo", in: state)
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "list\nselect cher\ntab photo\n")
    try HistoryFile.add("tab photo", in: state)
    try HistoryFile.add("back", in: state)
    #expect(
      try String(contentsOfFile: file, encoding: .utf8)
        == "list\nselect cher\ntab photo\nback\n")
    for number in 0..<1996 { try HistoryFile.add("select \(number)", in: state) }
    let grown = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
    #expect(grown.count == 2000)
    try HistoryFile.add("list", in: state)
    let compacted = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
    #expect(compacted.count == HistoryFile.capacity && compacted.last == "list")
    #expect(HistoryFile.lines(in: state).count == HistoryFile.capacity)
  }

  /// A crash while appending may leave part of a line, cut anywhere, even inside a character:
  /// only whole lines are read, and the next line follows them.
  @Test func aLineCutShortByACrashIsLeftOut() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let file = state.path(of: HistoryFile.path)
    try Data("list\nselect 樱".utf8.dropLast()).write(to: URL(fileURLWithPath: file))
    #expect(HistoryFile.lines(in: state) == ["list"])
    #expect(try HistoryFile.add("select cher", in: state) == ["list", "select cher"])
    // Written whole without the part: it does not run into the line appended.
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "list\nselect cher\n")
  }
}
