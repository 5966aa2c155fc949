import ActivityIndex
import Foundation
import SQLite
import SearchIndex
import StateRestoration
import SystemSupport
import TestSupport
import Testing

/// The history searched as Core Spotlight searches an app's activities.
@Suite struct ActivitySearchTests {
  static let type = "com.example.todo"

  func history(_ directory: TemporaryDirectory) throws -> ActivityHistory {
    ActivityHistory(directory: try StateDirectory(creating: directory.path))
  }

  func save(
    _ title: String, keywords: Set<String> = [], eligible: Bool = true, at seconds: Double,
    expires: Date? = nil, in history: ActivityHistory
  ) throws {
    var record = UserActivityRecord(activityType: Self.type)
    record.title = title
    record.keywords = keywords
    record.isEligibleForSearch = eligible
    record.persistentIdentifier = title
    record.lastActiveDate = Date(timeIntervalSinceReferenceDate: seconds)
    record.expirationDate = expires
    try history.save(record)
  }

  @Test func findsByPrefixPhraseCJKAndOneTypoOnlyWhatIsEligible() throws {
    let directory = TemporaryDirectory()
    let history = try history(directory)
    try save("Buy cherries", keywords: ["樱桃", "fruit"], at: 1, in: history)
    try save("Call the bank", keywords: ["money"], at: 2, in: history)
    try save("Secret cherry plan", eligible: false, at: 3, in: history)
    func titles(_ query: String) throws -> [String?] {
      try history.search(query).map(\.activity.title)
    }
    #expect(try titles("cher") == ["Buy cherries"])
    #expect(try titles("\"the bank\"") == ["Call the bank"])
    #expect(try titles("\"bank the\"") == [])
    #expect(try titles("樱桃") == ["Buy cherries"])
    #expect(try titles("chreries") == ["Buy cherries"])
    #expect(try titles("monye") == ["Call the bank"])
    #expect(try titles("plan") == [])
  }

  @Test func neverReturnsAnExpiredActivity() throws {
    let directory = TemporaryDirectory()
    let history = try history(directory)
    let now = Date(timeIntervalSinceReferenceDate: 1_000)
    try save("Milk list", at: 1, expires: now.addingTimeInterval(10), in: history)
    try save("Milk run", at: 2, in: history)
    #expect(try history.search("milk", at: now).count == 2)
    // The index built before the expiry is not used after it.
    let later = try history.search("milk", at: now.addingTimeInterval(11))
    #expect(later.map(\.activity.title) == ["Milk run"])
  }

  @Test func ranksBetterMatchesFirstThenTheMostRecent() throws {
    let directory = TemporaryDirectory()
    let history = try history(directory)
    try save("Tea shop", at: 1, in: history)
    try save("Shopping for tea", at: 2, in: history)
    try save("Tea", keywords: ["shop"], at: 3, in: history)
    let results = try history.search("tea shop")
    #expect(results.first?.activity.title == "Tea shop")
    // A new activity is found at once: the index follows the history's version.
    try save("Tea shop two", at: 4, in: history)
    #expect(try history.search("two").map(\.activity.title) == ["Tea shop two"])
  }

  @Test func aQueryItCannotReadThrows() throws {
    let directory = TemporaryDirectory()
    let history = try history(directory)
    #expect(throws: (any Error).self) { try history.search("  ") }
    #expect(throws: (any Error).self) { try history.search(String(repeating: "x ", count: 5_000)) }
    #expect(try history.search("anything").isEmpty)
  }
}

/// The index kept in a file beside the history: built once, the changes since laid over it,
/// built again when it does not say what the history holds.
extension ActivitySearchTests {
  func indexPath(_ directory: TemporaryDirectory) -> String {
    directory.path + "/activities.searchindex"
  }

