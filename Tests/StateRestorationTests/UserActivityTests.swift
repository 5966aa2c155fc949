import Foundation
import SQLite
import StateRestoration
import Synchronization
import TestSupport
import Testing

struct ProductPayload: Codable, Hashable {
  var identifier: UUID
  var name: String
  var year: Int
  var price: Decimal
  var tags: [String]
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
  let now = Mutex(Date(timeIntervalSinceReferenceDate: 800_000_000))
  func advance(by seconds: Double) { now.withLock { $0 += seconds } }
  var read: @Sendable () -> Date { { [self] in now.withLock { $0 } } }
}

@Suite struct UserActivityTests {
  static let type = "com.example.product"
  static let payload = ProductPayload(
    identifier: UUID(uuidString: "FA542E3D-4895-44B6-942F-E112101D5160") ?? UUID(),
    name: "Cherries", year: 2015, price: Decimal(string: "10.99") ?? 0, tags: ["fruit", "red"])

  func makeCenter(_ directory: TemporaryDirectory, clock: TestClock = TestClock()) throws
    -> UserActivityCenter
  {
    UserActivityCenter(
      declaredActivityTypes: [Self.type],
      history: ActivityHistory(directory: try StateDirectory(creating: directory.path)),
      clock: clock.read)
  }

  func productActivity(_ center: UserActivityCenter, name: String = "Cherries") throws
    -> UserActivity
  {
    let activity = UserActivity(activityType: Self.type, center: center)
    activity.title = "Show \(name) product"
    var payload = Self.payload
    payload.name = name
    try activity.setTypedPayload(payload)
    activity.persistentIdentifier = name
    activity.isEligibleForSearch = true
    return activity
  }

  @Test func typedPayloadsRoundTripWithTheirCodingKeysAsUserInfoKeys() throws {
    let activity = UserActivity(activityType: Self.type, center: UserActivityCenter())
    try activity.setTypedPayload(Self.payload)
    #expect(Set(activity.userInfo.keys) == ["identifier", "name", "year", "price", "tags"])
    #expect(activity.userInfo["year"] == .int(2015))
    #expect(activity.userInfo["tags"] == .array([.string("fruit"), .string("red")]))
    #expect(try activity.typedPayload(ProductPayload.self) == Self.payload)
    // Through a saved record too, as continuation delivers it.
    let data = try JSONEncoder().encode(activity.record)
    let record = try JSONDecoder().decode(UserActivityRecord.self, from: data)
    #expect(try record.typedPayload(ProductPayload.self) == Self.payload)
  }

