#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What can go wrong encoding or decoding a ``NavigationPath``, or registering an element type.
///
/// Positions count path elements from the root, starting at 1.
public enum NavigationPathError: Error, Sendable, Hashable, LocalizedError {
  /// A type or a name is already registered the other way.
  case registrationConflict(name: String)
  /// The element at a position is not `Codable`, so the path has no codable representation.
  case notCodable(position: Int, typeName: String)
  /// The element at a position is `Codable`, but its type has no registered name.
  case unregisteredType(position: Int, typeName: String)
  /// The element at a position could not be encoded (a `Double` that is not finite, say).
  case encodingFailed(position: Int, typeName: String, reason: String)
  /// The representation is not JSON.
  case notJSON(reason: String)
  /// The representation is JSON, but not an array.
  case notAnArray
  /// An entry of the array, counted from its start at 1, is not a string.
  case notAString(index: Int)
  /// The array has an odd number of strings, so its first string has no partner.
  case oddCount(Int)
  /// The element at a position has a type name that is not registered.
  case unknownTypeName(String, position: Int)
  /// The element at a position has a value that does not decode as its type.
  case undecodableValue(typeName: String, position: Int, reason: String)

  /// The message: what is wrong, with the values involved in quotes.
  public var errorDescription: String? {
    switch self {
    case .registrationConflict(let name):
      "'\(name)' or its type is already registered differently; register each type once, under one name"
    case .notCodable(let position, let typeName):
      "path element \(position) ('\(typeName)') is not Codable"
    case .unregisteredType(let position, let typeName):
      "path element \(position) ('\(typeName)') has no registered name; register it with NavigationTypeRegistry.register(_:as:)"
    case .encodingFailed(let position, let typeName, let reason):
      "path element \(position) ('\(typeName)') could not be encoded: \(reason)"
    case .notJSON(let reason):
      "the path is not JSON: \(reason)"
    case .notAnArray:
      "the path is not a JSON array"
    case .notAString(let index):
      "entry \(index) of the path is not a string"
    case .oddCount(let count):
      "the path has an odd number of strings (\(count)), so its last element is incomplete"
    case .unknownTypeName(let name, let position):
      "path element \(position) has the unknown type '\(name.abbreviated)'"
    case .undecodableValue(let typeName, let position, let reason):
      "path element \(position) is not a valid '\(typeName.abbreviated)': \(reason)"
    }
  }
}

extension String {
  /// The string cut to 60 characters, for messages that quote what a file held.
  var abbreviated: String {
    count <= 60 ? self : prefix(59) + "…"
  }
}
