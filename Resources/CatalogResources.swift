import Foundation

/// The files bundled with the app: the seed catalog and the product pictures.
///
/// They live in the top-level `Resources/` folder of the repository and are only ever read.
/// `Images/*.png` are drawn by `swift run generate-images Resources`.
package enum CatalogResources {
  /// The bundled catalog, `products.json`: a JSON array of products.
  package static var catalogPath: String {
    Bundle.module.bundleURL.appendingPathComponent("products.json").path
  }

  /// The path of a product's picture, `Images/<imageName>.png`.
  ///
  /// - Parameter imageName: The product's image name.
  /// - Returns: The picture's path; the file may be missing for a user-added product.
  package static func imagePath(named imageName: String) -> String {
    Bundle.module.bundleURL.appendingPathComponent("Images").appendingPathComponent(imageName + ".png").path
  }
}
