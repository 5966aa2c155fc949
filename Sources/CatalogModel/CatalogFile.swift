import Foundation
import StateRestoration
import SystemSupport

/// The user's catalog file: `{"formatVersion": 1, "products": […]}`.
///
/// The bundled seed (`Resources/products.json`) and the benchmark catalogs are a bare JSON
/// array of products; that shape is read too, as format version 1.
package struct CatalogFile: VersionedFormat, Hashable {
  /// The format version this program writes.
  package static let currentFormatVersion = 1
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

  /// Reads a catalog file in either shape: a versioned object or a bare array.
  ///
  /// - Parameters:
  ///   - data: The file's contents.
  ///   - path: The file's path, for error messages.
  /// - Returns: The file's contents.
  /// - Throws: A `SystemError` when it is malformed or of a newer format.
  package static func parse(_ data: Data, path: String) throws -> CatalogFile {
    let firstByte = data.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
    guard firstByte == UInt8(ascii: "[") else { return try decoded(from: data, path: path) }
    do {
      return CatalogFile(products: try JSONDecoder().decode([Product].self, from: data))
    } catch {
      throw SystemError.malformed(path: path, detail: "not a valid list of products")
    }
  }
}