  /// As Apple's `typedPayload(_:)`: an empty user info is an error, even for a payload whose
  /// every field is optional.
  @Test func anEmptyUserInfoIsNotAPayloadOfNils() throws {
    struct Optionals: Codable, Equatable {
      var name: String?
      var year: Int?
    }
    let activity = UserActivity(activityType: Self.type, center: UserActivityCenter())
    #expect(
      throws: UserActivityError.payloadNotDecodable(
        type: "Optionals", reason: "the user info is empty")
    ) {
      _ = try activity.typedPayload(Optionals.self)
    }
    activity.userInfo = ["name": .string("Cherries")]
    #expect(try activity.typedPayload(Optionals.self) == Optionals(name: "Cherries"))
  }

  @Test func typedPayloadErrorsAreTyped() throws {
    let activity = UserActivity(activityType: Self.type, center: UserActivityCenter())
    #expect(
      throws: UserActivityError.payloadNotEncodable(reason: "'Int' does not encode with keys")
    ) {
      try activity.setTypedPayload(42)
    }
    activity.userInfo = ["name": .string("Cherries"), "year": .string("twenty")]
    do {
      _ = try activity.typedPayload(ProductPayload.self)
      Issue.record("decoded a payload with the wrong types")
    } catch {
      guard case .payloadNotDecodable(let type, _) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(type == "ProductPayload")
    }
  }

  @Test func requiredKeysMustBePresentToBecomeCurrent() throws {
    let directory = TemporaryDirectory()
    let activity = try productActivity(try makeCenter(directory))
    activity.requiredUserInfoKeys = ["identifier", "imageName"]
    #expect(throws: UserActivityError.missingRequiredKeys(["imageName"])) {
      try activity.becomeCurrent()
    }
    activity.addUserInfoEntries(from: ["imageName": .string("Cherries")])
    try activity.becomeCurrent()
    #expect(activity.isCurrent)
  }

  @Test func anInvalidatedActivityNeverBecomesCurrentAgain() throws {
    let directory = TemporaryDirectory()
    let center = try makeCenter(directory)
    let activity = try productActivity(center)
    try activity.becomeCurrent()
    activity.invalidate()
    #expect(!activity.isValid)
    #expect(center.currentActivity == nil)
    #expect(throws: UserActivityError.invalidated(activityType: Self.type)) {
      try activity.becomeCurrent()
    }
    #expect(center.currentActivity == nil)
  }

  @Test func becomingCurrentResignsThePreviousAndSavesTheNewestEntryPerKey() throws {
    let directory = TemporaryDirectory()
    let clock = TestClock()
    let center = try makeCenter(directory, clock: clock)
    let cherries = try productActivity(center)
    let mango = try productActivity(center, name: "Mango")
    try cherries.becomeCurrent()
    clock.advance(by: 60)
    try mango.becomeCurrent()
    #expect(!cherries.isCurrent && mango.isCurrent)
    clock.advance(by: 60)
    try cherries.becomeCurrent()
    // A new process reads the same file.
    let history = ActivityHistory(directory: StateDirectory(existing: directory.path))
    let records = try history.records()
    #expect(records.map(\.title) == ["Show Cherries product", "Show Mango product"])
    #expect(records.first?.lastActiveDate == clock.read())
    mango.resignCurrent()
    #expect(cherries.isCurrent)
    cherries.resignCurrent()
    #expect(center.currentActivity == nil)
  }

  @Test func onlyActivitiesEligibleForSearchAreSaved() throws {
    let directory = TemporaryDirectory()
    let center = try makeCenter(directory)
    let activity = try productActivity(center)
    activity.isEligibleForSearch = false
    try activity.becomeCurrent()
    #expect(try center.history?.records().isEmpty == true)
  }

  @Test func needsSaveAsksForFreshUserInfoFirst() throws {
    let directory = TemporaryDirectory()
    let center = try makeCenter(directory)
    let activity = try productActivity(center)
    let calls = Atomic(0)
    activity.onWillSave { activity in
      calls.add(1, ordering: .relaxed)
      activity.addUserInfoEntries(from: ["name": .string("Morello")])
    }
    try activity.becomeCurrent()
    #expect(calls.load(ordering: .relaxed) == 0)
    activity.needsSave = true
    try activity.becomeCurrent()
    #expect(calls.load(ordering: .relaxed) == 1)
    #expect(!activity.needsSave)
    #expect(try center.history?.records().first?.userInfo["name"] == .string("Morello"))
  }

  @Test func webpageURLsMustBeHTTP() throws {
    let directory = TemporaryDirectory()
    let activity = try productActivity(try makeCenter(directory))
    activity.webpageURL = URL(string: "file:///etc/passwd")
    #expect(throws: UserActivityError.unsupportedWebpageURL("file:///etc/passwd")) {
      try activity.becomeCurrent()
    }
    activity.webpageURL = URL(string: "https://example.com/cherries")
    try activity.becomeCurrent()
  }

  @Test func continuingChecksTheDeclaredTypeAndExpiry() throws {
    let directory = TemporaryDirectory()
    let clock = TestClock()
    let center = try makeCenter(directory, clock: clock)
    let continued = Mutex<[String]>([])
    center.onContinueUserActivity(Self.type) { activity in
      let payload = try activity.typedPayload(ProductPayload.self)
      continued.withLock { $0.append(payload.name) }
    }
    var record = try productActivity(center).record
    try center.continueActivity(record)
    #expect(continued.withLock { $0 } == ["Cherries"])

    var foreign = record
    foreign.activityType = "com.example.other"
    #expect(throws: UserActivityError.undeclaredType("com.example.other")) {
      try center.continueActivity(foreign)
    }
    record.expirationDate = clock.read().addingTimeInterval(10)
    try center.continueActivity(record)
    clock.advance(by: 10)
    #expect(throws: UserActivityError.expired(title: "Show Cherries product")) {
      try center.continueActivity(record)
    }
    center.declaredActivityTypes.insert("com.example.unhandled")
    var unhandled = UserActivityRecord(activityType: "com.example.unhandled")
    unhandled.title = "x"
    #expect(throws: UserActivityError.noHandler(activityType: "com.example.unhandled")) {
      try center.continueActivity(unhandled)
    }
  }

  @Test func savedActivitiesCanBeDeletedByIdentifierOrAll() throws {
    let directory = TemporaryDirectory()
    let center = try makeCenter(directory)
    for name in ["Cherries", "Mango", "Ginger"] {
      try productActivity(center, name: name).becomeCurrent()
    }
    let history = try #require(center.history)
    try history.delete(persistentIdentifiers: ["Mango", "Unknown"])
    #expect(
      Set(try history.records().compactMap(\.persistentIdentifier)) == ["Cherries", "Ginger"])
    try history.deleteAll()
    #expect(try history.records().isEmpty)
  }

  @Test func anUnreadableHistoryIsNeverOverwritten() throws {
    let directory = TemporaryDirectory()
    let center = try makeCenter(directory)
    let file = directory.path + "/activities.sqlite"
    let garbage = Data(String(repeating: "not a database ", count: 300).utf8)
    try garbage.write(to: URL(fileURLWithPath: file))
    #expect(throws: UserActivityError.self) { try productActivity(center).becomeCurrent() }
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == garbage)
    // Set aside, it gives way to a fresh history.
    let history = try #require(center.history)
    _ = try history.setAside()
    try productActivity(center).becomeCurrent()
    #expect(try history.count() == 1)
  }

  @Test func routeManagersContinueActivitiesThroughProcessors() throws {
    struct ShowProduct: UserActivityProcessor {
      func process(_ activity: UserActivity, path: inout [String]) throws -> Bool {
        guard activity.activityType == UserActivityTests.type else { return false }
        path = [try activity.typedPayload(ProductPayload.self).name]
        return true
      }
    }
    let routes = RouteManager<String>(path: ["list"], userActivityProcessors: [ShowProduct()])
    let center = UserActivityCenter()
    #expect(try routes.continueActivity(try productActivity(center)))
    #expect(routes.path == ["Cherries"])
    #expect(
      try routes.continueActivity(UserActivity(activityType: "other", center: center)) == false)
    let broken = UserActivity(activityType: Self.type, center: center)
    broken.userInfo = ["name": .int(1)]
    #expect(throws: UserActivityError.self) { try routes.continueActivity(broken) }
    #expect(routes.path == ["Cherries"])
  }
}

