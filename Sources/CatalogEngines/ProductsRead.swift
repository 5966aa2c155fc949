import CatalogModel
import Foundation

/// The products a catalog on a server read at one generation, and their list numbers: what
/// answers while the server cannot be reached, so that the prompt keeps the product's name and
/// the commands that need no server show what they showed before.
///
/// It holds at most ``capacity`` products; when full, it starts again empty.
struct ProductsRead: Sendable {
  /// The most products kept.
  static let capacity = 4_096

  /// The catalog's generation the products were read at.
  private(set) var generation = 0
  private var products: [UUID: Product] = [:]
  private var numbers: [UUID: Int] = [:]
  private var identifiers: [Int: UUID] = [:]

  /// Forgets everything when the catalog's generation is no longer the one read at.
  ///
  /// - Parameter generation: The catalog's generation now.
  mutating func forgetUnless(generation: Int) {
    guard generation != self.generation else { return }
    self = ProductsRead(generation: generation)
  }

  /// Keeps a product read, with its list number when the read gave one.
  ///
  /// - Parameters:
  ///   - product: The product.
  ///   - number: Its list number.
  mutating func keep(_ product: Product, number: Int? = nil) {
    if products.count >= Self.capacity, products[product.identifier] == nil {
      self = ProductsRead(generation: generation)
    }
    products[product.identifier] = product
    if let number { keep(number: number, of: product.identifier) }
  }

  /// Keeps a product's list number.
  ///
  /// - Parameters:
  ///   - number: The list number.
  ///   - identifier: The product's identifier.
  mutating func keep(number: Int, of identifier: UUID) {
    guard numbers.count < Self.capacity || numbers[identifier] != nil else { return }
    if let old = numbers[identifier] { identifiers[old] = nil }
    numbers[identifier] = number
    identifiers[number] = identifier
  }

  /// A product read, by identifier.
  ///
  /// - Parameter identifier: The product's identifier.
  /// - Returns: The product, when it was read.
  func product(identifier: UUID) -> Product? { products[identifier] }

  /// A product read, by list number.
  ///
  /// - Parameter number: The list number.
  /// - Returns: The product, when it and its number were read.
  func product(number: Int) -> Product? {
    identifiers[number].flatMap { products[$0] }
  }

  /// A product's list number, when it was read.
  ///
  /// - Parameter identifier: The product's identifier.
  /// - Returns: The number.
  func number(of identifier: UUID) -> Int? { numbers[identifier] }
}
