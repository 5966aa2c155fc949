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
  /// Decodes a value from its `{"type": …, "value": …}` form, as ``init(json:)`` reads it.
  ///
  /// - Throws: `DecodingError` when the type tag is unknown or the value does not have that type.
  public init(from decoder: any Decoder) throws {
    try self.init(decodingJSONFrom: decoder)
  }

  /// Encodes the value as `{"type": …, "value": …}`, as ``json`` writes it: dates as seconds
  /// since 2001-01-01 UTC, the reference date of `Date`, so that no precision is lost.
  ///
  /// - Throws: `EncodingError` when the underlying encoder fails.
  public func encode(to encoder: any Encoder) throws {
    try encodeJSON(to: encoder)
  }
}

extension StoredValue: JSONRepresentable {
  /// Reads a value from its `{"type": …, "value": …}` form.
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
    case "date": self = .date(try json.readDate("value"))
    case "codable":
      // Copied from the string's bytes: `Data(text.utf8)` would first ask at run time whether
      // the view is contiguous, a search of every protocol conformance in the program, at launch.
      var text = try json.readString("value")
      self = .codable(text.withUTF8 { Data(buffer: $0) })
    default: throw JSONReadError("unknown value type '\(type)'", path: ["type"])
    }
  }

  /// The value in its `{"type": …, "value": …}` form.
  package var json: JSONValue {
    let value: JSONValue =
      switch self {
      case .bool(let value): .bool(value)
      case .int(let value): .int(value)
      case .double(let value): .double(value)
      case .string(let value): .string(value)
      case .url(let value): .string(value.absoluteString)
      case .data(let value): .string(value.base64EncodedString())
      case .date(let value): .date(value)
      case .codable(let json): .string(String(decoding: json, as: UTF8.self))
      }
    return .object([("type", .string(typeName)), ("value", value)])
  }
}
