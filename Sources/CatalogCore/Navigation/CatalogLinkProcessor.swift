import CatalogModel
import Foundation
import StateRestoration

/// The app's `URLProcessor`: sets the path for the `catalog:` links that show a place —
/// `products`, `product/ID` and `year/YYYY` — and leaves the others to the app.
package struct CatalogLinkProcessor: URLProcessor {
  /// Where products are looked up.
  package var catalog: Catalog

  /// Creates a processor.
  ///
  /// - Parameter catalog: Where products are looked up.
  package init(catalog: Catalog) {
    self.catalog = catalog
  }

  /// Sets the path for a place link.
  ///
  /// - Parameters:
  ///   - url: The URL.
  ///   - path: The path, root first.
  /// - Returns: Whether the link shows a place; false for a search or a bare scene link.
  /// - Throws: ``CatalogCoreError/invalidLink(_:problem:)`` or a `CatalogError` for a product
  ///   that is not in the catalog.
  package func process(_ url: URL, path: inout [Route]) throws -> Bool {
    switch try DeepLink.parse(url.absoluteString).destination {
    case .products:
      path = []
    case .product(let reference, _, _):
      path = [.product(try catalog.product(matching: reference).identifier)]
    case .year(let year):
      path = [.year(year)]
    case .search, .scene:
      return false
    }
    return true
  }
}
