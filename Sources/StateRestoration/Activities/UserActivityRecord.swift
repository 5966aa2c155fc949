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
  public var historyKey: String {
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
      value = try JSONDecoder().decode(PlainJSON.Value.self, from: data).value
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
      let data = try JSONEncoder().encode(PlainJSON.Encoded(value: .dictionary(userInfo)))
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
