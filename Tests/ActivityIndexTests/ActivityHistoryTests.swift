import ActivityIndex
import Foundation
import SQLite
import StateRestoration
import SystemSupport
import TestSupport
import Testing

/// The activity history as a unit: capacity, a million rows, entries, the earlier JSON file,
/// links refused, one connection.
@Suite struct ActivityHistoryTests {
  static let type = "com.example.product"
}

extension ActivityHistoryTests {
  @Test func theHistoryKeepsItsMostRecentEntriesUpToItsCapacity() throws {
    let directory = TemporaryDirectory()
    let history = ActivityHistory(
      directory: try StateDirectory(creating: directory.path), capacity: 3)
    for (index, name) in ["A", "B", "C", "D", "B"].enumerated() {
      var record = UserActivityRecord(activityType: Self.type)
      record.persistentIdentifier = name
      record.lastActiveDate = Date(timeIntervalSinceReferenceDate: Double(index))
      try history.save(record)
    }
    #expect(try history.records().compactMap(\.persistentIdentifier) == ["B", "D", "C"])
  }
}

extension ActivityHistoryTests {
  /// A history at its capacity of a million: saving one drops the oldest; finding, listing and
  /// deleting by identifier each touch a few rows.
  @Test func aMillionSavedActivities() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let history = ActivityHistory(directory: state)
    #expect(history.capacity == 1_000_000)
    var first = UserActivityRecord(activityType: Self.type)
    first.persistentIdentifier = "P0"
    first.lastActiveDate = Date(timeIntervalSinceReferenceDate: 0)
    try history.save(first)
    // 999,999 more, written into the table in one statement, as a million saves leave it.
    var template = first
    template.persistentIdentifier = "@ID@"
    template.lastActiveDate = Date(timeIntervalSinceReferenceDate: 12_345)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let text = String(decoding: try encoder.encode(template), as: UTF8.self)
    #expect(text.components(separatedBy: "12345").count == 2, "\(text)")
    do {
      let database = try Database(path: state.path(of: "activities.sqlite"), mode: .readWrite)
      try database.execute(
        """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 999999)
        INSERT INTO activities(history_key, persistent_identifier, last_active, record)
        SELECT 'P' || i, 'P' || i, i,
          replace(replace('\(text.replacingOccurrences(of: "'", with: "''"))', '@ID@', 'P' || i),
            '12345', i)
        FROM n;
        UPDATE history_info SET value = 1000000 WHERE key = 'count';
        """)
    }
    #expect(try history.count() == 1_000_000)
    var newest = first
    newest.persistentIdentifier = "new"
    newest.lastActiveDate = Date(timeIntervalSinceReferenceDate: 2_000_000)
    try history.save(newest)
    #expect(try history.count() == 1_000_000)
    #expect(try history.record(historyKey: "P0") == nil)
    #expect(
      try history.record(historyKey: "P500000")?.lastActiveDate
        == Date(timeIntervalSinceReferenceDate: 500_000))
    #expect(try history.records(limit: 2).compactMap(\.persistentIdentifier) == ["new", "P999999"])
    try history.delete(persistentIdentifiers: ["P999999", "P1"])
    #expect(try history.count() == 999_998)
    #expect(try history.record(historyKey: "P1") == nil)
    #expect(try history.records(limit: 2).compactMap(\.persistentIdentifier) == ["new", "P999998"])
  }

  /// The search index, read by SQLite from the stored records, says what decoding them says:
  /// titles and keywords that need escaping, eligible or not, expiring or not.
  @Test func theSearchIndexIsWhatTheRecordsSay() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let history = ActivityHistory(directory: state)
    for index in 0..<60 {
      var record = UserActivityRecord(activityType: index % 7 == 0 ? "other.type" : Self.type)
      record.title = "Show \"№\(index)\" \\ 樱桃\u{1F}"
      record.keywords = index % 2 == 0 ? ["fruit \"\(index)\"", "Ünïcode"] : []
      record.isEligibleForSearch = index % 3 != 0
      if index % 3 != 1 { record.persistentIdentifier = "P\(index)" }
      if index % 2 == 0 { record.targetContentIdentifier = UUID().uuidString }
      record.lastActiveDate = Date(timeIntervalSinceReferenceDate: 1e8 + Double(index) / 7)
      if index % 4 == 0 {
        record.expirationDate = Date(timeIntervalSinceReferenceDate: 3.25e8 / Double(index + 1))
      }
      try history.save(record)
    }
    let now = Date(timeIntervalSinceReferenceDate: 1e7)
    func expected(_ matching: (UserActivityRecord) -> Bool) throws -> Set<String> {
      Set(
        try history.records().filter {
          $0.isEligibleForSearch && !$0.isExpired(at: now) && matching($0)
        }.map(\.historyKey))
    }
    func found(_ query: String) throws -> Set<String> {
      Set(try history.search(query, limit: 100, at: now).map(\.activity.historyKey))
    }
    #expect(try found("樱桃") == expected { _ in true })
    #expect(try !found("樱桃").isEmpty)
    #expect(try found("unicode") == expected { !$0.keywords.isEmpty })
    #expect(try found("\"№12\"") == expected { $0.title?.contains("№12\"") == true })
  }

  @Test func importedRecordsKeepTheNewerOfEachKey() throws {
    let directory = TemporaryDirectory()
    let history = ActivityHistory(directory: try StateDirectory(creating: directory.path))
    var saved = UserActivityRecord(activityType: Self.type)
    saved.persistentIdentifier = "B"
    saved.title = "newer in the database"
    saved.lastActiveDate = Date(timeIntervalSinceReferenceDate: 50)
    try history.save(saved)
    let imported = ["A": 10.0, "B": 20.0, "C": 30.0].map { name, time in
      var record = UserActivityRecord(activityType: Self.type)
      record.persistentIdentifier = name
      record.title = "imported"
      record.lastActiveDate = Date(timeIntervalSinceReferenceDate: time)
      return record
    }
    try history.importRecords(imported)
    #expect(try history.count() == 3)
    #expect(try history.records().compactMap(\.persistentIdentifier) == ["B", "C", "A"])
    #expect(try history.record(historyKey: "B")?.title == "newer in the database")
    #expect(try history.record(historyKey: "A")?.title == "imported")
  }

  @Test func aSymlinkedHistoryIsRefusedAndItsTargetUntouched() throws {
    let directory = TemporaryDirectory()
    let victim = directory.path + "/victim"
    try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
    try FileManager.default.createSymbolicLink(
      atPath: directory.path + "/activities.sqlite", withDestinationPath: victim)
    let history = ActivityHistory(directory: try StateDirectory(creating: directory.path))
    #expect(throws: StateRestorationError.self) { try history.count() }
    var record = UserActivityRecord(activityType: Self.type)
    record.persistentIdentifier = "A"
    #expect(throws: StateRestorationError.self) { try history.save(record) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("precious".utf8))
  }
}

