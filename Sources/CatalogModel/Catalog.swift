import Foundation

/// The products in list order, with lookup by identifier.
public struct Catalog: Sendable, Hashable {
  /// The products, in the order `list` shows them.
  public private(set) var products: [Product]
  private var positions: [UUID: Int]

  /// Creates a catalog; of products sharing an identifier, the first is kept.
  ///
  /// - Parameter products: The products in list order.
  /// - Complexity: O(*n*).
  public init(_ products: [Product]) {
    var unique: [Product] = []
    var positions: [UUID: Int] = [:]
    for product in products where positions[product.identifier] == nil {
      positions[product.identifier] = unique.count
      unique.append(product)
    }
    self.products = unique
    self.positions = positions
  }

  /// The product with an identifier, if the catalog has it.
  ///
  /// - Parameter identifier: The product's identifier.
  public subscript(identifier: UUID) -> Product? {
    positions[identifier].map { products[$0] }
  }

  /// The position of a product in list order, if the catalog has it.
  ///
  /// - Parameter identifier: The product's identifier.
  /// - Returns: The index in ``products``.
  public func position(of identifier: UUID) -> Int? {
    positions[identifier]
  }

  /// Replaces the product that has the same identifier.
  ///
  /// - Parameter product: The new version of the product.
  /// - Returns: false when the catalog has no product with that identifier.
  @discardableResult
  public mutating func replace(_ product: Product) -> Bool {
    guard let position = positions[product.identifier] else { return false }
    products[position] = product
    return true
  }
}
