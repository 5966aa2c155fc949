package import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A property-list value: what a user activity's `userInfo` may hold.
///
/// On disk each value is tagged with its type, `{"type": "date", "value": 726000000}`, so that
/// a date stays a date and data stays data.
public enum PropertyListValue: Sendable, Hashable {
  /// Text.
  case string(String)
  /// A whole number.
  case int(Int)
  /// A floating-point number.
  case double(Double)
  /// A Boolean.
  case bool(Bool)
  /// A point in time.
  case date(Date)
  /// Bytes.
  case data(Data)
  /// An ordered list.
  indirect case array([PropertyListValue])
  /// String keys to values.
  indirect case dictionary([String: PropertyListValue])
}

extension PropertyListValue: Codable {
  /// Decodes a tagged value, as ``init(json:)`` reads it.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` for an unknown tag or a value of the wrong type.
  public init(from decoder: any Decoder) throws {
    try self.init(decodingJSONFrom: decoder)
  }

  /// Encodes the value with its type tag, as ``json`` writes it.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    try encodeJSON(to: encoder)
  }
}

extension PropertyListValue: JSONRepresentable {
  /// Reads a value from its `{"type": …, "value": …}` form.
  ///
  /// - Parameter json: The JSON.
  /// - Throws: ``JSONReadError`` when the type tag is unknown or the value does not have that
  ///   type.
  package init(json: JSONValue) throws(JSONReadError) {
    let type = try json.readString("type")
    switch type {
    case "string": self = .string(try json.readString("value"))
    case "int": self = .int(try json.readInt("value"))
    case "double": self = .double(try json.readDouble("value"))
    case "bool": self = .bool(try json.readBool("value"))
    case "date": self = .date(try json.readDate("value"))
    case "data":
      guard let data = Data(base64Encoded: try json.readString("value")) else {
        throw JSONReadError("not Base64", path: ["value"])
      }
      self = .data(data)
    case "array":
      self = .array(
        try json.read("value") { value throws(JSONReadError) in
          try value.readElements { element throws(JSONReadError) in
            try PropertyListValue(json: element)
          }
        })
    case "dictionary":
      self = .dictionary(
        try json.read("value") { value throws(JSONReadError) in
          try value.readMembers { member throws(JSONReadError) in
            try PropertyListValue(json: member)
          }
        })
    default: throw JSONReadError("unknown value type '\(type)'", path: ["type"])
    }
  }

  /// The value in its `{"type": …, "value": …}` form, as `encode(to:)` writes it.
  package var json: JSONValue {
    let (type, value): (String, JSONValue) =
      switch self {
      case .string(let value): ("string", .string(value))
      case .int(let value): ("int", .int(value))
      case .double(let value): ("double", .double(value))
      case .bool(let value): ("bool", .bool(value))
      case .date(let value): ("date", .date(value))
      case .data(let value): ("data", .string(value.base64EncodedString()))
      case .array(let values): ("array", .array(values.map(\.json)))
      case .dictionary(let values): ("dictionary", .object(sorting: values.mapValues(\.json)))
      }
    return .object([("type", .string(type)), ("value", value)])
  }
}

extension PropertyListValue {
  /// Plain JSON as property-list values, for typed payloads: a payload is encoded to JSON and
  /// read back as values, so its coding keys become user-info keys. Integers stay integers,
  /// other numbers become doubles.
  ///
  /// - Parameter json: The JSON.
  /// - Throws: ``JSONReadError`` for `null`, which no property-list value is.
  init(plainJSON json: JSONValue) throws(JSONReadError) {
    switch json {
    case .null: throw JSONReadError("null is not a property-list value")
    case .bool(let value): self = .bool(value)
    case .number(let text):
      if let integer = Int(text) {
        self = .int(integer)
      } else {
        self = .double(try json.doubleValue())
      }
    case .string(let text): self = .string(text)
    case .array(let elements):
      var values: [PropertyListValue] = []
      for (offset, element) in elements.enumerated() {
        do throws(JSONReadError) {
          values.append(try PropertyListValue(plainJSON: element))
        } catch {
          throw error.within(String(offset))
        }
      }
      self = .array(values)
    case .object(let members):
      var values: [String: PropertyListValue] = [:]
      for (name, member) in members {
        do throws(JSONReadError) {
          values[name] = try PropertyListValue(plainJSON: member)
        } catch {
          throw error.within(name)
        }
      }
      self = .dictionary(values)
    }
  }

  /// The value as plain JSON, as `JSONEncoder` writes property-list values by default: dates
  /// as seconds since 2001, data as Base64.
  var plainJSON: JSONValue {
    switch self {
    case .string(let value): .string(value)
    case .int(let value): .int(value)
    case .double(let value): .double(value)
    case .bool(let value): .bool(value)
    case .date(let value): .date(value)
    case .data(let value): .string(value.base64EncodedString())
    case .array(let values): .array(values.map(\.plainJSON))
    case .dictionary(let values): .object(sorting: values.mapValues(\.plainJSON))
    }
  }
}

extension PropertyListValue {
  /// The value as Foundation's property-list types: `String`, `Int`, `Double`, `Bool`, `Date`,
  /// `Data`, `[Any]` and `[String: Any]`.
  public var foundationValue: Any {
    switch self {
    case .string(let value): value
    case .int(let value): value
    case .double(let value): value
    case .bool(let value): value
    case .date(let value): value
    case .data(let value): value
    case .array(let values): values.map(\.foundationValue)
    case .dictionary(let values): values.mapValues(\.foundationValue)
    }
  }

  /// A Foundation value as a property-list value: strings, integers, floating-point numbers,
  /// Booleans, dates, data, URLs (as their strings), and arrays and dictionaries with string
  /// keys of them.
  ///
  /// Fails for a value of another type.
  ///
  /// - Parameter value: The value.
  public init?(foundationValue value: Any) {
    switch value {
    case let value as PropertyListValue: self = value
    case let value as String: self = .string(value)
    case let value as Bool: self = .bool(value)
    case let value as Int: self = .int(value)
    case let value as Double: self = .double(value)
    case let value as Float: self = .double(Double(value))
    case let value as Date: self = .date(value)
    case let value as Data: self = .data(value)
    case let value as URL: self = .string(value.absoluteString)
    case let value as any BinaryInteger:
      guard let exact = Int(exactly: value) else { return nil }
      self = .int(exact)
    case let values as [Any]:
      var converted: [PropertyListValue] = []
      for element in values {
        guard let element = PropertyListValue(foundationValue: element) else { return nil }
        converted.append(element)
      }
      self = .array(converted)
    case let values as [AnyHashable: Any]:
      let (entries, rejected) = Self.entries(of: values)
      guard rejected == nil else { return nil }
      self = .dictionary(entries)
    default: return nil
    }
  }

  /// A Foundation dictionary's entries as property-list values.
  ///
  /// - Parameter dictionary: The dictionary.
  /// - Returns: The entries that convert, and why the first that does not was left out.
  static func entries(of dictionary: [AnyHashable: Any]) -> (
    [String: PropertyListValue], rejected: String?
  ) {
    var entries: [String: PropertyListValue] = [:]
    var rejected: String?
    for (key, value) in dictionary {
      guard let name = key.base as? String else {
        rejected = rejected ?? "userInfo key \(key) is not a string"
        continue
      }
      guard let converted = PropertyListValue(foundationValue: value) else {
        rejected =
          rejected ?? "userInfo['\(name)'] is a \(type(of: value)), not a property-list value"
        continue
      }
      entries[name] = converted
    }
    return (entries, rejected)
  }
}
