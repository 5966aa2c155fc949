import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import Synchronization
import Testing

@testable import CatalogCore

/// The bundled products, counting which are read by identifier.
private final class CountingSource: CatalogSource {
  private let base = ProductList(bundledProducts)
  let reads = Mutex<[UUID]>([])

  var generation: Int { base.generation }
  var count: Int { base.count }
  func product(number: Int) -> Product? { base.product(number: number) }
  func product(identifier: UUID) -> Product? {
    reads.withLock { $0.append(identifier) }
    return base.product(identifier: identifier)
  }
  func number(of identifier: UUID) -> Int? { base.number(of: identifier) }
  func products(numbers: ClosedRange<Int>) -> [(number: Int, product: Product)] {
    base.products(numbers: numbers)
  }
  func count(year: Int) -> Int { base.count(year: year) }
  func products(year: Int, offset: Int, limit: Int) -> [(number: Int, product: Product)] {
    base.products(year: year, offset: offset, limit: limit)
  }
  func products(foldedName: String, exact: Bool, limit: Int) -> [Product] {
    base.products(foldedName: foldedName, exact: exact, limit: limit)
  }
  func names(near foldedKey: String, limit: Int) -> [String] {
    base.names(near: foldedKey, limit: limit)
  }
  func forEachNumberedProduct(_ body: (Int, Product) throws -> Void) rethrows {
    try base.forEachNumberedProduct(body)
  }
}

/// The activity each scene advertises after a command, and what it costs to know it.
@Suite struct ActivityUpdateTests {
  let mango = UUID(uuidString: "3F6624CC-5105-492C-A307-235E78AAC4BC")

  /// A command keeps the activity of a scene whose path it left as it was, on the same
  /// catalog, rather than read its product again; a scene it moved advertises its new product.
  @Test func aCommandReadsAgainOnlyTheProductsOfTheScenesItMoved() throws {
    let source = CountingSource()
    let catalog = Catalog(source: source)
    let environment = FakeEnvironment()
    environment.catalog = catalog
    var (state, _) = try run(
      ["select cher", "scene new side mango", "scene switch main"],
      from: AppState(catalog: catalog, scenes: [Scene(name: .main)], activeSceneName: .main),
      environment: environment)
    let side = try #require(state.scene(named: "side")?.userActivity)
    #expect(side.persistentIdentifier == mango?.uuidString)
    source.reads.withLock { $0 = [] }
    (state, _) = try run(["select 3", "tab photo"], from: state, environment: environment)
    #expect(!source.reads.withLock { $0 }.contains { $0 == mango })
    #expect(state.scene(named: "side")?.userActivity == side)
    let main = state.activeScene
    #expect(main.userActivity != nil)
    #expect(main.userActivity == main.advertisedActivity(in: state.catalog))
  }
}
