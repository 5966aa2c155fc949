import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import Testing

@testable import CatalogCore

/// The activity each scene advertises after a command, and what it costs to know it.
@Suite struct ActivityUpdateTests {
  let mango = UUID(uuidString: "3F6624CC-5105-492C-A307-235E78AAC4BC")

  /// A command keeps the activity of a scene whose path it left as it was, on the same
  /// catalog, rather than read its product again; a scene it moved advertises its new product.
  @Test func aCommandReadsAgainOnlyTheProductsOfTheScenesItMoved() throws {
    let source = WatchedSource()
    let catalog = Catalog(source: source)
    let environment = FakeEnvironment()
    environment.catalog = catalog
    var (state, _) = try run(
      ["select cher", "scene new side mango", "scene switch main"],
      from: AppState(catalog: catalog, scenes: [Scene(name: .main)], activeSceneName: .main),
      environment: environment)
    let side = try #require(state.scene(named: "side")?.userActivity)
    #expect(side.persistentIdentifier == mango?.uuidString)
    source.reads = []
    (state, _) = try run(["select 3", "tab photo"], from: state, environment: environment)
    #expect(!source.reads.contains { $0 == mango })
    #expect(state.scene(named: "side")?.userActivity == side)
    let main = state.activeScene
    #expect(main.userActivity != nil)
    #expect(main.userActivity == main.advertisedActivity(in: state.catalog))
  }
}
