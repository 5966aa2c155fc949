import Foundation

/// One element of a scene's navigation path.
package enum Route: Sendable, Hashable {
  /// A product's detail.
  case product(UUID)
}

/// A scene's navigation path, from the root (the product list) to what is on top.
///
/// It is stored under `navigationState` in SwiftUI's codable representation: a flat JSON array
/// of strings, type name then JSON-encoded value, last element first.
package struct ScenePath: Sendable, Hashable {
  /// The elements, root first.
  package var routes: [Route]

  /// Creates a path.
  ///
  /// - Parameter routes: The elements, root first; empty for the root.
  package init(_ routes: [Route] = []) {
    self.routes = routes
  }

  /// The product whose detail is on top, if the top element is a product.
  package var topProduct: UUID? {
    guard case .product(let identifier)? = routes.last else { return nil }
    return identifier
  }

  /// The path in SwiftUI's codable representation.
  package var codableRepresentation: Data {
    var strings: [String] = []
    for route in routes.reversed() {
      switch route {
      case .product(let identifier):
        strings += ["Foundation.UUID", "\"\(identifier.uuidString)\""]
      }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return (try? encoder.encode(strings)) ?? Data("[]".utf8)
  }

  /// Decodes a codable representation, keeping its longest decodable prefix from the root.
  ///
  /// - Parameter data: The representation.
  /// - Returns: The path and, when something was dropped, why.
  package static func decoding(_ data: Data) -> (path: ScenePath, problem: String?) {
    guard let strings = try? JSONDecoder().decode([String].self, from: data) else {
      return (ScenePath(), "the saved path is not a list of strings")
    }
    guard strings.count.isMultiple(of: 2) else {
      return (ScenePath(), "the saved path has an odd number of elements")
    }
    var routes: [Route] = []
    // Root first: the representation lists the last element first.
    for index in stride(from: strings.count - 2, through: 0, by: -2) {
      let type = strings[index]
      let value = strings[index + 1]
      guard type == "Foundation.UUID" else {
        return (ScenePath(routes), "unknown type '\(type)' in the saved path")
      }
      guard let text = try? JSONDecoder().decode(String.self, from: Data(value.utf8)),
        let identifier = UUID(uuidString: text)
      else {
        return (ScenePath(routes), "'\(value)' in the saved path is not a UUID")
      }
      routes.append(.product(identifier))
    }
    return (ScenePath(routes), nil)
  }
}
