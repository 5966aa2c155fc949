#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What can go wrong with a user activity: making it current, continuing it, or reading its
/// payload.
public enum UserActivityError: Error, Sendable, Hashable, LocalizedError {
  /// The activity was invalidated; it cannot become current again.
  case invalidated(activityType: String)
  /// The activity's type is not among the declared types, so it cannot be continued.
  case undeclaredType(String)
  /// No handler continues activities of the type.
  case noHandler(activityType: String)
  /// The activity's expiration date has passed.
  case expired(title: String)
  /// `userInfo` lacks keys listed in `requiredUserInfoKeys`.
  case missingRequiredKeys([String])
  /// The web page URL is not `http` or `https`.
  case unsupportedWebpageURL(String)
  /// A payload could not be encoded as property-list values with string keys.
  case payloadNotEncodable(reason: String)
  /// `userInfo` does not decode as the requested payload type.
  case payloadNotDecodable(type: String, reason: String)
  /// The activity could not be saved in the history.
  case notSaved(reason: String)

  /// The message: what went wrong, with the values involved in quotes.
  public var errorDescription: String? {
    switch self {
    case .invalidated(let activityType):
      "the '\(activityType)' activity was invalidated; create a new one"
    case .undeclaredType(let type):
      "the activity type '\(type.abbreviated)' is not declared by this program"
    case .noHandler(let activityType):
      "nothing continues '\(activityType.abbreviated)' activities"
    case .expired(let title):
      "the activity '\(title.abbreviated)' has expired"
    case .missingRequiredKeys(let keys):
      "the activity's user info lacks the required keys \(keys.map { "'\($0)'" }.joined(separator: ", "))"
    case .unsupportedWebpageURL(let url):
      "the web page URL '\(url.abbreviated)' is not http or https"
    case .payloadNotEncodable(let reason):
      "the payload cannot be stored in user info: \(reason)"
    case .payloadNotDecodable(let type, let reason):
      "the activity's user info is not a valid '\(type)': \(reason)"
    case .notSaved(let reason):
      "the activity could not be saved: \(reason)"
    }
  }
}
