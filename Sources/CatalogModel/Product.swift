import Foundation

/// A product of the catalog, as in Apple's sample, plus keywords for search.
public struct Product: Sendable, Hashable, Codable, Identifiable {
  /// The product's identity; it never changes, even when the product is renamed.
  public let identifier: UUID
  /// The display name.
  public var name: String
  /// The picture: the name of a bundled one (`Resources/Images/<imageName>.png`), or the path
  /// of an image file, PNG or JPEG (see ``imagePath``).
  public var imageName: String
  /// The year the product was introduced.
  public var year: Int
  /// The price, exact to the cent.
  public var price: Price
  /// Words that find the product in search: localized names and a category.
  public var keywords: [String]

  /// The product's identity.
  public var id: UUID { identifier }

  /// Creates a product.
  ///
  /// - Parameters:
  ///   - identifier: The product's identity.
  ///   - name: The display name.
  ///   - imageName: The picture's name.
  ///   - year: The year introduced.
  ///   - price: The price.
  ///   - keywords: Words that find the product in search.
  public init(
    identifier: UUID, name: String, imageName: String, year: Int, price: Price,
    keywords: [String] = []
  ) {
    self.identifier = identifier
    self.name = name
    self.imageName = imageName
    self.year = year
    self.price = price
    self.keywords = keywords
  }

  private enum CodingKeys: String, CodingKey {
    case identifier, name, imageName, year, price, keywords
  }

  /// Decodes a product; `keywords` may be absent.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when a field is missing or of the wrong type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    identifier = try container.decode(UUID.self, forKey: .identifier)
    name = try container.decode(String.self, forKey: .name)
    imageName = try container.decode(String.self, forKey: .imageName)
    year = try container.decode(Int.self, forKey: .year)
    price = try container.decode(Price.self, forKey: .price)
    keywords = try container.decodeIfPresent([String].self, forKey: .keywords) ?? []
  }
}

extension Product {
  /// The image file the product's picture is, when ``imageName`` is a path rather than a
  /// bundled picture's name: it holds a `/`, or ends as an image file does (`.png`, `.jpg`,
  /// `.jpeg`). A relative path is relative to the current directory.
  public var imagePath: String? { Self.isImagePath(imageName) ? imageName : nil }

  /// Whether a picture name is a path to an image file rather than a bundled picture's name.
  ///
  /// - Parameter name: The picture name.
  /// - Returns: Whether it holds a `/` or ends in `.png`, `.jpg` or `.jpeg`.
  public static func isImagePath(_ name: String) -> Bool {
    let lowercased = name.lowercased()
    return name.contains("/") || lowercased.hasSuffix(".png") || lowercased.hasSuffix(".jpg")
      || lowercased.hasSuffix(".jpeg")
  }

  /// A picture name with a relative path made absolute against a directory: what an import
  /// keeps for a path given relative to the file it reads.
  ///
  /// - Parameters:
  ///   - name: The picture name.
  ///   - directory: The directory relative paths are relative to.
  /// - Returns: The name, unchanged unless it is a relative path.
  public static func resolvingImagePath(_ name: String, against directory: String) -> String {
    guard isImagePath(name), !name.hasPrefix("/") else { return name }
    var parts = directory.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
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
