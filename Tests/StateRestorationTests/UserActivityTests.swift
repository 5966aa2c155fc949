import ActivityIndex
import Foundation
import StateRestoration
import Synchronization
import SystemSupport
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
    -> NSUserActivity
  {
    let activity = NSUserActivity(activityType: Self.type, center: center)
    activity.title = "Show \(name) product"
    var payload = Self.payload
    payload.name = name
    try activity.setTypedPayload(payload)
    activity.persistentIdentifier = name
    activity.isEligibleForSearch = true
    return activity
  }

  @Test func typedPayloadsRoundTripWithTheirCodingKeysAsUserInfoKeys() throws {
    let activity = NSUserActivity(activityType: Self.type, center: UserActivityCenter())
    try activity.setTypedPayload(Self.payload)
    #expect(Set(activity.record.userInfo.keys) == ["identifier", "name", "year", "price", "tags"])
    #expect(activity.userInfo?["year"] as? Int == 2015)
    #expect(activity.userInfo?["tags"] as? [String] == ["fruit", "red"])
    #expect(try activity.typedPayload(ProductPayload.self) == Self.payload)
    // Through a saved record too, as continuation delivers it.
    let data = try JSONEncoder().encode(activity.record)
    let record = try JSONDecoder().decode(UserActivityRecord.self, from: data)
    #expect(try record.typedPayload(ProductPayload.self) == Self.payload)
  }

  /// As Apple's `typedPayload(_:)`: an empty user info is an error, even for a payload whose
  /// every field is optional.
  /// Foundation's shape: `userInfo` as `[AnyHashable: Any]?` read with `as?`, and a value that
  /// is not a property-list value refused when the activity becomes current, never dropped.
  @Test func userInfoTakesAndGivesFoundationValues() throws {
    let center = UserActivityCenter(declaredActivityTypes: [Self.type])
    let activity = NSUserActivity(activityType: Self.type, center: center)
    activity.userInfo = [
      "id": "42", "count": 3, "price": 1.5, "on": true, "tags": ["a", "b"],
      "link": URL(string: "https://example.com/a")!, "nested": ["k": 1],
    ]
    activity.addUserInfoEntries(from: ["extra": "x"])
    let info = try #require(activity.userInfo)
    #expect(info["id"] as? String == "42")
    #expect(info["count"] as? Int == 3)
    #expect(info["price"] as? Double == 1.5)
    #expect(info["on"] as? Bool == true)
    #expect(info["tags"] as? [String] == ["a", "b"])
    #expect(info["link"] as? String == "https://example.com/a")
    #expect((info["nested"] as? [String: Any])?["k"] as? Int == 1)
    #expect(info["extra"] as? String == "x")
    try activity.makeCurrent()
    struct Opaque {}
    activity.addUserInfoEntries(from: ["bad": Opaque()])
    #expect(throws: StateRestorationError.self) { try activity.makeCurrent() }
    #expect(activity.userInfo?["id"] as? String == "42")
  }

  @Test func anEmptyUserInfoIsNotAPayloadOfNils() throws {
    struct Optionals: Codable, Equatable {
      var name: String?
      var year: Int?
    }
    let activity = NSUserActivity(activityType: Self.type, center: UserActivityCenter())
    #expect(
      throws: StateRestorationError.payloadNotDecodable(
        type: "Optionals", reason: "the user info is empty")
    ) {
      _ = try activity.typedPayload(Optionals.self)
    }
    activity.userInfo = ["name": "Cherries"]
    #expect(try activity.typedPayload(Optionals.self) == Optionals(name: "Cherries"))
  }

  @Test func typedPayloadErrorsAreTyped() throws {
    let activity = NSUserActivity(activityType: Self.type, center: UserActivityCenter())
    #expect(
      throws: StateRestorationError.payloadNotEncodable(reason: "'Int' does not encode with keys")
    ) {
      try activity.setTypedPayload(42)
    }
    activity.userInfo = ["name": "Cherries", "year": "twenty"]
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
    #expect(throws: StateRestorationError.missingRequiredKeys(["imageName"])) {
      try activity.makeCurrent()
    }
    activity.addUserInfoEntries(from: ["imageName": "Cherries"])
    try activity.makeCurrent()
    #expect(activity.isCurrent)
  }

  @Test func anInvalidatedActivityNeverBecomesCurrentAgain() throws {
    let directory = TemporaryDirectory()
    let center = try makeCenter(directory)
    let activity = try productActivity(center)
    try activity.makeCurrent()
    activity.invalidate()
    #expect(!activity.isValid)
    #expect(center.currentActivity == nil)
    #expect(throws: StateRestorationError.invalidated(activityType: Self.type)) {
      try activity.makeCurrent()
    }
    #expect(center.currentActivity == nil)
    // Foundation's spelling does not throw: the activity stays as it was.
    activity.becomeCurrent()
    #expect(center.currentActivity == nil)
  }

  /// Code written for Foundation calls `becomeCurrent()` without `try`.
  @Test func becomeCurrentAsFoundationSpellsItSavesTheActivity() throws {
    let directory = TemporaryDirectory()
    let center = try makeCenter(directory)
    let activity = try productActivity(center)
    activity.becomeCurrent()
    #expect(activity.isCurrent)
    #expect(try (center.history as? ActivityHistory)?.records().count == 1)
  }

  @Test func becomingCurrentResignsThePreviousAndSavesTheNewestEntryPerKey() throws {
    let directory = TemporaryDirectory()
    let clock = TestClock()
    let center = try makeCenter(directory, clock: clock)
    let cherries = try productActivity(center)
    let mango = try productActivity(center, name: "Mango")
    try cherries.makeCurrent()
    clock.advance(by: 60)
    try mango.makeCurrent()
    #expect(!cherries.isCurrent && mango.isCurrent)
    clock.advance(by: 60)
    try cherries.makeCurrent()
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
    try activity.makeCurrent()
    #expect(try (center.history as? ActivityHistory)?.records().isEmpty == true)
  }

  @Test func needsSaveAsksForFreshUserInfoFirst() throws {
    let directory = TemporaryDirectory()
    let center = try makeCenter(directory)
    let activity = try productActivity(center)
    let calls = Atomic(0)
    activity.onWillSave { activity in
      calls.add(1, ordering: .relaxed)
      activity.addUserInfoEntries(from: ["name": "Morello"])
    }
    try activity.makeCurrent()
    #expect(calls.load(ordering: .relaxed) == 0)
    activity.needsSave = true
    try activity.makeCurrent()
    #expect(calls.load(ordering: .relaxed) == 1)
    #expect(!activity.needsSave)
    #expect(
      try (center.history as? ActivityHistory)?.records().first?.userInfo["name"]
        == .string("Morello"))
  }

  @Test func webpageURLsMustBeHTTP() throws {
    let directory = TemporaryDirectory()
    let activity = try productActivity(try makeCenter(directory))
    activity.webpageURL = URL(string: "file:///etc/passwd")
    #expect(throws: StateRestorationError.unsupportedWebpageURL("file:///etc/passwd")) {
      try activity.makeCurrent()
    }
    activity.webpageURL = URL(string: "https://example.com/cherries")
    try activity.makeCurrent()
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
    #expect(throws: StateRestorationError.undeclaredType("com.example.other")) {
      try center.continueActivity(foreign)
    }
    record.expirationDate = clock.read().addingTimeInterval(10)
    try center.continueActivity(record)
    clock.advance(by: 10)
    #expect(throws: StateRestorationError.expired(title: "Show Cherries product")) {
      try center.continueActivity(record)
    }
    center.declaredActivityTypes.insert("com.example.unhandled")
    var unhandled = UserActivityRecord(activityType: "com.example.unhandled")
    unhandled.title = "x"
    #expect(throws: StateRestorationError.noHandler(activityType: "com.example.unhandled")) {
      try center.continueActivity(unhandled)
    }
  }

  @Test func savedActivitiesCanBeDeletedByIdentifierOrAll() throws {
    let directory = TemporaryDirectory()
    let center = try makeCenter(directory)
    for name in ["Cherries", "Mango", "Ginger"] {
      try productActivity(center, name: name).makeCurrent()
    }
    let history = try #require(center.history as? ActivityHistory)
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
    #expect(throws: StateRestorationError.self) { try productActivity(center).makeCurrent() }
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == garbage)
    // Set aside, it gives way to a fresh history.
    let history = try #require(center.history as? ActivityHistory)
    _ = try history.setAside()
    try productActivity(center).makeCurrent()
    #expect(try history.count() == 1)
  }

  @Test func routeManagersContinueActivitiesThroughProcessors() throws {
    struct ShowProduct: UserActivityProcessor {
      func process(_ activity: NSUserActivity, path: inout [String]) throws -> Bool {
        guard activity.activityType == UserActivityTests.type else { return false }
        path = [try activity.typedPayload(ProductPayload.self).name]
        return true
      }
    }
    let routes = RouteManager<String>(activityProcessor: ShowProduct(), navigationPath: ["list"])
    let center = UserActivityCenter()
    #expect(try routes.process(try productActivity(center)))
    #expect(routes.navigationPath == ["Cherries"])
    #expect(
      try routes.process(NSUserActivity(activityType: "other", center: center)) == false)
    let broken = NSUserActivity(activityType: Self.type, center: center)
    broken.userInfo = ["name": 1]
    #expect(throws: StateRestorationError.self) { try routes.process(broken) }
    #expect(routes.navigationPath == ["Cherries"])
  }
}
