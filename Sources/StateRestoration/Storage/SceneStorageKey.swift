package import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A typed name for one value in a scene's storage, with the default read when it is absent.
///
/// A key knows how to turn its value into a ``StoredValue`` and back, so that a value stored
/// under one type and read as another yields the default instead of a crash. Keys are usually
/// static constants:
///
/// ```swift
/// extension SceneStorageKey where Value == Tabs {
///   static let selectedTab = SceneStorageKey("DetailView.selectedTab", default: .detail)
/// }
/// ```
///
/// The initializers mirror `@SceneStorage`'s: native ``SceneStorable`` types, `RawRepresentable`
/// types with `String` or `Int` raw values, any `Codable` type, and optionals of each (for which
/// setting nil removes the key).
public struct SceneStorageKey<Value: Sendable>: Sendable {
  /// The key's name in the storage, such as `DetailView.selectedTab`.
  public let name: String
  /// The value read when the key is absent or holds a value of another type.
  public let defaultValue: Value
  private let decode: @Sendable (StoredValue) -> Value?
  private let encode: @Sendable (Value) -> StoredValue?

  private init(
    name: String,
    defaultValue: Value,
    decode: @escaping @Sendable (StoredValue) -> Value?,
    encode: @escaping @Sendable (Value) -> StoredValue?
  ) {
    self.name = name
    self.defaultValue = defaultValue
    self.decode = decode
    self.encode = encode
  }

  /// Reads this key's value from a stored value.
  ///
  /// - Parameter stored: What the storage holds, or nil when the key is absent.
  /// - Returns: The decoded value, or ``defaultValue`` when it is absent or of another type.
  package func value(from stored: StoredValue?) -> Value {
    stored.flatMap(decode) ?? defaultValue
  }

  /// Whether a stored value reads as this key's type: false for a value stored as another
  /// type, or a `Codable` value that no longer decodes.
  ///
  /// - Parameter stored: What the storage holds under the key.
  /// - Returns: Whether ``value(from:)`` reads it rather than falling back to the default.
  package func canRead(_ stored: StoredValue) -> Bool {
    decode(stored) != nil
  }

  /// Turns a value into what the storage keeps.
  ///
  /// - Parameter value: The value to store.
  /// - Returns: The stored value, or nil when the key should be removed (an optional set to
  ///   nil, or a `Codable` value that cannot be encoded).
  package func storedValue(for value: Value) -> StoredValue? {
    encode(value)
  }
}

extension SceneStorageKey {
  /// A key for a natively stored type: `Bool`, `Int`, `Double`, `String`, `URL`, `Data`, `Date`.
  ///
  /// - Parameters:
  ///   - name: The key's name in the storage.
  ///   - defaultValue: The value read when the key is absent or holds another type.
  public init(_ name: String, default defaultValue: Value) where Value: SceneStorable {
    self.init(
      name: name, defaultValue: defaultValue, decode: { Value(storedValue: $0) },
      encode: { $0.storedValue })
  }

  /// A key for a type stored through its `String` raw value, like SwiftUI's `Tabs` enums.
  ///
  /// - Parameters:
  ///   - name: The key's name in the storage.
  ///   - defaultValue: The value read when the key is absent or holds no valid raw value.
  public init(_ name: String, default defaultValue: Value)
  where Value: RawRepresentable, Value.RawValue == String {
    self.init(
      name: name, defaultValue: defaultValue, decode: Self.fromRawString, encode: Self.rawString)
  }

  /// A key for a type stored through its `Int` raw value.
  ///
  /// - Parameters:
  ///   - name: The key's name in the storage.
  ///   - defaultValue: The value read when the key is absent or holds no valid raw value.
  public init(_ name: String, default defaultValue: Value)
  where Value: RawRepresentable, Value.RawValue == Int {
    self.init(name: name, defaultValue: defaultValue, decode: Self.fromRawInt, encode: Self.rawInt)
  }

  /// A key for a `Codable` type with a `String` raw value: stored through the raw value.
  ///
  /// - Parameters:
  ///   - name: The key's name in the storage.
  ///   - defaultValue: The value read when the key is absent or holds no valid raw value.
  public init(_ name: String, default defaultValue: Value)
  where Value: RawRepresentable & Codable, Value.RawValue == String {
    self.init(
      name: name, defaultValue: defaultValue, decode: Self.fromRawString, encode: Self.rawString)
  }

  /// A key for a `Codable` type with an `Int` raw value: stored through the raw value.
  ///
  /// - Parameters:
  ///   - name: The key's name in the storage.
  ///   - defaultValue: The value read when the key is absent or holds no valid raw value.
  public init(_ name: String, default defaultValue: Value)
  where Value: RawRepresentable & Codable, Value.RawValue == Int {
    self.init(name: name, defaultValue: defaultValue, decode: Self.fromRawInt, encode: Self.rawInt)
  }