  @Test func theIndexFileIsBuiltOnceAndFollowsLaterChanges() throws {
    let directory = TemporaryDirectory()
    try save("Buy cherries", at: 1, in: try history(directory))
    try save("Call the bank", at: 2, in: try history(directory))
    #expect(try history(directory).search("cher").map(\.activity.title) == ["Buy cherries"])
    let built = try FileManager.default.attributesOfItem(atPath: indexPath(directory))
    // Each value below opens the history as another process would.
    try save("Buy plums", at: 3, in: try history(directory))
    try save("Call the bank", keywords: ["cherry"], at: 4, in: try history(directory))
    try history(directory).delete(persistentIdentifiers: ["Buy cherries"])
    let searching = try history(directory)
    #expect(try searching.search("cher").map(\.activity.title) == ["Call the bank"])
    #expect(try searching.search("plums").map(\.activity.title) == ["Buy plums"])
    // A change by another process is seen by this one's index.
    try save("Cherry pie", at: 5, in: try history(directory))
    #expect(try searching.search("cher").map(\.activity.title) == ["Cherry pie", "Call the bank"])
    let after = try FileManager.default.attributesOfItem(atPath: indexPath(directory))
    #expect(after[.modificationDate] as? Date == built[.modificationDate] as? Date)
  }

  @Test func theIndexIsBuiltAgainOnceManyChangesWereMadeSince() throws {
    let directory = TemporaryDirectory()
    try save("Buy cherries", at: 1, in: try history(directory))
    #expect(try history(directory).search("cher").count == 1)
    func generation() throws -> UInt64? {
      try SearchIndex(contentsOf: indexPath(directory)).origin?.generation
    }
    let built = try generation()
    try save("Cherry jam", at: 2, in: try history(directory))
    #expect(try history(directory).search("cher").count == 2)
    #expect(try generation() == built)
    // More changes than a small history lays over its index: built again.
    try history(directory).importRecords(
      (0..<1_000).map { number in
        var record = UserActivityRecord(activityType: Self.type)
        record.title = "Plum \(number)"
        record.isEligibleForSearch = true
        record.lastActiveDate = Date(timeIntervalSinceReferenceDate: 3 + Double(number))
        return record
      })
    #expect(try history(directory).search("cher").count == 2)
    #expect(try history(directory).search("plum", limit: 2000).count == 1_000)
    #expect(try generation() ?? 0 > built ?? .max)
  }

  /// Equal matches come most recent first, however many there are, whether they were saved
  /// before the index was built or after.
  @Test func equalMatchesComeMostRecentFirstAtAnyLimit() throws {
    let directory = TemporaryDirectory()
    func records(_ prefix: String, from start: Double) -> [UserActivityRecord] {
      (0..<1_000).map { number in
        var record = UserActivityRecord(activityType: Self.type)
        record.title = "Recipe \(prefix)-\(number)"
        record.isEligibleForSearch = true
        record.lastActiveDate = Date(timeIntervalSinceReferenceDate: start + Double(number))
        return record
      }
    }
    try history(directory).importRecords(records("QA", from: 0) + records("QB", from: 1_000))
    func titles(_ query: String, limit: Int) throws -> [String?] {
      try history(directory).search(query, limit: limit).map(\.activity.title)
    }
    #expect(try titles("qa", limit: 3) == ["Recipe QA-999", "Recipe QA-998", "Recipe QA-997"])
    #expect(try titles("\"recipe qa\"", limit: 1) == ["Recipe QA-999"])
    #expect(try titles("recipe", limit: 2) == ["Recipe QB-999", "Recipe QB-998"])
    // Saved again after the build: first among its equals.
    try save("Recipe QA-5", at: 5_000, in: try history(directory))
    try save("Recipe QA-7", at: 4_000, in: try history(directory))
    #expect(try titles("qa", limit: 3) == ["Recipe QA-5", "Recipe QA-7", "Recipe QA-999"])
  }

