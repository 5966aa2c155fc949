import ActivityIndex
import CatalogCore
import Foundation
import StateRestoration
import SystemSupport
import TestSupport
import Testing

@testable import CatalogApp

/// When the activity a command makes current reaches the history: while the REPL waits for a
/// line, on a thread of its own; otherwise by whoever waits for it next — the next command, a
/// search, the process leaving — with no thread started only to be waited for.
@Suite struct ActivityHistoryWriterTests {
  static func record(_ name: String, at time: TimeInterval) -> UserActivityRecord {
    var record = UserActivityRecord(activityType: ProductActivity.type)
    record.persistentIdentifier = name
    record.title = name
    record.isEligibleForSearch = true
    record.lastActiveDate = Date(timeIntervalSinceReferenceDate: time)
    return record
  }

  @Test func aWriteWaitsForTheREPLToIdleOrForItsNextReader() throws {
    let directory = TemporaryDirectory()
    let history = ActivityHistory(directory: try StateDirectory(creating: directory.path))
    let writer = ActivityHistoryWriter(history: history)
    writer.makeCurrentInBackground(Self.record("A", at: 10))
    writer.makeCurrentInBackground(Self.record("B", at: 20))
    // Nothing started the writes: a thread would have made them by now.
    Thread.sleep(forTimeInterval: 0.1)
    #expect(try history.count() == 0)
    // The next reader does them, in order, before it reads.
    #expect(writer.settle().isEmpty)
    #expect(try history.count() == 2)
    #expect(try history.records(limit: nil).compactMap(\.persistentIdentifier) == ["B", "A"])

    // A REPL about to wait starts the write, which ends with nobody waiting for it.
    writer.makeCurrentInBackground(Self.record("C", at: 30))
    writer.writeWhileIdle()
    let deadline = Date().addingTimeInterval(10)
    while try history.count() < 3 && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.01)
    }
    #expect(try history.count() == 3)
    #expect(writer.settle(closing: true).isEmpty)
  }
}