extension ActivityHistoryTests {
  /// A history keeps one connection from call to call, and follows its path: a file another
  /// process moved aside and replaced is opened again, and `close()` lets it go.
  @Test func theHistoryKeepsOneConnectionToTheFileAtItsPath() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let file = state.path(of: "activities.sqlite")
    let history = ActivityHistory(directory: state)
    try history.save(Self.record("A", at: 1))
    try history.save(Self.record("B", at: 2))
    #expect(try history.count() == 2)
    #expect(openDescriptors(of: file) == 1)

    let other = ActivityHistory(directory: state)
    try other.setAside()
    try other.save(Self.record("C", at: 3))
    #expect(try history.records().compactMap(\.persistentIdentifier) == ["C"])
    try history.save(Self.record("D", at: 4))
    #expect(try other.records().compactMap(\.persistentIdentifier) == ["D", "C"])

    history.close()
    other.close()
    #expect(openDescriptors(of: file) == 0)
    // The log is kept for the next connection, which reads what it holds.
    #expect(FileManager.default.fileExists(atPath: file + "-wal"))
    #expect(try ActivityHistory(directory: state).count() == 2)
  }

  /// A process that reads the history and then saves to it (a launch, then a command) opens
  /// the file once.
  @Test func readingThenSavingOpensTheFileOnce() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    try ActivityHistory(directory: state).save(Self.record("A", at: 1))
    let history = ActivityHistory(directory: state)
    #expect(try history.count() == 1)
    try history.save(Self.record("B", at: 2))
    #expect(try history.count() == 2)
    #expect(history.connectionsOpened == 1)
  }

  /// Opened ahead of its first use (a launch waiting on a server), a history of this version
  /// keeps that connection; nothing is created, migrated or opened for a file that is missing,
  /// of an earlier version or not a history, which its first use then finds as it was.
  @Test func aHistoryOpenedInAdvanceIsOpenedOnlyAsItIs() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let file = state.path(of: "activities.sqlite")
    let missing = ActivityHistory(directory: state)
    missing.openInAdvance()
    #expect(missing.connectionsOpened == 0)
    #expect(!FileManager.default.fileExists(atPath: file))

    try ActivityHistory(directory: state).save(Self.record("A", at: 1))
    let current = ActivityHistory(directory: state)
    current.openInAdvance()
    #expect(current.connectionsOpened == 1)
    #expect(try current.count() == 1)
    try current.save(Self.record("B", at: 2))
    #expect(current.connectionsOpened == 1)
    current.close()

    // A history of the first version.
    let first = TemporaryDirectory()
    let firstState = try StateDirectory(creating: first.path)
    let firstFile = firstState.path(of: "activities.sqlite")
    try ActivitySearchTests.makeFirstVersion(
      try Database(path: firstFile, mode: .create), count: 0)
    let earlier = ActivityHistory(directory: firstState)
    earlier.openInAdvance()
    #expect(earlier.connectionsOpened == 0)
    #expect(try Database(path: firstFile, mode: .readOnly).integer("PRAGMA user_version") == 1)
    // Its first use brings it to this version, as without the connection ahead.
    #expect(try earlier.count() == 0)
    #expect(
      try Database(path: firstFile, mode: .readOnly).integer("PRAGMA user_version")
        == ActivityHistory.schemaVersion)
    earlier.close()

    let other = state.path(of: "other.sqlite")
    try Data("not a database, but long enough to have a header".utf8).write(
      to: URL(fileURLWithPath: other))
    let before = try Data(contentsOf: URL(fileURLWithPath: other))
    let notAHistory = ActivityHistory(directory: state, path: "other.sqlite")
    notAHistory.openInAdvance()
    #expect(notAHistory.connectionsOpened == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before)
    #expect(throws: (any Error).self) { try notAHistory.count() }
  }

  /// Another program's database where the history belongs, with commits in its log: opened
  /// for writing, it is still never written — neither the file nor its log — and set aside
  /// with its log. A log that opening it created, empty, is not set aside as if it were data.
  @Test func anotherDatabaseIsNeverWrittenAndItsOwnLogAloneIsSetAside() throws {
    for withCommitsInLog in [true, false] {
      let directory = TemporaryDirectory()
      let state = try StateDirectory(creating: directory.path)
      let file = state.path(of: "activities.sqlite")
      do {
        let other = try Database(path: file, mode: .create)
        try other.enableWriteAheadLog()
        try other.execute("CREATE TABLE notes(text); INSERT INTO notes VALUES ('kept')")
        other.keepWriteAheadLog()
        if withCommitsInLog { other.checkpointOnClose(false) }
      }
      if !withCommitsInLog { unlink(file + "-wal") }
      let before = (
        FileManager.default.contents(atPath: file),
        FileManager.default.contents(atPath: file + "-wal")
      )
      let history = ActivityHistory(directory: state)
      #expect(throws: StateRestorationError.self) { try history.count() }
      history.close()
      #expect(FileManager.default.contents(atPath: file) == before.0)
      if withCommitsInLog {
        #expect(FileManager.default.contents(atPath: file + "-wal") == before.1)
      }
      _ = try history.setAside()
      let kept = try FileManager.default.contentsOfDirectory(
        atPath: state.path(of: StateDirectory.quarantineFolder))
      #expect(kept.count == (withCommitsInLog ? 2 : 1), "\(kept)")
      #expect(!FileManager.default.fileExists(atPath: file + "-wal"))
    }
  }

  private static func record(_ name: String, at time: Double) -> UserActivityRecord {
    var record = UserActivityRecord(activityType: type)
    record.persistentIdentifier = name
    record.lastActiveDate = Date(timeIntervalSinceReferenceDate: time)
    return record
  }
}

