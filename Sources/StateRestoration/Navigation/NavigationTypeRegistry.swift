import Synchronization
internal import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The stable names under which navigation path elements are written, and the types they
/// decode to.
///
/// SwiftUI names an element's type after the module it happens to live in, so moving or
/// renaming a type throws saved paths away. Here a name is chosen once and registered:
///
/// ```swift
/// try NavigationTypeRegistry.register(Recipe.ID.self, as: "recipes.RecipeID")
/// ```
///
/// The built-in names are `Swift.Int`, `Swift.String`, `Swift.Bool`, `Swift.Double`,
/// `Foundation.UUID`, `Foundation.URL` and `Foundation.Date`, as SwiftUI writes them.
public struct NavigationTypeRegistry: Sendable {
  struct Entry: Sendable {
    let name: String
    let type: ObjectIdentifier
    let encode: @Sendable (any Hashable & Sendable) throws -> String
    let decode: @Sendable (String) throws -> any Hashable & Sendable
  }

  /// The registered types, looked through in order: a registry holds a handful, and a
  /// dictionary keyed by `ObjectIdentifier` would cost every program that reads a path a search
  /// of all the binary's protocol conformances at run time, to build its storage.
  private var entries: [Entry] = []

  /// A registry of the built-in types only.
  public static let builtIn: NavigationTypeRegistry = {
    var registry = NavigationTypeRegistry(empty: ())
    // Read by hand, as `JSONDecoder` reads them, without its generic machinery: a path is
    // read at every launch.
    registry.add(Int.self, as: "Swift.Int") { json throws(JSONReadError) in try json.intValue() }
    registry.add(String.self, as: "Swift.String") { json throws(JSONReadError) in
      try json.stringValue()
    }
    registry.add(Bool.self, as: "Swift.Bool") { json throws(JSONReadError) in try json.boolValue() }
    registry.add(Double.self, as: "Swift.Double") { json throws(JSONReadError) in
      try json.doubleValue()
    }
    registry.add(UUID.self, as: "Foundation.UUID") { json throws(JSONReadError) in
      let text = try json.stringValue()
      guard let uuid = UUID(canonical: text) else {
        throw JSONReadError("'\(text)' is not a UUID")
      }
      return uuid
    }
    registry.add(URL.self, as: "Foundation.URL") { json throws(JSONReadError) in
      let text = try json.stringValue()
      guard let url = URL(string: text) else { throw JSONReadError("'\(text)' is not a URL") }
      return url
    }
    registry.add(Date.self, as: "Foundation.Date") { json throws(JSONReadError) in
      try json.dateValue()
    }
    return registry
  }()

  private static let sharedRegistry = Mutex(builtIn)

  /// The registry that ``NavigationPath/codable`` and ``NavigationPath/CodableRepresentation``
  /// use unless told otherwise: the built-in types and those registered with
  /// `register(_:as:)`.
  public static var shared: NavigationTypeRegistry {
    sharedRegistry.withLock { $0 }
  }

  private init(empty: Void) {}

  /// Creates a registry of the built-in types.
  public init() {
    self = Self.builtIn
  }

  /// The name a type is registered under, if it is.
  ///
  /// - Parameter type: The type.
  /// - Returns: The stable name, or nil.
  public func name(of type: Any.Type) -> String? {
    entry(ofType: ObjectIdentifier(type))?.name
  }

  /// Registers a type under a name, in this registry.
  ///
  /// Registering the same type under the same name again does nothing.
  ///
  /// - Parameters:
  ///   - type: The type of path elements to encode and decode.
  ///   - name: The stable name written in front of each element's value.
  /// - Throws: ``StateRestorationError/registrationConflict(name:)`` when the name or the type is
  ///   already registered the other way.
  public mutating func register<Value: Codable & Hashable & Sendable>(
    _ type: Value.Type, as name: String
  ) throws(StateRestorationError) {
    let existingName = self.name(of: type)
    if existingName == name { return }
    guard existingName == nil, entry(named: name) == nil, !name.isEmpty else {
      throw .registrationConflict(name: name)
    }
    add(type, as: name)
  }

  /// Registers a type under a name in the ``shared`` registry, for the whole program.
  ///
  /// - Parameters:
  ///   - type: The type of path elements to encode and decode.
  ///   - name: The stable name written in front of each element's value.
  /// - Throws: ``StateRestorationError/registrationConflict(name:)`` when the name or the type is
  ///   already registered the other way.
  public static func register<Value: Codable & Hashable & Sendable>(
    _ type: Value.Type, as name: String
  ) throws(StateRestorationError) {
    try sharedRegistry.withLock { registry throws(StateRestorationError) in
      try registry.register(type, as: name)
    }
  }

