import CatalogApp
import CatalogCore
import CatalogEngines
import Foundation
import PostgreSQL
import TestSupport
import Testing

/// What a launch asks of a catalog on a server.
@Suite struct AppLaunchTests {
  /// A launch reads the products its scenes show with the catalog's state, in the request
  /// after connecting, rather than one request each as the scenes are checked against it.
  @Test func aLaunchReadsItsScenesProductsWithTheCatalogsState() throws {
    let server = try PostgresTestServer.shared
    let temporary = TemporaryDirectory()
    let paths = try AppPaths(
      stateDirectory: temporary.path + "/state", dataDirectory: temporary.path + "/data",
      catalogURL: server.socketURL(database: try server.makeDatabase()), environment: [:])
    let options = LaunchOptions(paths: paths, scene: nil, isFresh: false, isInteractive: false)
    func launch(running lines: [String]) throws -> (PostgresCatalog, AppState) {
      let (store, launched, _) = try AppStore.launch(options)
      var state = launched
      for line in lines {
        let command = try #require(try CommandParser.parse(line))
        _ = try store.perform(command, on: &state, warn: { _ in })
      }
      _ = store.finish(state) + store.environment.closeForExit()
      return (try #require(store.environment.database as? PostgresCatalog), state)
    }
    // The first launch makes and seeds the catalog; its scene then shows two products.
    _ = try launch(running: ["select 3", "push 5"])
    let (catalog, state) = try launch(running: [])
    #expect(state.activeScene.path.routes.count == 2)
    // Connecting, then the state with the two products.
    #expect(catalog.roundTrips == 2)
  }
}
