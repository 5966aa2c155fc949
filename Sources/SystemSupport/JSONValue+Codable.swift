#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A JSON value read from and written to any `Codable` container, so that a type with a
/// ``JSONRepresentable`` codec needs no second one for `Codable`: its `init(from:)` and
/// `encode(to:)` go through this.
extension JSONValue: Codable {
  /// A member's name, as a coding key.
  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// Reads whatever value the decoder holds.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when it holds nothing JSON can say.
  package init(from decoder: any Decoder) throws {
    if let object = try? decoder.container(keyedBy: Key.self) {
      self = .object(
        try object.allKeys.map { ($0.stringValue, try object.decode(JSONValue.self, forKey: $0)) })
    } else if var array = try? decoder.unkeyedContainer() {
      var elements: [JSONValue] = []
      while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
      self = .array(elements)
    } else {
      let single = try decoder.singleValueContainer()
      if single.decodeNil() {
        self = .null
      } else if let bool = try? single.decode(Bool.self) {
        self = .bool(bool)
      } else if let integer = try? single.decode(Int64.self) {
        // `-0` is a double's negative zero, which reading it as an integer would lose.
        let negativeZero = integer == 0 && (try? single.decode(Double.self))?.sign == .minus
        self = .number(negativeZero ? "-0.0" : String(integer))
      } else if let number = try? single.decode(Double.self) {
        self = .number(number.description)
      } else {
        self = .string(try single.decode(String.self))
      }
    }
  }

  /// Writes the value; a number as an integer when its text is one, else as a `Double`.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws, or `EncodingError` for a number that is neither.
  package func encode(to encoder: any Encoder) throws {
    switch self {
    case .null:
      var single = encoder.singleValueContainer()
      try single.encodeNil()
    case .bool(let value):
      var single = encoder.singleValueContainer()
      try single.encode(value)
    case .number(let text):
      var single = encoder.singleValueContainer()
      // `-0` stays a double: an integer would drop its sign.
      if let integer = Int64(text), !(integer == 0 && text.hasPrefix("-")) {
        try single.encode(integer)
      } else if let number = Double(text) {
        try single.encode(number)
      } else {
        throw EncodingError.invalidValue(
          text, .init(codingPath: encoder.codingPath, debugDescription: "not a number"))
      }
    case .string(let text):
      var single = encoder.singleValueContainer()
      try single.encode(text)
    case .array(let elements):
      var array = encoder.unkeyedContainer()
      for element in elements { try array.encode(element) }
    case .object(let members):
      var object = encoder.container(keyedBy: Key.self)
      for (name, value) in members { try object.encode(value, forKey: Key(stringValue: name)) }
    }
  }
}

extension JSONRepresentable {
  /// Reads a value through its JSON codec from any decoder: what such a type's `init(from:)`
  /// calls.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when the decoder's value is not such a value.
  package init(decodingJSONFrom decoder: any Decoder) throws {
    let json = try JSONValue(from: decoder)
    do {
      try self.init(json: json)
    } catch {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: error.description))
    }
  }

  /// Writes the value through its JSON codec to any encoder: what such a type's `encode(to:)`
  /// calls.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws.
  package func encodeJSON(to encoder: any Encoder) throws {
    try json.encode(to: encoder)
  }
}
