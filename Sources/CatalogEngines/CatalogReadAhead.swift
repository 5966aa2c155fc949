import Foundation

/// What a process is about to read from a catalog on a server, read in the request that reads
/// the catalog's state as it opens rather than in requests of its own (a catalog in a file
/// reads nothing ahead: a read there costs no round trip).
package struct CatalogReadAhead: Sendable, Hashable {
  /// Products by identifier: those the scenes a launch restores show, and one a command or
  /// link from the shell names by its identifier.
  package var products: [UUID]
  /// Products by list number: those a command from the shell names (`select 42`).
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
}
