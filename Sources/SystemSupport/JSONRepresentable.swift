#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A value read from and written as a ``JSONValue`` by hand, without `Codable`'s generic
/// machinery: what a state file read at every launch uses (see ``JSONValue``).
///
/// A type that is also `Codable` should read and write the same JSON both ways; a
/// ``VersionedFormat`` that conforms is read and written this way.
package protocol JSONRepresentable {
  /// Reads a value from JSON.
  ///
  /// - Parameter json: The JSON.
  /// - Throws: ``JSONReadError`` when the JSON does not hold such a value.
  init(json: JSONValue) throws(JSONReadError)

  /// The value as JSON.
  var json: JSONValue { get }
}

/// Why a JSON document does not hold what its reader expects, and where.
package struct JSONReadError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What was wrong, such as `expected Int` or `missing 'name'`.
  package var problem: String
  /// The member names and element offsets from the document's root to the value.
  package var path: [String]

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - problem: What was wrong.
  ///   - path: Where, from the root; empty for the root itself.
  package init(_ problem: String, path: [String] = []) {
    self.problem = problem
    self.path = path
  }

  /// The same error, one level further from the root: at `component` of the value that was read.
  ///
  /// - Parameter component: A member's name or an element's offset.
  /// - Returns: The error.
  package func within(_ component: String) -> JSONReadError {
    JSONReadError(problem, path: [component] + path)
  }

  /// A one-line account, such as `expected Int at 'storage.count.value'`.
  package var description: String {
    path.isEmpty ? problem : "\(problem) at '\(path.joined(separator: "."))'"
  }
}

extension JSONValue {
  /// The string this value is.
  ///
  /// - Throws: ``JSONReadError`` when it is not a string.
  package func stringValue() throws(JSONReadError) -> String {
    guard case .string(let text) = self else { throw JSONReadError("expected String") }
    return text
  }

  /// The Boolean this value is.
  ///
  /// - Throws: ``JSONReadError`` when it is not `true` or `false`.
  package func boolValue() throws(JSONReadError) -> Bool {
    guard case .bool(let value) = self else { throw JSONReadError("expected Bool") }
    return value
  }

  /// The integer this value is: a number without a fraction that fits an `Int`.
  ///
  /// - Throws: ``JSONReadError`` otherwise.
  package func intValue() throws(JSONReadError) -> Int {
    guard case .number(let text) = self else { throw JSONReadError("expected Int") }
    if let value = Int(text) { return value }
    // `1e3` and `2.0` are integers too; a fraction or a value beyond `Int` is not.
    guard let double = Double(text), double.rounded() == double,
      let value = Int(exactly: double)
    else { throw JSONReadError("expected Int, found \(text)") }
    return value
  }

  /// The floating-point number this value is: a number, or one of the strings `"nan"`,
  /// `"inf"` and `"-inf"` that ``JSONValue/double(_:)`` writes for the values JSON numbers
  /// cannot hold.
  ///
  /// - Throws: ``JSONReadError`` when it is neither, or a number too large for a `Double`.
  package func doubleValue() throws(JSONReadError) -> Double {
    switch self {
    case .number(let text):
      guard let value = Double(text), value.isFinite else {
        throw JSONReadError("expected Double, found \(text)")
      }
      return value
    case .string("nan"): return .nan
    case .string("inf"): return .infinity
    case .string("-inf"): return -.infinity
    default: throw JSONReadError("expected Double")
    }
  }

  /// A date as `JSONEncoder` writes one by default: its seconds since 2001-01-01 as a number.
  ///
  /// - Parameter value: The date.
  /// - Returns: The number.
  package static func date(_ value: Date) -> JSONValue {
    .double(value.timeIntervalSinceReferenceDate)
  }

  /// The date this value is, written as ``date(_:)`` writes one.
  ///
  /// - Throws: ``JSONReadError`` when it is not a number a `Double` holds.
  package func dateValue() throws(JSONReadError) -> Date {
    Date(timeIntervalSinceReferenceDate: try doubleValue())
  }

  /// The elements of the array this value is.
  ///
  /// - Throws: ``JSONReadError`` when it is not an array.
  package func arrayValue() throws(JSONReadError) -> [JSONValue] {
    guard case .array(let elements) = self else { throw JSONReadError("expected an array") }
    return elements
  }

  /// The members of the object this value is.
  ///
  /// - Throws: ``JSONReadError`` when it is not an object.
  package func objectValue() throws(JSONReadError) -> [(String, JSONValue)] {
    guard case .object(let members) = self else { throw JSONReadError("expected an object") }
    return members
  }