  @Test func anIndexThatNoLongerSaysWhatTheHistoryHoldsIsBuiltAgain() throws {
    let directory = TemporaryDirectory()
    for (number, title) in ["Apples", "Bananas", "Cherries"].enumerated() {
      try save(title, at: Double(number), in: try history(directory))
    }
    #expect(try history(directory).search("bananas").count == 1)
    // The rows renumbered behind the history's back, as `VACUUM` may.
    let database = try Database(path: directory.path + "/activities.sqlite", mode: .readWrite)
    try database.execute(
      "UPDATE activities SET rowid = -rowid; UPDATE activities SET rowid = 4 + rowid")
    #expect(try history(directory).search("bananas").map(\.activity.title) == ["Bananas"])
    #expect(try history(directory).search("apples").map(\.activity.title) == ["Apples"])
    // A damaged file is built again, not reported: it holds nothing of its own.
    try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: indexPath(directory)))
    #expect(try history(directory).search("cherries").map(\.activity.title) == ["Cherries"])
  }

  /// A build killed before its renames leaves temporary files; the next build removes them,
  /// and leaves a live process's alone.
  @Test func aBuildRemovesWhatAKilledBuildLeft() throws {
    let directory = TemporaryDirectory()
    try save("Buy cherries", at: 1, in: try history(directory))
    let abandoned = [
      directory.path + "/.activities.searchrows.999999999.7.tmp",
      directory.path + "/.activities.searchindex.999999999.8.tmp",
    ]
    let live = directory.path + "/.activities.searchindex.\(getpid()).9.tmp"
    for path in abandoned + [live] {
      #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
    }
    #expect(try history(directory).search("cher").count == 1)
    for path in abandoned { #expect(!FileManager.default.fileExists(atPath: path)) }
    #expect(FileManager.default.fileExists(atPath: live))
  }

  @Test func anActivityThatDoesNotDecodeIsLeftOutAndKept() throws {
    let directory = TemporaryDirectory()
    try save("Buy cherries", at: 1, in: try history(directory))
    try save("Cherry jam", at: 2, in: try history(directory))
    #expect(try history(directory).search("cher").count == 2)
    let database = try Database(path: directory.path + "/activities.sqlite", mode: .readWrite)
    try database.execute(
      "UPDATE activities SET record = '{\"title\": \"Cherry jam\"}' WHERE persistent_identifier = 'Cherry jam'"
    )
    #expect(try history(directory).search("cher").map(\.activity.title) == ["Buy cherries"])
    #expect(throws: StateRestorationError.self) { try history(directory).records() }
    #expect(
      try database.integer("SELECT count(*) FROM activities WHERE record LIKE '%Cherry jam%'") == 1)
  }

  @Test func aHistoryOfTheFirstVersionIsSearchedAndUpgraded() throws {
    let directory = TemporaryDirectory()
    let file = directory.path + "/activities.sqlite"
    do {
      let database = try Database(path: file, mode: .create)
      var record = UserActivityRecord(activityType: Self.type)
      record.title = "Old cherries"
      record.persistentIdentifier = "old"
      record.isEligibleForSearch = true
      record.lastActiveDate = Date(timeIntervalSinceReferenceDate: 1)
      let text = String(decoding: record.json.serialized(sortingKeys: true), as: UTF8.self)
      try Self.makeFirstVersion(database, count: 1)
      try database.run(
        "INSERT INTO activities VALUES (?, 'old', 1, ?)", .text(record.historyKey), .text(text))
    }
    let history = try history(directory)
    #expect(try history.search("cherries").map(\.activity.title) == ["Old cherries"])
    try save("New cherries", at: 2, in: history)
    #expect(
      try history.search("cherries").map(\.activity.title) == ["New cherries", "Old cherries"])
    let database = try Database(path: file, mode: .readOnly)
    #expect(try database.integer("PRAGMA user_version") == ActivityHistory.schemaVersion)
  }
}

extension ActivitySearchTests {
  /// Gives a new database the tables of the history's first version, holding `count` entries.
  static func makeFirstVersion(_ database: Database, count: Int) throws {
    try database.execute(
      """
      CREATE TABLE activities(history_key TEXT PRIMARY KEY NOT NULL,
        persistent_identifier TEXT, last_active REAL NOT NULL, record TEXT NOT NULL);
      CREATE TABLE history_info(key TEXT PRIMARY KEY NOT NULL, value NOT NULL) WITHOUT ROWID;
      CREATE TABLE forgotten(history_key TEXT PRIMARY KEY NOT NULL, deleted REAL NOT NULL)
        WITHOUT ROWID;
      INSERT INTO history_info VALUES ('count', \(count));
      PRAGMA user_version = 1;
      """)
  }
}
