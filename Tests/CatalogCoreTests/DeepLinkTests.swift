import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import TestSupport
import Testing

@testable import CatalogCore

@Suite struct DeepLinkTests {
  /// Scene `main` shows 2007's list with Ginger on top; scene `side` is open but inactive.
  static func start() throws -> AppState {
    try run(["scene new side mango", "scene switch main", "year 2007", "push ginger"]).state
  }

  static let ginger = bundledProducts[0].identifier

  struct Effect: Sendable, CustomTestStringConvertible {
    var link: String
    var scene = "main"
    var path: [Route]
    var tab = Tabs.detail
    var isEditing = false
    var scenes = ["main", "side"]

    var testDescription: String { link }
  }

  static let effects: [Effect] = [
    Effect(link: "catalog://products", path: []),
    Effect(link: "catalog://products/", path: []),
    Effect(link: "CATALOG://Products", path: []),
    Effect(link: "catalog://product/Cherries", path: [.product(cherries)]),
    Effect(link: "catalog://product/cher?tab=photo", path: [.product(cherries)], tab: .photo),
    Effect(link: "catalog://product/\(cherries.uuidString)?tab=detail", path: [.product(cherries)]),
    Effect(
      link: "catalog://product/\(cherries.uuidString.lowercased())", path: [.product(cherries)]),
    Effect(
      link: "catalog://product/Red%20Rose", path: [.product(bundledProducts[4].identifier)]),
    Effect(
      link: "catalog://product/r%C3%A9d%20rose",
      path: [.product(bundledProducts[4].identifier)]),
    Effect(link: "catalog://product/mango/edit", path: [.product(mango)], isEditing: true),
    Effect(link: "catalog://year/2015", path: [.year(2015)]),
    Effect(link: "catalog://year/1900", path: [.year(1900)]),
    Effect(link: "catalog://scene/side", scene: "side", path: [.product(mango)]),
    Effect(
      link: "catalog://scene/side/product/cherries?tab=photo", scene: "side",
      path: [.product(cherries)], tab: .photo),
    Effect(
      link: "catalog://scene/third/year/2013", scene: "third", path: [.year(2013)],
      scenes: ["main", "side", "third"]),
    Effect(link: "catalog://scene/main/products", path: []),
  ]

