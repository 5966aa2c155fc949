import CatalogModel
import CatalogResources

extension CatalogStore {
  /// The user's catalog in a data directory, seeded from the catalog built into the binary.
  ///
  /// - Parameter directoryPath: The data directory.
  /// - Returns: The store.
  package static func bundled(directoryPath: String) -> CatalogStore {
    CatalogStore(
      directoryPath: directoryPath,
      seed: { ProductFile(data: CatalogResources.catalogData, name: CatalogResources.catalogName) }
    )
  }
}
