import Foundation
import StateRestoration

/// One element of a scene's navigation path.
package enum Route: Sendable, Hashable {
  /// A product's detail.
  case product(UUID)
  /// The list of a year's products.
  case year(Int)

  /// The years a path may hold, as the editor accepts them.
  package static let years = 1900...2100

}

/// A scene's navigation path, from the root (the product list) to what is on top.
///
/// It is stored under `navigationState` as a `NavigationPath`'s codable representation.
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

  /// The year whose list is on top, if the top element is a year.
  package var topYear: Int? {
    guard case .year(let year)? = routes.last else { return nil }
    return year
  }

  /// The path as a `NavigationPath`.
  package var navigationPath: NavigationPath {
    var path = NavigationPath()
    for route in routes {
      switch route {
      case .product(let identifier): path.append(identifier)
      case .year(let year): path.append(year)
      }
    }
    return path
  }

  /// The path in SwiftUI's codable representation.
  package var codableRepresentation: Data {
    // UUIDs and Ints always have a representation.
    navigationPath.codable?.jsonData ?? Data("[]".utf8)
  }

  /// Decodes a codable representation, keeping its longest prefix from the root that decodes
  /// and holds only products and years in 1900...2100.
  ///
  /// - Parameter data: The representation.
  /// - Returns: The path and, when something was dropped, why.
  package static func decoding(_ data: Data) -> (path: ScenePath, problem: String?) {
    let representation = NavigationPath.CodableRepresentation(jsonData: data, registry: .builtIn)
    let decoded = NavigationPath(representation)
    var routes: [Route] = []
    for index in 0..<decoded.count {
      if let identifier = decoded.element(at: index, as: UUID.self) {
        routes.append(.product(identifier))
      } else if let year = decoded.element(at: index, as: Int.self), Route.years.contains(year) {
        routes.append(.year(year))
      } else {
        return (ScenePath(routes), "path element \(index + 1) is neither a product nor a year")
      }
    }
    return (ScenePath(routes), representation.decodingError?.localizedDescription)
  }
}
