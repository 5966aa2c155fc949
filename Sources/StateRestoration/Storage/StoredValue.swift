package import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// One value in a scene's storage, tagged with its type so that it keeps that type on disk.
///
/// An `Int` stays an `Int`, `Data` stays `Data`: the file records `{"type": "int", "value": 3}`,
/// never a bare number whose type a reader would have to guess.
public enum StoredValue: Sendable, Hashable {
  /// A Boolean.
  case bool(Bool)
  /// A signed integer.
  case int(Int)
  /// A floating-point number; NaN and the infinities are kept too.
  case double(Double)
  /// A string.
  case string(String)
  /// A URL, kept as its absolute string.
  case url(URL)
  /// Raw bytes, kept as Base64 on disk.
  case data(Data)
  /// A point in time, kept to the full precision of `Date`.
  case date(Date)
  /// Any `Codable` value, kept as its JSON encoding.
  case codable(Data)

  /// The name of the type tag used on disk: `bool`, `int`, `double`, `string`, `url`, `data`,
  /// `date` or `codable`.
  public var typeName: String {
    switch self {
    case .bool: "bool"
    case .int: "int"
    case .double: "double"
    case .string: "string"
    case .url: "url"
    case .data: "data"
    case .date: "date"
    case .codable: "codable"
    }
  }
}

extension StoredValue: Codable {
  private enum CodingKeys: String, CodingKey {
    case type
    case value
  }

  /// The on-disk spelling of non-finite doubles, which JSON numbers cannot hold.
  private static let nonFiniteDoubles: [String: Double] = [
    "nan": .nan, "inf": .infinity, "-inf": -.infinity,
  ]

  /// Decodes a value from its `{"type": …, "value": …}` form.
  ///
  /// - Throws: `DecodingError` when the type tag is unknown or the value does not have that type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let type = try container.decode(String.self, forKey: .type)
    switch type {
    case "bool": self = .bool(try container.decode(Bool.self, forKey: .value))
    case "int": self = .int(try container.decode(Int.self, forKey: .value))
    case "double":
      if let text = try? container.decode(String.self, forKey: .value),
        let special = Self.nonFiniteDoubles[text]
      {
        self = .double(special)
      } else {
        self = .double(try container.decode(Double.self, forKey: .value))
      }
    case "string": self = .string(try container.decode(String.self, forKey: .value))
    case "url":
      let text = try container.decode(String.self, forKey: .value)
      guard let url = URL(string: text) else {
        throw DecodingError.dataCorruptedError(
          forKey: .value, in: container, debugDescription: "'\(text)' is not a URL")
      }
      self = .url(url)
    case "data": self = .data(try container.decode(Data.self, forKey: .value))
    case "date":
      let seconds = try container.decode(Double.self, forKey: .value)
      self = .date(Date(timeIntervalSinceReferenceDate: seconds))
    case "codable":
      let json = try container.decode(String.self, forKey: .value)
      self = .codable(Data(json.utf8))
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .type, in: container, debugDescription: "unknown value type '\(type)'")
    }
  }

  /// Encodes the value as `{"type": …, "value": …}`; dates as seconds since 2001-01-01 UTC, the
  /// reference date of `Date`, so that no precision is lost.
  ///
  /// - Throws: `EncodingError` when the underlying encoder fails.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(typeName, forKey: .type)
    switch self {
    case .bool(let value): try container.encode(value, forKey: .value)
    case .int(let value): try container.encode(value, forKey: .value)
    case .double(let value):
      if value.isNaN {
        try container.encode("nan", forKey: .value)
      } else if value.isInfinite {
        try container.encode(value > 0 ? "inf" : "-inf", forKey: .value)
      } else {
        try container.encode(value, forKey: .value)
      }
    case .string(let value): try container.encode(value, forKey: .value)
    case .url(let value): try container.encode(value.absoluteString, forKey: .value)
    case .data(let value): try container.encode(value, forKey: .value)
    case .date(let value):
      try container.encode(value.timeIntervalSinceReferenceDate, forKey: .value)
    case .codable(let json):
      try container.encode(String(decoding: json, as: UTF8.self), forKey: .value)
    }
  }
}

extension StoredValue: JSONRepresentable {
  /// Reads a value from its `{"type": …, "value": …}` form, as `init(from:)` does.
  ///
  /// - Parameter json: The JSON.
  /// - Throws: ``JSONReadError`` when the type tag is unknown or the value does not have that
  ///   type.
  package init(json: JSONValue) throws(JSONReadError) {
    let type = try json.readString("type")
    switch type {
    case "bool": self = .bool(try json.readBool("value"))
    case "int": self = .int(try json.readInt("value"))
    case "double": self = .double(try json.readDouble("value"))
    case "string": self = .string(try json.readString("value"))
    case "url":
      let text = try json.readString("value")
      guard let url = URL(string: text) else {
        throw JSONReadError("'\(text)' is not a URL", path: ["value"])
      }
      self = .url(url)
    case "data":
      guard let data = Data(base64Encoded: try json.readString("value")) else {
        throw JSONReadError("not Base64", path: ["value"])
      }
      self = .data(data)
    case "date": self = .date(Date(timeIntervalSinceReferenceDate: try json.readDouble("value")))
    case "codable":
      // Copied from the string's bytes: `Data(text.utf8)` would first ask at run time whether
      // the view is contiguous, a search of every protocol conformance in the program, at launch.
      var text = try json.readString("value")
      self = .codable(text.withUTF8 { Data(buffer: $0) })
    default: throw JSONReadError("unknown value type '\(type)'", path: ["type"])
    }
  }

  /// The value in its `{"type": …, "value": …}` form, as `encode(to:)` writes it.
  package var json: JSONValue {
    let value: JSONValue =
      switch self {
      case .bool(let value): .bool(value)
      case .int(let value): .int(value)
      case .double(let value): .double(value)
      case .string(let value): .string(value)
      case .url(let value): .string(value.absoluteString)
      case .data(let value): .string(value.base64EncodedString())
      case .date(let value): .double(value.timeIntervalSinceReferenceDate)
      case .codable(let json): .string(String(decoding: json, as: UTF8.self))
      }
    return .object([("type", .string(typeName)), ("value", value)])
  }
}
