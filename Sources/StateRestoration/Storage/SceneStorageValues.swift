package import SystemSupport

/// The contents of one scene's storage: named, typed values.
///
/// A value type, so that applying a change to a scene's state can be a pure function; the
/// reference-type ``SceneStore`` wraps one for code that shares it, such as ``SceneStorage``.
public struct SceneStorageValues: Sendable, Hashable, Codable {
  /// The stored values by key name.
  public var entries: [String: StoredValue]

  /// Creates storage holding the given values.
  ///
  /// - Parameter entries: The stored values by key name; empty by default.
  public init(_ entries: [String: StoredValue] = [:]) {
    self.entries = entries
  }

  /// The key names present, in ascending order.
  ///
  /// - Complexity: O(*n* log *n*) in the number of keys.
  public var keys: [String] { entries.keys.sorted() }

  /// Whether the storage holds no value.
  public var isEmpty: Bool { entries.isEmpty }

  /// The value under a typed key: the key's default when absent or stored as another type.
  /// Setting a value that stores as nil (an optional set to nil) removes the key; a value
  /// stored before that the key cannot read is kept aside (``setValue(_:for:)``).
  ///
  /// - Parameter key: The typed key.
  public subscript<Value>(key: SceneStorageKey<Value>) -> Value {
    get { key.value(from: entries[key.name]) }
    set { setValue(newValue, for: key) }
  }

  /// Sets the value under a typed key. A value stored before that the key cannot read — stored
  /// as another type, or a `Codable` value that no longer decodes — is never lost: it moves to
  /// a key of its own (`NAME.unreadable`, then `NAME.unreadable-2`, …), which is saved with
  /// the scene.
  ///
  /// - Parameters:
  ///   - value: The new value; one that stores as nil removes the key.
  ///   - key: The typed key.
  /// - Returns: The value kept aside, if one was.
  @discardableResult
  public mutating func setValue<Value>(_ value: Value, for key: SceneStorageKey<Value>)
    -> SetAsideValue?
  {
    var setAside: SetAsideValue?
    if let old = entries[key.name], !key.canRead(old) {
      var keptAs = key.name + ".unreadable"
      var number = 1
      while entries[keptAs] != nil {
        number += 1
        keptAs = key.name + ".unreadable-\(number)"
      }
      entries[keptAs] = old
      setAside = SetAsideValue(key: key.name, keptAs: keptAs, storedType: old.typeName)
    }
    entries[key.name] = key.storedValue(for: value)
    return setAside
  }

  /// Removes the value under a key name, if any.
  ///
  /// - Parameter name: The key's name.
  public mutating func removeValue(forKey name: String) {
    entries[name] = nil
  }

  /// Decodes the storage from an object of typed values.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when a value is not a valid typed value.
  public init(from decoder: any Decoder) throws {
    entries = try decoder.singleValueContainer().decode([String: StoredValue].self)
  }

  /// Encodes the storage as an object of typed values.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: `EncodingError` from the encoder.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(entries)
  }
}

extension SceneStorageValues: JSONRepresentable {
  /// Reads the storage from an object of typed values.
  ///
  /// - Parameter json: The JSON.
  /// - Throws: ``JSONReadError`` when a value is not a valid typed value.
  package init(json: JSONValue) throws(JSONReadError) {
    entries = try json.readMembers { value throws(JSONReadError) in try StoredValue(json: value) }
  }

  /// The storage as an object of typed values.
  package var json: JSONValue { .object(sorting: entries.mapValues(\.json)) }
}

/// A stored value that scene storage kept rather than lose: the program set a key whose value
/// it could not read as the key's type (stored by an earlier version as another type, say), and
/// the old value moved to a key of its own.
public struct SetAsideValue: Sendable, Hashable, CustomStringConvertible {
  /// The key the program set.
  public let key: String
  /// The key the old value is kept under.
  public let keptAs: String
  /// The old value's stored type (``StoredValue/typeName``).
  public let storedType: String

  /// One line for the user.
  public var description: String {
    "the stored value of '\(key)' (\(storedType)) does not read as the type this program "
      + "declares; kept it as '\(keptAs)'"
  }
}
