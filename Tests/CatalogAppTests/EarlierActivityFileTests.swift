import ActivityIndex
import Foundation
import StateRestoration
import SystemSupport
import TestSupport
import Testing

@testable import CatalogApp

/// The catalog's earlier `activities.json`: read alongside the history, then imported once.
@Suite struct EarlierActivityFileTests {
  static let type = "com.example.apple-samplecode.staterestore.product"

  @Test func anEarlierFileIsReadAlongsideThenImportedOnceAndKept() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let history = ActivityHistory(directory: state)
    var saved = UserActivityRecord(activityType: Self.type)
    saved.persistentIdentifier = "B"
    saved.title = "newer in the database"
    saved.isEligibleForSearch = true
    saved.lastActiveDate = Date(timeIntervalSinceReferenceDate: 50)
    try history.save(saved)
    let earlier = ["A": 10.0, "B": 20.0, "C": 30.0].map { name, time in
      var record = UserActivityRecord(activityType: Self.type)
      record.persistentIdentifier = name
      record.title = "from the file"
      record.isEligibleForSearch = true
      record.lastActiveDate = Date(timeIntervalSinceReferenceDate: time)
      return record
    }.sorted { ($0.lastActiveDate ?? .distantPast) > ($1.lastActiveDate ?? .distantPast) }
    try state.save(EarlierActivityFile(activities: earlier), to: "activities.json")
    // Read alongside before the import, the newer entry of each key winning.
    let merged = try EarlierActivityFile.records(of: history, limit: nil)
    #expect(merged.compactMap(\.persistentIdentifier) == ["B", "C", "A"])
    // A search finds the history's matches, and counts every activity of the file.
    #expect(
      try EarlierActivityFile.entries(of: history, matching: "database", limit: 5, at: Date())
        == ([saved] + earlier).map(ActivityHistory.Entry.init))
    #expect(
      try EarlierActivityFile.records(of: history, limit: 1, offset: 1)
        .compactMap(\.persistentIdentifier) == ["C"])
    #expect(try EarlierActivityFile.importIfPresent(into: history) == 3)
    #expect(try EarlierActivityFile.importIfPresent(into: history) == nil)
    #expect(!state.contains("activities.json"))
    #expect(state.contains("activities.json.imported"))
    #expect(try history.count() == 3)
    #expect(try history.record(historyKey: "B")?.title == "newer in the database")
    #expect(try history.record(historyKey: "A")?.title == "from the file")
  }
}
