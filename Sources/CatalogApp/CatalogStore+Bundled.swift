import CatalogCore
import CatalogEngines
import CatalogModel
import CatalogResources
import LineEditing

#if canImport(Glibc)
  import Glibc
#endif

extension CatalogStore {
  /// The user's catalog in a data directory or on a server, seeded from the catalog built into
  /// the binary.
  ///
  /// - Parameter paths: The data directory, and the server if one is named.
  /// - Returns: The store.
  package static func bundled(_ paths: AppPaths) -> CatalogStore {
    var store = CatalogStore(
      directoryPath: paths.dataDirectory,
      seed: { ProductFile(data: CatalogResources.catalogData, name: CatalogResources.catalogName) }
    )
    store.server = paths.catalogServer
    // An upgrade of a large catalog takes seconds: a person at a terminal is told why.
    let path = store.databasePath
    store.willUpgrade = { products in
      guard products >= 100_000, isatty(STDERR_FILENO) == 1 else { return }
      TextOutput.standardError.line(
        "note: upgrading the catalog '\(path)' of \(products.grouped) products for this version, once: about a second a million"
      )
    }
    return store
  }
}
