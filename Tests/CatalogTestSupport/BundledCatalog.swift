import CatalogEngines
import CatalogModel
import Foundation

/// The repository's `Resources/products.json`, the seed catalog.
package let bundledCatalogPath = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().appendingPathComponent("../../Resources/products.json").standardized
  .path

/// The products of the bundled catalog, in list order; empty if the file cannot be read (the
/// tests that use it then fail on their expectations).
package let bundledProducts: [Product] = {
  guard let data = FileManager.default.contents(atPath: bundledCatalogPath) else { return [] }
  return (try? ProductFile.products(in: data, name: bundledCatalogPath)) ?? []
}()

/// A made-up product numbered `number`: `Product N`, N cents, a fresh identifier.
///
/// - Parameters:
///   - number: The number, in its name and its price.
///   - year: Its year.
/// - Returns: The product.
package func numberedProduct(_ number: Int, year: Int = 2000) -> Product {
  Product(
    identifier: UUID(), name: "Product \(number)", imageName: "", year: year,
    price: Price(cents: number))
}
