#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A type that scene storage keeps natively, with its own tag on disk.
///
/// `Bool`, `Int`, `Double`, `String`, `URL`, `Data` and `Date` conform, as in SwiftUI's
/// `SceneStorage` (plus `Date`). Other `Codable` types are stored through their JSON encoding,
/// and `RawRepresentable` types through their raw value; you do not conform them yourself.
///
/// The protocol refines `Codable` so that, for a type that is both, the scene-storage
/// initializers taking `SceneStorable` are chosen over the ones taking any `Codable`.
public protocol SceneStorable: Codable, Sendable {
  /// The value as it is stored.
  var storedValue: StoredValue { get }

  /// Reads a value back, or returns nil when the stored value has another type.
  ///
  /// - Parameter storedValue: What the storage holds under the key.
  init?(storedValue: StoredValue)
}

extension Bool: SceneStorable {
  /// The value as it is stored.
  public var storedValue: StoredValue { .bool(self) }

  /// Reads a Boolean back; nil for any other stored type.
  ///
  /// - Parameter storedValue: What the storage holds under the key.
  public init?(storedValue: StoredValue) {
    guard case .bool(let value) = storedValue else { return nil }
    self = value
  }
}

extension Int: SceneStorable {
  /// The value as it is stored.
  public var storedValue: StoredValue { .int(self) }

  /// Reads an integer back; nil for any other stored type.
  ///
  /// - Parameter storedValue: What the storage holds under the key.
  public init?(storedValue: StoredValue) {
    guard case .int(let value) = storedValue else { return nil }
    self = value
  }
}

extension Double: SceneStorable {
  /// The value as it is stored.
  public var storedValue: StoredValue { .double(self) }

  /// Reads a double back; nil for any other stored type.
  ///
  /// - Parameter storedValue: What the storage holds under the key.
  public init?(storedValue: StoredValue) {
    guard case .double(let value) = storedValue else { return nil }
    self = value
  }
}

extension String: SceneStorable {
  /// The value as it is stored.
  public var storedValue: StoredValue { .string(self) }

  /// Reads a string back; nil for any other stored type.
  ///
  /// - Parameter storedValue: What the storage holds under the key.
  public init?(storedValue: StoredValue) {
    guard case .string(let value) = storedValue else { return nil }
    self = value
  }
}

extension URL: SceneStorable {
  /// The value as it is stored.
  public var storedValue: StoredValue { .url(self) }

  /// Reads a URL back; nil for any other stored type.
  ///
  /// - Parameter storedValue: What the storage holds under the key.
  public init?(storedValue: StoredValue) {
    guard case .url(let value) = storedValue else { return nil }
    self = value
  }
}

extension Data: SceneStorable {
  /// The value as it is stored.
  public var storedValue: StoredValue { .data(self) }

  /// Reads bytes back; nil for any other stored type.
  ///
  /// - Parameter storedValue: What the storage holds under the key.
  public init?(storedValue: StoredValue) {
    guard case .data(let value) = storedValue else { return nil }
    self = value
  }
}

extension Date: SceneStorable {
  /// The value as it is stored.
  public var storedValue: StoredValue { .date(self) }

  /// Reads a date back; nil for any other stored type.
  ///
  /// - Parameter storedValue: What the storage holds under the key.
  public init?(storedValue: StoredValue) {
    guard case .date(let value) = storedValue else { return nil }
    self = value
  }
}