  /// A key for any `Codable` type, stored as its JSON encoding (beyond what SwiftUI offers).
  ///
  /// - Parameters:
  ///   - name: The key's name in the storage.
  ///   - defaultValue: The value read when the key is absent or does not decode as `Value`.
  public init(_ name: String, default defaultValue: Value) where Value: Codable {
    self.init(
      name: name, defaultValue: defaultValue, decode: CodableStorage.decode,
      encode: CodableStorage.encode)
  }

  /// A key for an optional natively stored type; setting nil removes the key.
  ///
  /// - Parameter name: The key's name in the storage.
  public init<Wrapped>(_ name: String) where Value == Wrapped?, Wrapped: SceneStorable {
    self.init(
      name: name, defaultValue: nil, decode: { Wrapped(storedValue: $0).map(Optional.some) },
      encode: { $0?.storedValue })
  }

  /// A key for an optional type with a `String` raw value; setting nil removes the key.
  ///
  /// - Parameter name: The key's name in the storage.
  public init<Wrapped>(_ name: String)
  where Value == Wrapped?, Wrapped: RawRepresentable & Sendable, Wrapped.RawValue == String {
    self.init(
      name: name, defaultValue: nil,
      decode: { SceneStorageKey<Wrapped>.fromRawString($0).map(Optional.some) },
      encode: { $0.flatMap(SceneStorageKey<Wrapped>.rawString) })
  }

  /// A key for an optional type with an `Int` raw value; setting nil removes the key.
  ///
  /// - Parameter name: The key's name in the storage.
  public init<Wrapped>(_ name: String)
  where Value == Wrapped?, Wrapped: RawRepresentable & Sendable, Wrapped.RawValue == Int {
    self.init(
      name: name, defaultValue: nil,
      decode: { SceneStorageKey<Wrapped>.fromRawInt($0).map(Optional.some) },
      encode: { $0.flatMap(SceneStorageKey<Wrapped>.rawInt) })
  }

  /// A key for a `Codable` type that is also ``JSONRepresentable``: stored as the same JSON,
  /// read and written by hand, which spares a program `Codable`'s first-use cost at launch.
  ///
  /// - Parameters:
  ///   - name: The key's name in the storage.
  ///   - defaultValue: The value read when the key is absent or does not decode as `Value`.
  package init(_ name: String, default defaultValue: Value)
  where Value: Codable & JSONRepresentable {
    self.init(
      name: name, defaultValue: defaultValue, decode: CodableStorage.read,
      encode: CodableStorage.write)
  }

  /// A key for an optional `Codable` type that is also ``JSONRepresentable``, read and written
  /// by hand; setting nil removes the key.
  ///
  /// - Parameter name: The key's name in the storage.
  package init<Wrapped>(_ name: String)
  where Value == Wrapped?, Wrapped: Codable & JSONRepresentable & Sendable {
    self.init(
      name: name, defaultValue: nil,
      decode: { (CodableStorage.read($0) as Wrapped?).map(Optional.some) },
      encode: { $0.flatMap(CodableStorage.write) })
  }

  /// A key for an optional `Codable` type; setting nil removes the key.
  ///
  /// - Parameter name: The key's name in the storage.
  public init<Wrapped>(_ name: String) where Value == Wrapped?, Wrapped: Codable & Sendable {
    self.init(
      name: name, defaultValue: nil,
      decode: { (CodableStorage.decode($0) as Wrapped?).map(Optional.some) },
      encode: { $0.flatMap(CodableStorage.encode) })
  }
}

extension SceneStorageKey where Value: RawRepresentable, Value.RawValue == String {
  @Sendable fileprivate static func fromRawString(_ stored: StoredValue) -> Value? {
    guard case .string(let raw) = stored else { return nil }
    return Value(rawValue: raw)
  }

  @Sendable fileprivate static func rawString(_ value: Value) -> StoredValue? {
    .string(value.rawValue)
  }
}

extension SceneStorageKey where Value: RawRepresentable, Value.RawValue == Int {
  @Sendable fileprivate static func fromRawInt(_ stored: StoredValue) -> Value? {
    guard case .int(let raw) = stored else { return nil }
    return Value(rawValue: raw)
  }

  @Sendable fileprivate static func rawInt(_ value: Value) -> StoredValue? {
    .int(value.rawValue)
  }
}

/// JSON encoding of `Codable` values for storage, with sorted keys so equal values store equally.
private enum CodableStorage {
  static func decode<Value: Decodable>(_ stored: StoredValue) -> Value? {
    guard case .codable(let json) = stored else { return nil }
    return try? JSONDecoder().decode(Value.self, from: json)
  }

  static func read<Value: JSONRepresentable>(_ stored: StoredValue) -> Value? {
    guard case .codable(let json) = stored else { return nil }
    return try? Value(json: JSONValue(parsing: json))
  }

  static func write<Value: JSONRepresentable>(_ value: Value) -> StoredValue? {
    .codable(Data(value.json.serialized(sortingKeys: true)))
  }

  static func encode<Value: Encodable>(_ value: Value) -> StoredValue? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)).map(StoredValue.codable)
  }
}
