import Foundation

/// A product of the catalog, as in Apple's sample, plus keywords for search.
public struct Product: Sendable, Hashable, Codable, Identifiable {
  /// The product's identity; it never changes, even when the product is renamed.
  public let identifier: UUID
  /// The display name.
  public var name: String
  /// The picture's name: `Resources/Images/<imageName>.png`.
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