  /// Decodes an element written under a type name: a registered name's type, or else the
  /// program's `Codable` type of that qualified name (``programType(named:)``).
  ///
  /// - Parameters:
  ///   - json: The element's JSON.
  ///   - name: The type name written beside it.
  /// - Returns: The value; nil when no type of that name is known.
  /// - Throws: The decoding error of a value that does not decode as its type.
  func decode(_ json: String, typeNamed name: String) throws -> (any Hashable & Sendable)? {
    if let entry = entry(named: name) { return try entry.decode(json) }
    guard let type = Self.programType(named: name) else { return nil }
    return try Self.decode(type, from: json)
  }

  private static func decode<Value: Decodable & Hashable & Sendable>(
    _ type: Value.Type, from json: String
  ) throws -> any Hashable & Sendable {
    try JSONDecoder().decode(Value.self, from: Data(json.utf8))
  }

  /// The `Codable` type a qualified name (`MyApp.Point`, `MyApp.Screen.Tab`) names in this
  /// program, found as SwiftUI finds it, without registration. The runtime finds a type by
  /// its mangled name where it cannot by the qualified one, so each mangling the name may
  /// have — each nested type a struct, a class or an enum — is tried, and the type found
  /// must give back the same name.
  ///
  /// - Parameter name: The qualified name.
  /// - Returns: The type; nil for a name no `Codable`, `Hashable` and `Sendable` type of the
  ///   program has (a generic or private type, say, which must be registered).
  static func programType(named name: String) -> (any (Decodable & Hashable & Sendable).Type)? {
    func decodable(_ type: Any.Type?) -> (any (Decodable & Hashable & Sendable).Type)? {
      guard let type, _typeName(type, qualified: true) == name else { return nil }
      return type as? any (Decodable & Hashable & Sendable).Type
    }
    if let type = decodable(_typeByName(name)) { return type }
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    // A module and up to four nested types: 3⁴ manglings at most.
    guard parts.count >= 2, parts.count <= 5, parts.allSatisfy(isPlainIdentifier) else {
      return nil
    }
    var manglings = ["\(parts[0].utf8.count)\(parts[0])"]
    for part in parts.dropFirst() {
      manglings = manglings.flatMap { prefix in
        ["V", "O", "C"].map { prefix + "\(part.utf8.count)\(part)" + $0 }
      }
    }
    for mangling in manglings {
      if let type = decodable(_typeByName(mangling)) { return type }
    }
    return nil
  }

  /// Whether a name part is an ASCII identifier, which mangles as its length and itself.
  private static func isPlainIdentifier(_ part: Substring) -> Bool {
    guard let first = part.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
    else { return false }
    return part.utf8.allSatisfy { byte in
      byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
  }

  func entry(named name: String) -> Entry? {
    entries.first { $0.name == name }
  }

  func entry(for value: any Hashable & Sendable) -> Entry? {
    entry(ofType: ObjectIdentifier(type(of: value)))
  }

  private func entry(ofType type: ObjectIdentifier) -> Entry? {
    entries.first { $0.type == type }
  }

  /// Adds a type under a name; its elements are read from their JSON by `read` when given (the
  /// built-in types, without `JSONDecoder`'s generic machinery), by `JSONDecoder` otherwise.
  private mutating func add<Value: Codable & Hashable & Sendable>(
    _ type: Value.Type, as name: String,
    reading read: (@Sendable (JSONValue) throws(JSONReadError) -> Value)? = nil
  ) {
    let entry = Entry(
      name: name, type: ObjectIdentifier(type),
      encode: { value in
        guard let typed = value as? Value else {
          throw EncodingError.invalidValue(
            value, .init(codingPath: [], debugDescription: "not a \(name)"))
        }
        // As SwiftUI does: keys in the order the type encodes them and `/` escaped, so that an
        // element's bytes equal SwiftUI's for the same value.
        return try ElementEncoder.encode(typed)
      },
      decode: { json in
        if let read { return try read(JSONValue(parsing: json.utf8)) }
        return try JSONDecoder().decode(Value.self, from: Data(json.utf8))
      })
    entries.append(entry)
  }
}
