import CatalogEngines
import CatalogModel
import Foundation
import SystemSupport

/// The catalog file of the app's earlier versions, `{"formatVersion": 1, "products": […]}`,
/// which tests write to check that the app still reads it (``ProductFile`` reads it).
package struct CatalogFile: VersionedFormat, Hashable {
  /// The format version it was written in.
  package static let currentFormatVersion = ProductFile.catalogFileFormatVersion
  /// The version recorded in the file.
  package var formatVersion: Int
  /// The products, in list order.
  package var products: [Product]

  /// Creates the file's contents for a list of products.
  ///
  /// - Parameter products: The products, in list order.
  package init(products: [Product]) {
    formatVersion = Self.currentFormatVersion
    self.products = products
  }
}
