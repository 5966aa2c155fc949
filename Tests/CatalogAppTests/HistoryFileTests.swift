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
