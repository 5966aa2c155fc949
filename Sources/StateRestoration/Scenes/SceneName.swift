package import SystemSupport

/// The validated name of a scene: `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`.
///
/// The rule keeps names safe as file names (no `/`, no leading dot) and easy to type.
public struct SceneName: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
  /// The name as text.
  public let rawValue: String

  /// The name of the first scene.
  public static let main = SceneName(unchecked: "main")

  /// The longest name allowed, in characters.
  public static let maximumLength = 64

  /// Validates a name.
  ///
  /// The initializer fails unless the name matches `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`.
  ///
  /// - Parameter rawValue: The proposed name.
  public init?(_ rawValue: String) {
    guard Self.isValid(rawValue) else { return nil }
    self.rawValue = rawValue
  }

  /// A name known to be valid: one this type made.
  init(unchecked rawValue: String) {
    self.rawValue = rawValue
  }

  /// Whether a string is a valid scene name.
  ///
  /// - Parameter text: The proposed name.
  /// - Returns: true when it matches `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`.
  /// - Complexity: O(*n*) in the length of `text`, at most 65 bytes examined.
  public static func isValid(_ text: String) -> Bool {
    let bytes = text.utf8
    guard let first = bytes.first, bytes.count <= maximumLength, isAlphanumeric(first) else {
      return false
    }
    return bytes.allSatisfy {
      isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
        || $0 == UInt8(ascii: "-")
    }
  }

  private static func isAlphanumeric(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
      || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
  }

  /// The name as text.
  public var description: String { rawValue }

  /// Orders names by their text.
  public static func < (lhs: SceneName, rhs: SceneName) -> Bool { lhs.rawValue < rhs.rawValue }

  /// Decodes a name from a string, validating it.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when the string is not a valid scene name.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let name = SceneName(text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "'\(text)' is not a valid scene name")
    }
    self = name
  }

  /// Encodes the name as a string.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: `EncodingError` from the encoder.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

extension SceneName: JSONRepresentable {
  /// Reads a name from a JSON string.
  ///
  /// - Parameter json: The JSON.
  /// - Throws: ``JSONReadError`` when it is not a string or not a valid name.
  package init(json: JSONValue) throws(JSONReadError) {
    let text = try json.stringValue()
    guard let name = SceneName(text) else {
      throw JSONReadError("'\(text)' is not a valid scene name")
    }
    self = name
  }

  /// The name as a JSON string.
  package var json: JSONValue { .string(rawValue) }
}

extension SceneName: ExpressibleByStringLiteral {
  /// A name written in the program, such as `"inspector"`, as a SwiftUI app writes a scene's
  /// identifier. `SceneName("inspector")` with a literal is this initializer too.
  ///
  /// - Precondition: The literal is a valid name (`[A-Za-z0-9][A-Za-z0-9._-]{0,63}`): a
  ///   literal that is not is a mistake in the program, caught the first time it runs. A name
  ///   from the user or a file goes through ``init(_:)``, which fails instead.
  public init(stringLiteral value: String) {
    guard Self.isValid(value) else {
      preconditionFailure("'\(value)' is not a scene name: letters, digits, '.', '_' and '-'")
    }
    self.rawValue = value
  }
}