  /// Reads a member of this object, which must be there (`null` counts as there).
  ///
  /// - Parameters:
  ///   - key: The member's name.
  ///   - read: What makes a value of it.
  /// - Returns: The value.
  /// - Throws: ``JSONReadError`` when this is not an object, the member is missing, or `read`
  ///   fails (the error then says where).
  package func read<Value>(_ key: String, _ read: (JSONValue) throws(JSONReadError) -> Value)
    throws(JSONReadError) -> Value
  {
    guard case .object = self else { throw JSONReadError("expected an object") }
    guard let member = self[key] else { throw JSONReadError("missing '\(key)'") }
    do {
      return try read(member)
    } catch {
      throw error.within(key)
    }
  }

  /// Reads a member of this object if it is there and not `null`.
  ///
  /// - Parameters:
  ///   - key: The member's name.
  ///   - read: What makes a value of it.
  /// - Returns: The value, or nil when the member is missing or `null`.
  /// - Throws: ``JSONReadError`` when this is not an object or `read` fails.
  package func readIfPresent<Value>(
    _ key: String, _ read: (JSONValue) throws(JSONReadError) -> Value
  ) throws(JSONReadError) -> Value? {
    guard case .object = self else { throw JSONReadError("expected an object") }
    guard let member = self[key], member != .null else { return nil }
    do {
      return try read(member)
    } catch {
      throw error.within(key)
    }
  }

  /// Reads each element of this array.
  ///
  /// - Parameter read: What makes a value of an element.
  /// - Returns: The values, in order.
  /// - Throws: ``JSONReadError`` when this is not an array or `read` fails.
  package func readElements<Value>(_ read: (JSONValue) throws(JSONReadError) -> Value)
    throws(JSONReadError) -> [Value]
  {
    var values: [Value] = []
    for (offset, element) in try arrayValue().enumerated() {
      do {
        values.append(try read(element))
      } catch {
        throw error.within(String(offset))
      }
    }
    return values
  }

  /// Reads each member of this object.
  ///
  /// - Parameter read: What makes a value of a member.
  /// - Returns: The values by member name (the last, where a name repeats).
  /// - Throws: ``JSONReadError`` when this is not an object or `read` fails.
  package func readMembers<Value>(_ read: (JSONValue) throws(JSONReadError) -> Value)
    throws(JSONReadError) -> [String: Value]
  {
    var values: [String: Value] = [:]
    for (key, member) in try objectValue() {
      do {
        values[key] = try read(member)
      } catch {
        throw error.within(key)
      }
    }
    return values
  }

  /// Reads a string member of this object, which must be there.
  ///
  /// - Parameter key: The member's name.
  /// - Returns: The string.
  /// - Throws: ``JSONReadError`` when this is not an object, or the member is missing or not a
  ///   string.
  package func readString(_ key: String) throws(JSONReadError) -> String {
    try read(key) { value throws(JSONReadError) in try value.stringValue() }
  }

  /// Reads an integer member of this object, which must be there.
  ///
  /// - Parameter key: The member's name.
  /// - Returns: The integer.
  /// - Throws: ``JSONReadError`` when this is not an object, or the member is missing or not an
  ///   integer.
  package func readInt(_ key: String) throws(JSONReadError) -> Int {
    try read(key) { value throws(JSONReadError) in try value.intValue() }
  }

  /// Reads a Boolean member of this object, which must be there.
  ///
  /// - Parameter key: The member's name.
  /// - Returns: The Boolean.
  /// - Throws: ``JSONReadError`` when this is not an object, or the member is missing or not a
  ///   Boolean.
  package func readBool(_ key: String) throws(JSONReadError) -> Bool {
    try read(key) { value throws(JSONReadError) in try value.boolValue() }
  }

  /// Reads a floating-point member of this object, which must be there.
  ///
  /// - Parameter key: The member's name.
  /// - Returns: The number.
  /// - Throws: ``JSONReadError`` when this is not an object, or the member is missing or not a
  ///   number.
  package func readDouble(_ key: String) throws(JSONReadError) -> Double {
    try read(key) { value throws(JSONReadError) in try value.doubleValue() }
  }

  /// Reads a date member of this object (``date(_:)``), which must be there.
  ///
  /// - Parameter key: The member's name.
  /// - Returns: The date.
  /// - Throws: ``JSONReadError`` when this is not an object, or the member is missing or not a
  ///   number.
  package func readDate(_ key: String) throws(JSONReadError) -> Date {
    try read(key) { value throws(JSONReadError) in try value.dateValue() }
  }
}
