import Foundation

/// The files bundled with the app: the seed catalog and the product pictures.
///
/// They live in the top-level `Resources/` folder of the repository and are built into the
/// binary (`EmbeddedResources.swift`, generated from them), so that a `catalog` copied
/// anywhere runs without a resource bundle. `Images/*.png` are drawn by
/// `swift run generate-images Resources`, which also regenerates the embedded copy.
package enum CatalogResources {
  /// The bundled catalog's name, for messages.
  package static let catalogName = "the bundled catalog (Resources/products.json)"

  /// The bundled catalog, `products.json`: a JSON array of products.
  package static var catalogData: Data {
    file("products.json") ?? Data("[]".utf8)
  }

  /// A bundled picture, `Images/<imageName>.png`.
  ///
  /// - Parameter imageName: The product's image name.
  /// - Returns: The PNG's bytes, or nil when no picture of that name is bundled.
  package static func imageData(named imageName: String) -> Data? {
    file("Images/\(imageName).png")
  }

  /// The names of the bundled files, as paths in `Resources/`.
  package static var fileNames: [String] { embedded.keys.sorted() }

  /// A bundled file's bytes.
  ///
  /// - Parameter name: Its path in `Resources/`.
  /// - Returns: The bytes, or nil when there is no such file.
  package static func file(_ name: String) -> Data? {
    embedded[name].flatMap {
      Data(base64Encoded: String($0.filter { !$0.isNewline }))
    }
  }
}
