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
  return (try? CatalogFile.parse(data, path: bundledCatalogPath).products) ?? []
}()
