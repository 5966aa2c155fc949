/// A list of values that represents a navigation stack's contents, from the root to what is
/// on top, like SwiftUI's `NavigationPath`: its elements may be of different types.
///
/// A path saves through its ``codable`` representation, written in SwiftUI's format. Each
/// element's type needs a stable name in a ``NavigationTypeRegistry``; the common value types
/// have one already.
///
/// ```swift
/// var path = NavigationPath()
/// path.append(product.id)  // a UUID
/// path.append(2015)
/// let data = path.codable?.jsonData
/// ```
///
/// Elements are `Sendable` as well as `Hashable`, so that a path can cross concurrency domains
/// in Swift 6.
public struct NavigationPath: Sendable, Equatable {
  private struct Element: Sendable, Equatable {
    let base: any Hashable & Sendable

    static func == (lhs: Element, rhs: Element) -> Bool {
      AnyHashable(lhs.base) == AnyHashable(rhs.base)
    }
  }

  private var storage: [Element]

  /// Creates an empty path: the stack's root.
  public init() {
    storage = []
  }

  /// Creates a path of elements of one type.
  ///
  /// - Parameter elements: The elements, root first.
  /// - Complexity: O(*n*) in the number of elements.
  public init<Elements: Sequence>(_ elements: Elements)
  where Elements.Element: Hashable & Sendable {
    storage = elements.map { Element(base: $0) }
  }

  /// Creates a path from a codable representation: its elements that could be decoded.
  ///
  /// - Parameter codable: The representation.
  /// - Complexity: O(*n*) in the number of elements.
  public init(_ codable: CodableRepresentation) {
    storage = codable.items.map { Element(base: $0.value) }
  }

  /// The number of elements.
  public var count: Int { storage.count }

  /// Whether the path is at the root.
  public var isEmpty: Bool { storage.isEmpty }

  /// The elements, root first.
  public var elements: [any Hashable & Sendable] {
    storage.map(\.base)
  }

  /// The element at a position as a given type, if it is one.
  ///
  /// - Parameters:
  ///   - index: The position, 0 for the element next to the root.
  ///   - type: The type to read it as.
  /// - Returns: The element, or nil when the index is out of range or the type differs.
  public func element<Value: Hashable>(at index: Int, as type: Value.Type = Value.self) -> Value? {
    guard storage.indices.contains(index) else { return nil }
    return storage[index].base as? Value
  }

  /// Appends a value: pushes it onto the stack.
  ///
  /// - Parameter value: The value.
  public mutating func append<Value: Hashable & Sendable>(_ value: Value) {
    storage.append(Element(base: value))
  }

  /// Removes values from the end of the path: pops them off the stack.
  ///
  /// - Parameter count: How many to remove; at most ``count``.
  /// - Precondition: `count` is between 0 and ``count``, as for `Array.removeLast(_:)`.
  public mutating func removeLast(_ count: Int = 1) {
    storage.removeLast(count)
  }

  /// The path's codable representation; nil when an element is not `Codable` or cannot be
  /// encoded. ``codableRepresentation(using:)`` says which element and why.
  ///
  /// - Complexity: O(*n*) in the number of elements.
  public var codable: CodableRepresentation? {
    try? codableRepresentation()
  }

  /// The path's codable representation, or why it has none.
  ///
  /// An element of a registered type is written under its registered name; any other
  /// `Codable` element under its qualified type name, as SwiftUI writes it (`MyApp.Point`),
  /// which reading finds the type by.
  ///
  /// - Parameter registry: The type names to write; the shared registry by default.
  /// - Returns: The representation.
  /// - Throws: ``StateRestorationError/notCodable(position:typeName:)`` or
  ///   ``StateRestorationError/encodingFailed(position:typeName:reason:)`` for the first element
  ///   that cannot be written.
  /// - Complexity: O(*n*) in the number of elements.
  public func codableRepresentation(using registry: NavigationTypeRegistry = .shared)
    throws(StateRestorationError) -> CodableRepresentation
  {
    var items: [CodableRepresentation.Item] = []
    items.reserveCapacity(storage.count)
    for (index, element) in elements.enumerated() {
      // Named only for an error: `String(reflecting:)` searched the runtime's conformance
      // records (megabytes of them, Foundation being linked in) at every launch.
      var typeName: String { _typeName(type(of: element), qualified: true) }
      do {
        if let entry = registry.entry(for: element) {
          items.append(.init(typeName: entry.name, json: try entry.encode(element), value: element))
        } else if let encodable = element as? any Encodable, element is any Decodable {
          // As SwiftUI does: the type's qualified name, which reading finds the type by.
          items.append(
            .init(typeName: typeName, json: try ElementEncoder.encode(encodable), value: element))
        } else {
          throw StateRestorationError.notCodable(position: index + 1, typeName: typeName)
        }
      } catch let error as StateRestorationError {
        throw error
      } catch {
        throw .encodingFailed(
          position: index + 1, typeName: typeName, reason: "\(error)")
      }
    }
    return CodableRepresentation(items: items)
  }

  /// Returns whether two paths hold equal elements in the same order.
  ///
  /// - Parameters:
  ///   - lhs: A path.
  ///   - rhs: Another path.
  /// - Returns: Whether they are equal.
  public static func == (lhs: NavigationPath, rhs: NavigationPath) -> Bool {
    lhs.storage == rhs.storage
  }
}
