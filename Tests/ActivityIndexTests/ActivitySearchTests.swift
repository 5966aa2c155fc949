import ActivityIndex
import Foundation
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
