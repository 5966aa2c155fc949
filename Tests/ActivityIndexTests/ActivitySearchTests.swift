import ActivityIndex
import Foundation
import SQLite
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
      try database.execute(
        """
        CREATE TABLE activities(history_key TEXT PRIMARY KEY NOT NULL,
          persistent_identifier TEXT, last_active REAL NOT NULL, record TEXT NOT NULL);
        CREATE TABLE history_info(key TEXT PRIMARY KEY NOT NULL, value NOT NULL) WITHOUT ROWID;
        CREATE TABLE forgotten(history_key TEXT PRIMARY KEY NOT NULL, deleted REAL NOT NULL)
          WITHOUT ROWID;
        INSERT INTO history_info VALUES ('count', 1);
        PRAGMA user_version = 1;
        """)
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
