import CatalogModel
import Foundation

/// A directory under the temporary folder, removed when the value is destroyed.
package final class TemporaryDirectory {
  /// The directory's path.
  package let path: String

  /// Creates a new, empty directory.
  package init() {
    path = NSTemporaryDirectory() + "catalog-tests-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: path)
  }
}

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

/// The identifier of a process that has ended, for state files that name dead processes.
package func deadProcessIdentifier() -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/true")
  try? process.run()
  process.waitUntilExit()
  return process.processIdentifier
}