extension UserActivityTests {
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

extension UserActivityTests {
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
        INSERT INTO activities SELECT 'P' || i, 'P' || i, i,
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

  /// The entries read by SQLite from the stored records say what decoding them says: with and
  /// without a target, an expiration date or a last-active date, keys of either kind, text that
  /// needs escaping; and from an earlier file not imported yet.
  @Test func entriesAreWhatTheRecordsSay() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let history = ActivityHistory(directory: state)
    for index in 0..<60 {
      var record = UserActivityRecord(activityType: index % 7 == 0 ? "other.type" : Self.type)
      record.title = "Show \"№\(index)\" \\ 樱桃\u{1F}"
      if index % 3 != 0 { record.persistentIdentifier = "P\(index)" }
      if index % 2 == 0 { record.targetContentIdentifier = UUID().uuidString }
      if index % 5 != 0 {
        record.lastActiveDate = Date(timeIntervalSinceReferenceDate: 1e8 + Double(index) / 7)
      }
      if index % 4 == 0 {
        record.expirationDate = Date(timeIntervalSinceReferenceDate: 3.25e8 / Double(index + 1))
      }
      try history.save(record)
    }
    let decoded = try history.records(limit: 50).map(ActivityHistory.Entry.init)
    #expect(decoded.count == 50)
    #expect(try history.entries(limit: 50) == decoded)
    var earlier = UserActivityRecord(activityType: Self.type)
    earlier.persistentIdentifier = "from the file"
    earlier.lastActiveDate = Date(timeIntervalSinceReferenceDate: 2e9)
    try state.save(EarlierHistory(activities: [earlier]), to: "activities.json")
    #expect(
      try history.entries(limit: 3)
        == (try history.records(limit: 3)).map(ActivityHistory.Entry.init))
    #expect(try history.entries(limit: 1).first?.historyKey == "from the file")
  }

  @Test func anEarlierJSONHistoryIsImportedOnceAndKept() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let history = ActivityHistory(directory: state)
    var saved = UserActivityRecord(activityType: Self.type)
    saved.persistentIdentifier = "B"
    saved.title = "newer in the database"
    saved.lastActiveDate = Date(timeIntervalSinceReferenceDate: 50)
    try history.save(saved)
    let earlier = ["A": 10.0, "B": 20.0, "C": 30.0].map { name, time in
      var record = UserActivityRecord(activityType: Self.type)
      record.persistentIdentifier = name
      record.title = "from the file"
      record.lastActiveDate = Date(timeIntervalSinceReferenceDate: time)
      return record
    }
    try state.save(EarlierHistory(activities: earlier), to: "activities.json")
    // Read alongside before the import, the newer entry of each key winning.
    #expect(try history.records().compactMap(\.persistentIdentifier) == ["B", "C", "A"])
    #expect(try history.importEarlierFile() == 3)
    #expect(try history.importEarlierFile() == nil)
    #expect(!state.contains("activities.json"))
    #expect(state.contains("activities.json.imported"))
    #expect(try history.count() == 3)
    #expect(try history.record(historyKey: "B")?.title == "newer in the database")
    #expect(try history.record(historyKey: "A")?.title == "from the file")
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

