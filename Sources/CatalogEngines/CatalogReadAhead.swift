import CatalogModel
import Foundation

/// What a process is about to read from a catalog on a server, read in the request that reads
/// the catalog's state — as it opens, or as a command refreshes it — rather than in requests of
/// its own (a catalog in a file reads nothing ahead: a read there costs no round trip).
package struct CatalogReadAhead: Sendable, Hashable {
  /// Products by identifier: those the scenes a launch restores show, and one a command or
  /// link names by its identifier.
  package var products: [UUID]
  /// Products by list number: one a command names (`select 42`).
  package var numbers: [Int]

  /// Creates what to read ahead.
  ///
  /// - Parameters:
  ///   - products: Products by identifier.
  ///   - numbers: Products by list number.
  package init(products: [UUID] = [], numbers: [Int] = []) {
    self.products = products
    self.numbers = numbers
  }

  /// Whether there is nothing to read ahead.
  package var isEmpty: Bool { products.isEmpty && numbers.isEmpty }

  /// Adds the product a command or a link names, when it names it by list number or
  /// identifier; a name needs a lookup of its own.
  ///
  /// - Parameter name: What the command or link calls the product.
  package mutating func add(named name: String) {
    if let number = Catalog.listNumber(in: name) {
      numbers.append(number)
    } else if let identifier = Catalog.identifier(in: name) {
      products.append(identifier)
    }
  }
}