extension ActivityHistoryTests {
  /// Saving an activity again changes its entry in place: one entry, the newest record and
  /// date first in the list; and an entry whose key another record takes as its persistent
  /// identifier is found and deleted by that identifier.
  @Test func savingAgainUpdatesTheEntryOfItsKey() throws {
    let directory = TemporaryDirectory()
    let history = ActivityHistory(directory: try StateDirectory(creating: directory.path))
    var shown = UserActivityRecord(activityType: Self.type)
    shown.persistentIdentifier = "P1"
    shown.title = "Show Cherries"
    shown.lastActiveDate = Date(timeIntervalSinceReferenceDate: 10)
    try history.save(shown)
    var other = UserActivityRecord(activityType: Self.type)
    other.persistentIdentifier = "P2"
    other.lastActiveDate = Date(timeIntervalSinceReferenceDate: 20)
    try history.save(other)
    shown.title = "Show Cherry Blossom"
    shown.lastActiveDate = Date(timeIntervalSinceReferenceDate: 30)
    try history.save(shown)
    #expect(try history.count() == 2)
    #expect(try history.records().map(\.title) == ["Show Cherry Blossom", nil])
    #expect(try history.lastKnownDate(historyKey: "P1") == shown.lastActiveDate)

    var untitled = UserActivityRecord(activityType: Self.type)
    untitled.title = "Untitled"
    untitled.lastActiveDate = Date(timeIntervalSinceReferenceDate: 40)
    try history.save(untitled)
    var identified = untitled
    identified.persistentIdentifier = untitled.historyKey
    identified.lastActiveDate = Date(timeIntervalSinceReferenceDate: 50)
    try history.save(identified)
    #expect(try history.count() == 3)
    try history.delete(persistentIdentifiers: [untitled.historyKey])
    #expect(try history.count() == 2)
    #expect(try history.records().compactMap(\.persistentIdentifier) == ["P1", "P2"])
  }
}

