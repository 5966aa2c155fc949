import Foundation
import StateRestoration
import SystemSupport

/// The fields the editor changes: what an edit began from and what its draft holds.
package struct ProductFields: Sendable, Hashable, Codable {
  /// The name.
  package var name: String
  /// The year.
  package var year: Int
  /// The price.
  package var price: Price
  /// The picture; nil in fields saved by an earlier version, which did not edit it.
  package var imageName: String?
  /// The keywords; nil in fields saved by an earlier version, which did not edit them.
  package var keywords: [String]?

  /// Creates the fields.
  ///
  /// - Parameters:
  ///   - name: The name.
  ///   - year: The year.
  ///   - price: The price.
  ///   - imageName: The picture.
  ///   - keywords: The keywords.
  package init(
    name: String, year: Int, price: Price, imageName: String? = nil, keywords: [String]? = nil
  ) {
    self.name = name
    self.year = year
    self.price = price
    self.imageName = imageName
    self.keywords = keywords
  }

  /// A product's fields.
  ///
  /// - Parameter product: The product.
  package init(_ product: Product) {
    self.init(
      name: product.name, year: product.year, price: product.price, imageName: product.imageName,
      keywords: product.keywords)
  }
}

extension ProductFields {
  /// Decodes the fields through their JSON codec (``init(json:)``).
  ///
  /// - Throws: `DecodingError` when a field is missing or not valid.
  package init(from decoder: any Decoder) throws {
    try self.init(decodingJSONFrom: decoder)
  }

  /// Encodes the fields through their JSON codec.
  package func encode(to encoder: any Encoder) throws {
    try encodeJSON(to: encoder)
  }
}

extension ProductFields: JSONRepresentable {
  /// Reads the fields: `name`, `year`, `price`, and `imageName` and `keywords` when present.
  ///
  /// - Parameter json: The JSON.
  /// - Throws: `JSONReadError` when a field is missing or not valid.
  package init(json: JSONValue) throws(JSONReadError) {
    self.init(
      name: try json.readString("name"), year: try json.readInt("year"),
      price: try json.read("price") { value throws(JSONReadError) in try Price(json: value) },
      imageName: try json.readIfPresent("imageName") { value throws(JSONReadError) in
        try value.stringValue()
      },
      keywords: try json.readIfPresent("keywords") { value throws(JSONReadError) in
        try value.arrayValue().map { item throws(JSONReadError) in try item.stringValue() }
      })
  }

  /// The fields as JSON.
  package var json: JSONValue {
    .object(
      [("name", .string(name)), ("year", .int(year)), ("price", price.json)]
        + (imageName.map { [("imageName", .string($0))] } ?? [])
        + (keywords.map { [("keywords", .array($0.map(JSONValue.string)))] } ?? []))
  }
}

/// An edit to save: the values the editor began from and the values of its validated draft.
///
/// Applied to the product as it is now, it changes only the fields the draft changed, so that
/// what another process saved meanwhile in the other fields is kept; when another process
/// changed one of the same fields to something else, it refuses with both values.
package struct ProductChange: Sendable, Hashable {
  /// The product edited.
  package var identifier: UUID
  /// The values when the edit began; nil for a draft restored from an older version, whose
  /// every field that differs from the product counts as changed.
  package var base: ProductFields?
  /// The values of the draft.
  package var edited: ProductFields
  /// Whether the draft wins where another process changed the same field.
  package var overridesConflicts: Bool

  /// Creates a change.
  ///
  /// - Parameters:
  ///   - identifier: The product edited.
  ///   - base: The values when the edit began.
  ///   - edited: The values of the draft.
  ///   - overridesConflicts: Whether the draft wins over another process's change to the same
  ///     field.
  package init(
    identifier: UUID, base: ProductFields?, edited: ProductFields, overridesConflicts: Bool = false
  ) {
    self.identifier = identifier
    self.base = base
    self.edited = edited
    self.overridesConflicts = overridesConflicts
  }

  /// The product with this change applied to it as it is now.
  ///
  /// - Parameter current: The product as saved now, perhaps changed by another process since
  ///   the edit began.
  /// - Returns: The product with the draft's changed fields and the current other fields.
  /// - Throws: ``CatalogError/editConflict(product:field:theirs:yours:)`` naming the first
  ///   field both changed to different values, unless ``overridesConflicts``.
  package func applied(to current: Product) throws -> Product {
    var product = current
    product.name = try merged(
      "name", \.name, current: current, shown: { "'\($0.abbreviated)'" }, typed: { $0 })
    product.year = try merged(
      "year", \.year, current: current, shown: { String($0) }, typed: { String($0) })
    product.price = try merged(
      "price", \.price, current: current, shown: \.formatted, typed: \.plainText)
    if edited.imageName != nil {
      product.imageName =
        try merged(
          "image", \.imageName, current: current, shown: { "'\($0 ?? "")'" },
          typed: { $0 ?? "" }) ?? current.imageName
      // The editor's picture is a bundled name or an absolute path: relative to nothing.
      if product.imageName != current.imageName { product.imageDirectory = nil }
    }
    if edited.keywords != nil {
      product.keywords =
        try merged(
          "keywords", \.keywords, current: current,
          shown: { "'\(($0 ?? []).joined(separator: ", ").abbreviated)'" },
          typed: { ($0 ?? []).joined(separator: ", ") }) ?? current.keywords
    }
    return product
  }

  private func merged<Value: Equatable>(
    _ field: String, _ keyPath: KeyPath<ProductFields, Value>, current product: Product,
    shown: (Value) -> String, typed: (Value) -> String
  ) throws -> Value {
    let current = ProductFields(product)[keyPath: keyPath]
    let draft = edited[keyPath: keyPath]
    guard let base else { return draft }
    let began = base[keyPath: keyPath]
    // A field the draft left alone keeps whatever is saved now.
    guard draft != began else { return current }
    if current != began && current != draft && !overridesConflicts {
      throw CatalogError.editConflict(
        product: product.name, field: field, theirs: shown(current), yours: shown(draft),
        keepTheirs: "\(field) \(typed(current))")
    }
    return draft
  }
}

/// A change to save to the catalog.
package enum CatalogChange: Sendable, Hashable {
  /// An edit of an existing product's fields.
  case edit(ProductChange)
  /// A new product, appended to the list.
  case insert(Product)
  /// A product removed; the name is for messages.
  case delete(UUID, name: String)
}
