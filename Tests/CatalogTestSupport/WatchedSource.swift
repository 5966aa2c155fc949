import CatalogModel
import Foundation
import Synchronization

/// The bundled products, as an engine would serve them: it notes which are read by identifier,
/// and fails the reads of those it is told to, as a server that went away or a damaged file
/// does (the read answers nothing, and ``failedReads`` grows).
package final class WatchedSource: CatalogSource {
  private let base = ProductList(bundledProducts)
  private let failing: Set<UUID>
  private let watched = Mutex((reads: [UUID](), failures: 0))

  /// A source of the bundled products.
  ///
  /// - Parameter failing: The products whose reads fail.
  package init(failing: Set<UUID> = []) { self.failing = failing }

  /// The identifiers read, in order.
  package var reads: [UUID] {
    get { watched.withLock { $0.reads } }
    set { watched.withLock { $0.reads = newValue } }
  }

  /// Fails a read, as an engine does.
  package func fail() { watched.withLock { $0.failures += 1 } }

  package var generation: Int { base.generation }
  package var count: Int { base.count }
  package var failedReads: Int { watched.withLock { $0.failures } }
  package func product(number: Int) -> Product? { base.product(number: number) }
  package func product(identifier: UUID) -> Product? {
    watched.withLock { $0.reads.append(identifier) }
    guard !failing.contains(identifier) else {
      fail()
      return nil
    }
    return base.product(identifier: identifier)
  }
  package func number(of identifier: UUID) -> Int? { base.number(of: identifier) }
  package func products(numbers: ClosedRange<Int>) -> [(number: Int, product: Product)] {
    base.products(numbers: numbers)
  }
  package func count(year: Int) -> Int { base.count(year: year) }
  package func products(year: Int, offset: Int, limit: Int) -> [(number: Int, product: Product)] {
    base.products(year: year, offset: offset, limit: limit)
  }
  package func products(foldedName: String, exact: Bool, limit: Int) -> [Product] {
    base.products(foldedName: foldedName, exact: exact, limit: limit)
  }
  package func names(near foldedKey: String, limit: Int) -> [String] {
    base.names(near: foldedKey, limit: limit)
  }
  package func forEachNumberedProduct(_ body: (Int, Product) throws -> Void) rethrows {
    try base.forEachNumberedProduct(body)
  }
}