  @Test(arguments: effects)
  func linksHaveExactEffects(effect: Effect) throws {
    let environment = FakeEnvironment()
    let (state, _) = try run(
      ["open \(effect.link)"], from: try Self.start(), environment: environment)
    #expect(state.activeSceneName.rawValue == effect.scene)
    #expect(state.activeScene.path.routes == effect.path)
    #expect(state.activeScene.selectedTab == effect.tab)
    #expect(state.activeScene.isEditing == effect.isEditing)
    #expect(state.scenes.map(\.name.rawValue) == effect.scenes)
    #expect(environment.claimed.map(\.rawValue) == effect.scenes.dropFirst(2).map { $0 })
    // The editor starts from the product's saved values.
    if effect.isEditing { #expect(state.activeScene.draft.name == "Mango") }
  }

  static let failures: [(link: String, problem: String)] = [
    ("http://products", "the scheme 'http' is not 'catalog'"),
    ("catalog:products", "'catalog:' must be followed by '//'"),
    ("products", "it has no scheme"),
    ("catalog://", "it names no destination"),
    ("catalog://shelf/1", "the destination 'shelf' is unknown"),
    ("catalog://product", "'product' needs a product UUID or name"),
    ("catalog://product/", "'product' needs a product UUID or name"),
    ("catalog://product//edit", "it has an empty path segment"),
    ("catalog://product/3", "'3' is a list number"),
    ("catalog://product/FA542E3D-0000-0000-0000-000000000000", "no product matches"),
    ("catalog://product/Cheries", "did you mean 'Cherries'?"),
    ("catalog://product/cherries/delete", "unexpected 'delete'; only 'edit' may follow"),
    ("catalog://product/cherries/edit/now", "unexpected 'now'"),
    ("catalog://product/cherries?tab=video", "the tab 'video' is not 'detail' or 'photo'"),
    ("catalog://product/cherries?tab=photo&tab=detail", "the query parameter 'tab' is repeated"),
    ("catalog://product/cherries?color=red", "the query parameter 'color' is not allowed here"),
    ("catalog://product/cherries?tab=", "the query parameter 'tab' has no value"),
    ("catalog://product/cherries?", "the query has an empty parameter"),
    ("catalog://product/cherries#top", "the fragment '#top' is not allowed"),
    ("catalog://product/%E0%A4", "bad percent-encoding"),
    ("catalog://products/../product/cherries", "'..' segments are not allowed"),
    ("catalog://product/%2E%2E", "'..' segments are not allowed"),
    ("catalog://product/./cherries", "'.' segments are not allowed"),
    ("catalog://year/1899", "the year 1899 is outside 1900...2100"),
    ("catalog://year/2101", "the year 2101 is outside 1900...2100"),
    ("catalog://year/twenty", "'twenty' is not a year"),
    ("catalog://year", "'year' needs a year"),
    ("catalog://year/2015/extra", "unexpected 'extra'"),
    ("catalog://products/all", "unexpected 'all'"),
    ("catalog://products?q=1", "the query parameter 'q' is not allowed here"),
    ("catalog://scene", "'scene' needs a scene name"),
    ("catalog://scene/-bad/products", "'-bad' is not a valid scene name"),
    ("catalog://scene/a/scene/b", "a scene link cannot nest another"),
    ("catalog://user@products", "user information ('user@') is not allowed"),
    ("catalog://search", "'search' needs a query"),
    (
      "catalog://" + String(repeating: "a", count: 65_536),
      "it is 65546 bytes long; the limit is 4096"
    ),
    ("catalog://product/" + String(repeating: "x", count: 4000), "no product matches"),
  ]

  @Test(arguments: failures)
  func badLinksAreOneLineErrorsThatChangeNothing(link: String, problem: String) throws {
    let start = try Self.start()
    let environment = FakeEnvironment()
    let error = #expect(throws: (any Error).self) {
      try run(["open \(link)"], from: start, environment: environment)
    }
    let message = error?.localizedDescription ?? ""
    #expect(message.contains(problem), "\(message)")
    #expect(!message.contains("\n") && message.count < 300)
    #expect(environment.claimed.isEmpty)
    // Nothing changed: the same command from the start gives the same state as before.
    #expect(start == (try Self.start()))
  }

  @Test func aLinkCanReopenTheProductBeingEdited() throws {
    let (editing, _) = try run(["select mango", "edit", "name Alphonso"])
    let (state, output) = try run(["open catalog://product/mango/edit"], from: editing)
    #expect(state == editing)
    #expect(output.hasPrefix("Editing Mango"))
    #expect(throws: CatalogCoreError.editorOpen(command: "open")) {
      try run(["open catalog://product/cherries"], from: editing)
    }
    // Another scene is not held back by this one's editor.
    let (other, _) = try run(["open catalog://scene/side/product/cherries"], from: editing)
    #expect(other.scene(named: "main")?.draft.name == "Alphonso")
    #expect(other.activeScene.path.routes == [.product(cherries)])
  }

  @Test func aSceneOwnedElsewhereIsRefused() throws {
    let environment = FakeEnvironment()
    environment.ownedElsewhere = [SceneName("other")]
    #expect(throws: CatalogCoreError.sceneOwned("other", pid: 42)) {
      try run(["open catalog://scene/other/products"], environment: environment)
    }
  }

  @Test func theProcessorRoutesPlaceLinksOnly() throws {
    let processor = CatalogLinkProcessor(catalog: bundledCatalog)
    var path: [Route] = [.year(2001)]
    #expect(
      try processor.process(try #require(URL(string: "catalog://product/mango")), path: &path))
    #expect(path == [.product(mango)])
    #expect(
      try processor.process(try #require(URL(string: "catalog://search?q=x")), path: &path) == false
    )
    #expect(
      try processor.process(try #require(URL(string: "catalog://scene/side")), path: &path) == false
    )
    #expect(path == [.product(mango)])
  }
}
