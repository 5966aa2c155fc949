import Foundation

/// A product of the catalog, as in Apple's sample, plus keywords for search.
package struct Product: Sendable, Hashable, Codable, Identifiable {
  /// The product's identity; it never changes, even when the product is renamed.
  package let identifier: UUID
  /// The display name.
  package var name: String
  /// The picture: the name of a bundled one (`Resources/Images/<imageName>.png`), or the path
  /// of an image file, PNG or JPEG, as it was given (see ``imagePath``).
  package var imageName: String
  /// The directory a relative path in ``imageName`` is relative to: the directory of the file
  /// the product was imported from. Nil for a bundled picture, an absolute path, or a product
  /// that was not imported from a file.
  package var imageDirectory: String?
  /// The year the product was introduced.
  package var year: Int
  /// The price, exact to the cent.
  package var price: Price
  /// Words that find the product in search: localized names and a category.
  package var keywords: [String]

  /// The product's identity.
  package var id: UUID { identifier }

  /// Creates a product.
  ///
  /// - Parameters:
  ///   - identifier: The product's identity.
  ///   - name: The display name.
  ///   - imageName: The picture's name.
  ///   - year: The year introduced.
  ///   - price: The price.
  ///   - keywords: Words that find the product in search.
  ///   - imageDirectory: The directory a relative image path is relative to.
  package init(
    identifier: UUID, name: String, imageName: String, year: Int, price: Price,
    keywords: [String] = [], imageDirectory: String? = nil
  ) {
    self.identifier = identifier
    self.name = name
    self.imageName = imageName
    self.imageDirectory = imageDirectory
    self.year = year
    self.price = price
    self.keywords = keywords
  }

  private enum CodingKeys: String, CodingKey {
    case identifier, name, imageName, year, price, keywords, imageDirectory
  }

  /// Decodes a product; `keywords` and `imageDirectory` may be absent.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when a field is missing or of the wrong type.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    identifier = try container.decode(UUID.self, forKey: .identifier)
    name = try container.decode(String.self, forKey: .name)
    imageName = try container.decode(String.self, forKey: .imageName)
    year = try container.decode(Int.self, forKey: .year)
    price = try container.decode(Price.self, forKey: .price)
    keywords = try container.decodeIfPresent([String].self, forKey: .keywords) ?? []
    imageDirectory = try container.decodeIfPresent(String.self, forKey: .imageDirectory)
  }
}

extension Product {
  /// The image file the product's picture is, when ``imageName`` is a path rather than a
  /// bundled picture's name: it holds a `/`, or ends as an image file does (`.png`, `.jpg`,
  /// `.jpeg`). A relative path is resolved against ``imageDirectory``, or else against the
  /// current directory.
  package var imagePath: String? {
    guard Self.isImagePath(imageName) else { return nil }
    guard let imageDirectory, !imageName.hasPrefix("/") else { return imageName }
    return Self.resolvingImagePath(imageName, against: imageDirectory)
  }

  /// The picture's name for a file written in a directory, such as an export: as given when
  /// it is relative to that directory, the absolute path when it is relative to another one.
  ///
  /// - Parameter directory: The absolute directory of the file being written.
  /// - Returns: What the file's `imageName` should say.
  package func imageName(relativeTo directory: String) -> String {
    guard let imageDirectory, let imagePath, imagePath != imageName else { return imageName }
    return imageDirectory == directory ? imageName : imagePath
  }

  /// Whether a picture name is a path to an image file rather than a bundled picture's name.
  ///
  /// - Parameter name: The picture name.
  /// - Returns: Whether it holds a `/` or ends in `.png`, `.jpg` or `.jpeg`.
  package static func isImagePath(_ name: String) -> Bool {
    // Bytes, not Foundation's search: a million names are checked when a catalog is imported.
    let bytes = name.utf8
    guard !bytes.contains(UInt8(ascii: "/")) else { return true }
    let ending = bytes.suffix(5).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    return [".png", ".jpg", ".jpeg"].contains { ending.ends(with: $0.utf8) }
  }

  /// A picture name with a relative path made absolute against a directory: what the editor
  /// keeps for a path typed relative to the current directory.
  ///
  /// - Parameters:
  ///   - name: The picture name.
  ///   - directory: The directory relative paths are relative to.
  ///   - always: Whether any path is resolved, not only a picture's; an absolute one is then
  ///     cleared of `.` and `..` too.
  /// - Returns: The name, unchanged unless it is a relative path.
  package static func resolvingImagePath(
    _ name: String, against directory: String, always: Bool = false
  ) -> String {
    guard always || (isImagePath(name) && !name.hasPrefix("/")) else { return name }
    var parts =
      name.hasPrefix("/")
      ? [] : directory.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    for part in name.split(separator: "/", omittingEmptySubsequences: true) {
      switch part {
      case ".": continue
      case "..": if !parts.isEmpty { parts.removeLast() }
      default: parts.append(String(part))
      }
    }
    return "/" + parts.joined(separator: "/")
  }
}

extension Array where Element == UInt8 {
  fileprivate func ends(with suffix: String.UTF8View) -> Bool {
    count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
  }
}
