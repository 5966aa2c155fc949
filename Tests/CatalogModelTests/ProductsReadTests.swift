import CatalogTestSupport
import Foundation
import Testing

@testable import CatalogEngines
@testable import CatalogModel

/// The products a catalog on a server keeps for while it cannot be reached: by identifier and by
/// number, for one generation, and never more than the capacity.
@Suite struct ProductsReadTests {
  @Test func productsAreFoundByIdentifierAndNumberUntilTheGenerationChanges() {
    var read = ProductsRead()
    read.forgetUnless(generation: 4)
    let (first, second) = (numberedProduct(1), numberedProduct(2))
    read.keep(first, number: 1)
    read.keep(second)
    read.keep(number: 2, of: second.identifier)
    #expect(read.product(identifier: first.identifier) == first)
    #expect(read.product(number: 2) == second)
    #expect(read.number(of: first.identifier) == 1)
    read.forgetUnless(generation: 4)
    #expect(read.product(number: 1) == first)
    read.forgetUnless(generation: 5)
    #expect(read.product(identifier: first.identifier) == nil)
    #expect(read.product(number: 2) == nil)
  }

  @Test func aProductThatMovesKeepsOneNumber() {
    var read = ProductsRead()
    let product = numberedProduct(1)
    read.keep(product, number: 3)
    read.keep(number: 1, of: product.identifier)
    #expect(read.product(number: 3) == nil)
    #expect(read.product(number: 1) == product)
  }

  @Test func itNeverHoldsMoreThanItsCapacity() {
    var read = ProductsRead()
    let products = (1...ProductsRead.capacity + 1).map { numberedProduct($0) }
    for (index, product) in products.enumerated() { read.keep(product, number: index + 1) }
    #expect(read.product(number: ProductsRead.capacity + 1) == products.last)
    #expect(read.product(number: 1) == nil)
  }
}
