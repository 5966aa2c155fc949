package import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Everything a user activity holds, as a value: what the activity history saves, what a scene
/// keeps as its restoration activity, and what a continuation delivers.
public struct UserActivityRecord: Codable, Sendable, Hashable {
  /// The activity's type, reverse-DNS style.
  public var activityType: String
  /// The title shown to the user, such as *Show Cherries product*.
  public var title: String?
  /// The activity's state.
  public var userInfo: [String: PropertyListValue] = [:]
  /// The `userInfo` keys needed to continue the activity.
  public var requiredUserInfoKeys: Set<String> = []
  /// Words a search should match besides the title.
  public var keywords: Set<String> = []
  /// Whether the activity may be found by search on this device.
  public var isEligibleForSearch = false
  /// Whether the activity may be continued elsewhere (another scene here).
  public var isEligibleForHandoff = true
  /// Whether the activity may be indexed for everyone.
  public var isEligibleForPublicIndexing = false
  /// The identifier of the content it shows, for routing it to the scene that shows it.
  public var targetContentIdentifier: String?
  /// A web page showing the same content.
  public var webpageURL: URL?
  /// When the activity stops being offered.
  public var expirationDate: Date?
  /// The identifier under which it is saved, for deleting it later.
  public var persistentIdentifier: String?
  /// When it last became current.
  public var lastActiveDate: Date?

  /// Creates a record.
  ///
  /// - Parameter activityType: The activity's type.
  public init(activityType: String) {
    self.activityType = activityType
  }

  /// The key under which the history keeps one entry: the persistent identifier, or the type
  /// with the target content (or the title).
  package var historyKey: String {
    persistentIdentifier
      ?? "\(activityType)\u{1F}\(targetContentIdentifier ?? title ?? "")"
  }

  /// Whether the activity has expired at a given time.
  ///
  /// - Parameter date: The time.
  /// - Returns: Whether its expiration date is at or before `date`.
  public func isExpired(at date: Date) -> Bool {
    expirationDate.map { $0 <= date } ?? false
  }

  /// Replaces the user info with a `Codable` payload: its coding keys become the user-info keys.
  ///
  /// - Parameter payload: The payload; it must encode as a keyed container.
  /// - Throws: ``StateRestorationError/payloadNotEncodable(reason:)``.
  public mutating func setTypedPayload<Payload: Encodable>(_ payload: Payload)
    throws(StateRestorationError)
  {
    let value: PropertyListValue
    do {
      let data = try JSONEncoder().encode(payload)
      value = try PropertyListValue(plainJSON: JSONValue(parsing: data))
    } catch {
      throw .payloadNotEncodable(reason: "\(error)")
    }
    guard case .dictionary(let entries) = value else {
      throw .payloadNotEncodable(reason: "'\(Payload.self)' does not encode with keys")
    }
    userInfo = entries
  }

  /// Decodes the user info as a typed payload.
  ///
  /// - Parameter type: The payload's type; its coding keys are the user-info keys.
  /// - Returns: The payload.
  /// - Throws: ``StateRestorationError/payloadNotDecodable(type:reason:)``, also for an empty user
  ///   info, as Apple's `typedPayload(_:)` does, even when every field of the payload is
  ///   optional.
  public func typedPayload<Payload: Decodable>(_ type: Payload.Type) throws(StateRestorationError)
    -> Payload
  {
    guard !userInfo.isEmpty else {
      throw .payloadNotDecodable(type: "\(Payload.self)", reason: "the user info is empty")
    }
    do {
      let data = Data(PropertyListValue.dictionary(userInfo).plainJSON.serialized())
      return try JSONDecoder().decode(Payload.self, from: data)
    } catch {
      throw .payloadNotDecodable(type: "\(Payload.self)", reason: describe(error))
    }
  }

  /// The missing required keys, sorted; empty when the activity can be continued.
  var missingRequiredKeys: [String] {
    requiredUserInfoKeys.subtracting(userInfo.keys).sorted()
  }
}

extension UserActivityRecord: JSONRepresentable {
  /// Reads a record as its `Codable` form has it; a missing user info, key list or flag is
  /// its default.
  ///
  /// - Parameter json: The JSON.
  /// - Throws: ``JSONReadError`` when a member does not have its type.
  package init(json: JSONValue) throws(JSONReadError) {
    func strings(_ key: String) throws(JSONReadError) -> Set<String>? {
      try json.readIfPresent(key) { value throws(JSONReadError) in
        Set(try value.readElements { element throws(JSONReadError) in try element.stringValue() })
      }
    }
    func string(_ key: String) throws(JSONReadError) -> String? {
      try json.readIfPresent(key) { value throws(JSONReadError) in try value.stringValue() }
    }
    func bool(_ key: String) throws(JSONReadError) -> Bool? {
      try json.readIfPresent(key) { value throws(JSONReadError) in try value.boolValue() }
    }
    func date(_ key: String) throws(JSONReadError) -> Date? {
      try json.readIfPresent(key) { value throws(JSONReadError) in
        try value.dateValue()
      }
    }
    self.init(activityType: try json.readString("activityType"))
    title = try string("title")
    userInfo =
      try json.readIfPresent("userInfo") { value throws(JSONReadError) in
        try value.readMembers { member throws(JSONReadError) in
          try PropertyListValue(json: member)
        }
      } ?? [:]
    requiredUserInfoKeys = try strings("requiredUserInfoKeys") ?? []
    keywords = try strings("keywords") ?? []
    isEligibleForSearch = try bool("isEligibleForSearch") ?? isEligibleForSearch
    isEligibleForHandoff = try bool("isEligibleForHandoff") ?? isEligibleForHandoff
    isEligibleForPublicIndexing =
      try bool("isEligibleForPublicIndexing") ?? isEligibleForPublicIndexing
    targetContentIdentifier = try string("targetContentIdentifier")
    if let text = try string("webpageURL") {
      guard let url = URL(string: text) else {
        throw JSONReadError("'\(text)' is not a URL", path: ["webpageURL"])
      }
      webpageURL = url
    }
    expirationDate = try date("expirationDate")
    persistentIdentifier = try string("persistentIdentifier")
    lastActiveDate = try date("lastActiveDate")
  }

  /// The record as its `Codable` form has it, the key sets sorted.
  package var json: JSONValue {
    let optional: [(String, JSONValue?)] = [
      ("title", title.map(JSONValue.string)),
      ("targetContentIdentifier", targetContentIdentifier.map(JSONValue.string)),
      ("webpageURL", webpageURL.map { .string($0.absoluteString) }),
      ("expirationDate", expirationDate.map(JSONValue.date)),
      ("persistentIdentifier", persistentIdentifier.map(JSONValue.string)),
      ("lastActiveDate", lastActiveDate.map(JSONValue.date)),
    ]
    return .object(
      [
        ("activityType", .string(activityType)),
        ("userInfo", .object(sorting: userInfo.mapValues(\.json))),
        ("requiredUserInfoKeys", .array(requiredUserInfoKeys.sorted().map(JSONValue.string))),
        ("keywords", .array(keywords.sorted().map(JSONValue.string))),
        ("isEligibleForSearch", .bool(isEligibleForSearch)),
        ("isEligibleForHandoff", .bool(isEligibleForHandoff)),
        ("isEligibleForPublicIndexing", .bool(isEligibleForPublicIndexing)),
      ] + optional.compactMap { name, value in value.map { (name, $0) } })
  }
}
