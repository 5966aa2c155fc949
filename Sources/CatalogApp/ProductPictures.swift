import CatalogCore
import CatalogModel
import CatalogResources
import Imaging

#if canImport(Glibc)
  import Glibc
#endif

/// The products' pictures as the app shows them: decoded from the bundle or their files, drawn
/// for the terminal, and kept drawn for the next show; a file's problem found once for each
/// version of it.
package final class ProductPictures {
  private var drawings: [String: [String]] = [:]
  /// What ``problem(at:)`` found, by path, size and modification time.
  private var problems: [String: String?] = [:]

  /// Creates an empty cache.
  package init() {}

  /// Why the picture file at a path cannot be shown; nil when it can.
  ///
  /// - Parameter path: The file.
  /// - Returns: The problem, as a reason.
  package func problem(at path: String) -> String? {
    // Decoded once for each version of the file, not at every show of the photo tab.
    var status = stat()
    let key =
      stat(path, &status) == 0
      ? "\(path)|\(status.st_size)|\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)" : nil
    if let key, let known = problems[key] { return known }
    let problem: String?
    do {
      // Decoded small (a JPEG at a fraction of its size): damage shows, not only the header.
      _ = try ImageDecoder().decode(contentsOf: path, minimumSide: 16)
      problem = nil
    } catch .cannotRead(_, let reason) {
      problem = reason
    } catch {
      problem = error.localizedDescription
    }
    if let key { problems[key] = .some(problem) }
    return problem
  }

  /// What a product's picture is: its file and size, or why it cannot be shown.
  ///
  /// - Parameter product: The product.
  /// - Returns: One line.
  package func description(of product: Product) -> String {
    guard !product.imageName.isEmpty else { return "no picture" }
    let name = product.imagePath ?? "Images/\(product.imageName).png"
    do {
      // A file's size is in its header; a bundled picture is small.
      let (width, height) =
        try product.imagePath.map { try ImageDecoder().size(contentsOf: $0) }
        ?? {
          let image = try Self.image(of: product); return (image.width, image.height)
        }()
      // A file whose header is whole may still be cut short: it is decoded (small) to say so.
      if let path = product.imagePath, let problem = problem(at: path) {
        return "\(name), \(width)×\(height) pixels, but it cannot be shown: \(problem)"
      }
      return "\(name), \(width)×\(height) pixels"
    } catch {
      return "\(name) (\(error.localizedDescription))"
    }
  }

  /// A product's picture, decoded: a bundled one, or the image file its path names; a JPEG
  /// image to be drawn small is decoded at a fraction of its size, its longer side kept at
  /// least `minimumSide`.
  private static func image(of product: Product, minimumSide: Int? = nil) throws -> RGBAImage {
    if let path = product.imagePath {
      return try ImageDecoder().decode(contentsOf: path, minimumSide: minimumSide)
    }
    guard let bytes = CatalogResources.imageData(named: product.imageName) else {
      throw ImagingError.cannotRead(
        path: "Images/\(product.imageName).png", reason: "it is not a bundled picture")
    }
    return try ImageDecoder().decode(Array(bytes))
  }

  /// A product's picture drawn as a presentation draws pictures, kept for the next time.
  ///
  /// - Parameters:
  ///   - product: The product.
  ///   - presentation: How output looks.
  /// - Returns: The lines to print; nil when it has no picture, or none can be drawn.
  package func drawing(of product: Product, for presentation: Presentation) -> [String]? {
    guard !product.imageName.isEmpty else { return nil }
    guard let depth = presentation.pictureDepth else { return nil }
    let key =
      "\(product.imageName)|\(depth)|\(presentation.pictureKind)|\(presentation.pictureColumns)"
    if let cached = drawings[key] { return cached }
    // Enough pixels for the drawing to average several into each of its own.
    let needed: Int
    switch presentation.pictureKind {
    case .kitty: needed = 800
    case .sixel: needed = presentation.pictureColumns * 20
    case .blocks: needed = presentation.pictureColumns * 8
    }
    guard let image = try? Self.image(of: product, minimumSide: needed) else { return nil }
    switch presentation.pictureKind {
    case .kitty:
      let lines = try? KittyRenderer(columns: presentation.pictureColumns).render(image)
      drawings[key] = lines
      return lines
    case .sixel:
      // About ten pixels a column.
      let lines = SixelRenderer(width: presentation.pictureColumns * 10).render(image)
      drawings[key] = lines
      return lines
    case .blocks: break
    }
    let lines = HalfBlockRenderer(depth: depth, maximumColumns: presentation.pictureColumns)
      .render(image)
    drawings[key] = lines
    return lines
  }
}