extension ActivityHistoryTests {
  /// Emptying a large log waits for no reader: a save while another connection reads (another
  /// process building the search index, say) returns at once, and the log is emptied by a
  /// later save.
  @Test func aSaveDoesNotWaitForAReaderToEmptyTheLog() throws {
    let directory = TemporaryDirectory()
    let history = ActivityHistory(directory: try StateDirectory(creating: directory.path))
    func record(_ number: Int) -> UserActivityRecord {
      var record = UserActivityRecord(activityType: Self.type)
      record.persistentIdentifier = "P\(number)"
      record.title = String(repeating: "x", count: 2_000)
      record.lastActiveDate = Date(timeIntervalSinceReferenceDate: Double(number))
      return record
    }
    try history.save(record(0))
    let reader = try Database(path: directory.path + "/activities.sqlite", mode: .readOnly)
    let log = directory.path + "/activities.sqlite-wal"
    func logSize() -> Int {
      ((try? FileManager.default.attributesOfItem(atPath: log))?[.size] as? Int) ?? 0
    }
    try reader.readTransaction {
      _ = try reader.integer("SELECT count(*) FROM activities")
      var number = 1
      while logSize() <= 1 << 20 {
        try history.importRecords((number..<number + 100).map(record))
        number += 100
      }
      let started = ContinuousClock.now
      try history.save(record(number))
      #expect(ContinuousClock.now - started < .seconds(5), "the save waited for the reader")
    }
    try history.save(record(0))
    #expect(logSize() < 1 << 20)
  }
}