/// The earlier version's history file, written as that version did.
private struct EarlierHistory: VersionedFormat {
  static let currentFormatVersion = 1
  var formatVersion = currentFormatVersion
  var activities: [UserActivityRecord]
}

extension UserActivityTests {
  /// A history keeps one connection from call to call, and follows its path: a file another
  /// process moved aside and replaced is opened again, and `close()` lets it go.
  @Test func theHistoryKeepsOneConnectionToTheFileAtItsPath() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let file = state.path(of: "activities.sqlite")
    func record(_ name: String, at time: Double) -> UserActivityRecord {
      var record = UserActivityRecord(activityType: Self.type)
      record.persistentIdentifier = name
      record.lastActiveDate = Date(timeIntervalSinceReferenceDate: time)
      return record
    }
    let history = ActivityHistory(directory: state)
    try history.save(record("A", at: 1))
    try history.save(record("B", at: 2))
    #expect(try history.count() == 2)
    #expect(openDescriptors(of: file) == 1)

    let other = ActivityHistory(directory: state)
    try other.setAside()
    try other.save(record("C", at: 3))
    #expect(try history.records().compactMap(\.persistentIdentifier) == ["C"])
    try history.save(record("D", at: 4))
    #expect(try other.records().compactMap(\.persistentIdentifier) == ["D", "C"])

    history.close()
    other.close()
    #expect(openDescriptors(of: file) == 0)
    #expect(!FileManager.default.fileExists(atPath: file + "-wal"))
  }

  /// How many of this process's descriptors are open on a file.
  private func openDescriptors(of file: String) -> Int {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return entries.count { entry in
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry))
        == file
    }
  }
}
