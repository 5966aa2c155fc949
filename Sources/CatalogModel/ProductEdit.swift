import Foundation

/// The editor's draft, as typed, and its validation (SPEC section 4).
package struct ProductEdit: Sendable, Hashable {
  /// The draft name.
  package var name: String
  /// The draft year, as typed.
  package var year: String
  /// The draft price, as typed.
  package var price: String
  /// The draft picture: a bundled picture's name or an image file's path; nil to keep the
  /// product's.
  package var image: String?
  /// The draft keywords as typed, separated by commas; nil to keep the product's.
  package var keywords: String?

  /// The longest name allowed, in characters.
  package static let maximumNameLength = 100
  /// The years a product may have.
  package static let years = 1900...2100

  /// Creates a draft.
  ///
  /// - Parameters:
  ///   - name: The draft name.
  ///   - year: The draft year, as typed.
  ///   - price: The draft price, as typed.
  ///   - image: The draft picture, or nil to keep the product's.
  ///   - keywords: The draft keywords, separated by commas, or nil to keep the product's.
  package init(
    name: String, year: String, price: String, image: String? = nil, keywords: String? = nil
  ) {
    self.name = name
    self.year = year
    self.price = price
    self.image = image
    self.keywords = keywords
  }

  /// Keywords as typed, separated by commas: each trimmed, empty ones left out.
  ///
  /// - Parameter text: The keywords as typed.
  /// - Returns: The keywords.
  package static func keywords(of text: String) -> [String] {
    text.split(separator: ",").map { String($0).trimmingSpacesAndNewlines }.filter { !$0.isEmpty }
  }

  /// A draft holding a product's current values, as the editor starts.
  ///
  /// - Parameter product: The product being edited.
  package init(product: Product) {
    self.init(name: product.name, year: String(product.year), price: product.price.plainText)
  }

  /// Whether the name is empty after trimming, which disables `done`.
  package var isNameEmpty: Bool { name.trimmingSpacesAndNewlines.isEmpty }

  /// What is wrong with the draft's name, year and price, each as it would be refused; empty
  /// when nothing is.
  package var problems: [CatalogError] {
    var problems: [CatalogError] = []
    let trimmedName = name.trimmingSpacesAndNewlines
    if let reason = Product.nameViolation(trimmedName) {
      problems.append(
        .invalidName(reason: trimmedName.isEmpty ? "is empty; type 'name TEXT' to set it" : reason))
    }
    if Self.year(of: year) == nil { problems.append(.invalidYear(year)) }
    if let keywords, let reason = Product.keywordsViolation(Self.keywords(of: keywords)) {
      problems.append(.invalidKeywords(reason: reason))
    }
    do {
      _ = try Price(parsing: price)
    } catch let error as CatalogError {
      problems.append(error)
    } catch {}
    return problems
  }

  /// A year as typed, when it is one a product may have.
  package static func year(of text: String) -> Int? {
    let yearText = text.trimmingSpaces
    guard yearText.allSatisfy({ $0.isASCII && $0.isNumber }), let year = Int(yearText),
      years.contains(year)
    else { return nil }
    return year
  }

  /// Validates the draft and applies it to a product.
  ///
  /// - Parameter product: The product being edited.
  /// - Returns: The product with the draft's name (trimmed), year and price.
  /// - Throws: A ``CatalogError`` naming the bad field, or every bad field at once
  ///   (``CatalogError/invalidDraft(_:)``).
  package func applied(to product: Product) throws -> Product {
    let problems = self.problems
    if problems.count == 1, let problem = problems.first { throw problem }
    guard problems.isEmpty, let year = Self.year(of: year) else {
      throw CatalogError.invalidDraft(problems.map(\.localizedDescription))
    }
    let trimmedName = name.trimmingSpacesAndNewlines
    let price = try Price(parsing: price)
    var edited = product
    if let keywords { edited.keywords = Self.keywords(of: keywords) }
    edited.name = trimmedName
    edited.year = year
    edited.price = price
    if let image, image != edited.imageName {
      edited.imageName = image
      edited.imageDirectory = nil
      if let reason = edited.ruleViolation, reason.hasPrefix("the picture") {
        throw CatalogError.invalidImage(reason: reason)
      }
    }
    return edited
  }
}
