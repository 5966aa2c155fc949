import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import TestSupport
import Testing

@testable import CatalogCore

let cherries = UUID(uuidString: "FA542E3D-4895-44B6-942F-E112101D5160") ?? UUID()
let mango = UUID(uuidString: "3F6624CC-5105-492C-A307-235E78AAC4BC") ?? UUID()

@Suite struct PathCommandTests {
  @Test func pushAndYearBuildAHeterogeneousPath() throws {
    let (state, output) = try run(["year 2015", "push 9", "push mango", "year 2007"])
    let path = state.activeScene.path
    #expect(path.routes == [.year(2015), .product(cherries), .product(mango), .year(2007)])
    #expect(output.hasPrefix("Products from 2007 (2):"))
    #expect(output.contains("Ginger") && output.contains("Orchid") && !output.contains("Mango"))
    #expect(Describe.prompt(for: state) == "main › … › Cherries › Mango › 2007 › ")
    #expect(state.activeScene.storage[SceneKeys.selectedProduct] == nil)
    let json = String(decoding: path.codableRepresentation, as: UTF8.self)
    #expect(
      json
        == #"["Swift.Int","2007","Foundation.UUID","\"\#(mango.uuidString)\"","Foundation.UUID","\"\#(cherries.uuidString)\"","Swift.Int","2015"]"#
    )
  }

  @Test func theYearListKeepsTheCatalogsNumbers() throws {
    let (state, output) = try run(["year 2015"])
    #expect(output.contains(" 9  Cherries") && output.contains("10  Artichoke"))
    let (pushed, _) = try run(["push 10"], from: state)
    #expect(
      pushed.activeScene.path.routes == [
        .year(2015), .product(try #require(bundledProducts.last?.identifier)),
      ])
    #expect(
      pushed.activeScene.storage[SceneKeys.selectedProduct]
        == bundledProducts.last?.identifier.uuidString)
    let (selected, _) = try run(["select 9"], from: state)
    #expect(selected.activeScene.path.routes == [.product(cherries)])
    #expect(
      try run(["year 1999"]).output == "No products from 1999; type 'back' to leave this list.")
  }

  @Test(arguments: ["1899", "2101", "twenty", "２０１５", "-2015", "2015.0"])
  func refusesYearsOutsideTheRange(text: String) {
    #expect(throws: CatalogCoreError.self) { try run(["year \(text)"]) }
  }

  @Test func yearInTheEditorChangesTheDraftInstead() throws {
    let (state, _) = try run(["select cher", "edit", "year 2016"])
    #expect(state.activeScene.draft.year == "2016")
    #expect(state.activeScene.path.routes == [.product(cherries)])
    #expect(throws: CatalogCoreError.editorOpen(command: "push")) {
      try run(["push mango"], from: state)
    }
    #expect(throws: CatalogCoreError.editorOpen(command: "open")) {
      try run(["open catalog://products"], from: state)
    }
  }

  @Test func pathShowsEachElementAndTheCodableForm() throws {
    let (state, shown) = try run(["year 2015", "push cher", "path"])
    #expect(
      shown == """
        Path of scene 'main' (2 elements, root first):
          1  year     2015
          2  product  Cherries
        """)
    let codable = try run(["path --codable"], from: state).output
    #expect(
      codable == String(decoding: state.activeScene.path.codableRepresentation, as: UTF8.self))
    #expect(try run(["path --codable"]).output == "[]")
    #expect(try run(["path"]).output == "Scene 'main' is at the product list; the path is empty.")
  }

  @Test func stopsPushingAtTheDepthLimit() throws {
    var state = AppState(
      catalog: bundledCatalog, scenes: [Scene(name: .main)], activeSceneName: .main)
    var scene = state.activeScene
    scene.path = ScenePath(Array(repeating: .year(2015), count: AppState.maximumPathDepth))
    state.activeScene = scene
    #expect(throws: CatalogCoreError.pathTooDeep(limit: AppState.maximumPathDepth)) {
      try run(["push 1"], from: state)
    }
    #expect(try run(["back 1000"], from: state).state.activeScene.path.routes.isEmpty)
  }
}

/// Random sequences of navigation commands against a plain array, the model of the path.
@Suite struct PathPropertyTests {
  /// One random step, and what it does to the model; nil when the command must fail.
  static func step(
    _ model: [Route], using generator: inout SeededGenerator
  ) -> (command: String, model: [Route]?) {
    let products = bundledProducts
    switch Int.random(in: 0..<6, using: &generator) {
    case 0:
      let index = Int.random(in: 0..<products.count, using: &generator)
      // By number, by name, or by UUID.
      let reference =
        [String(index + 1), products[index].name, products[index].identifier.uuidString]
        .randomElement(using: &generator) ?? ""
      return ("select \(reference)", [.product(products[index].identifier)])
    case 1, 2:
      let index = Int.random(in: 0..<products.count, using: &generator)
      return ("push \(index + 1)", model + [.product(products[index].identifier)])
    case 3:
      let year = Int.random(in: 1995...2020, using: &generator)
      // The year already on top is shown again (its first page), not pushed twice.
      return ("year \(year)", model.last == .year(year) ? model : model + [.year(year)])
    case 4:
      let count = Int.random(in: 1...3, using: &generator)
      return count == 1 && Bool.random(using: &generator)
        ? ("back", model.isEmpty ? nil : Array(model.dropLast()))
        : ("back \(count)", count > model.count ? nil : Array(model.dropLast(count)))
    default:
      return ("root", [])
    }
  }

  @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
  func thePathFollowsTheModel(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    var state = AppState(
      catalog: bundledCatalog, scenes: [Scene(name: .main)], activeSceneName: .main)
    var model: [Route] = []
    for _ in 0..<200 {
      let (command, expected) = Self.step(model, using: &generator)
      do {
        state = try run([command], from: state).state
        #expect(expected != nil, "'\(command)' should have failed")
      } catch {
        #expect(expected == nil, "'\(command)' failed: \(error)")
      }
      model = expected ?? model
      let path = state.activeScene.path
      #expect(path.routes == model, "after '\(command)'")
      let decoded = ScenePath.decoding(path.codableRepresentation)
      #expect(decoded.path == path && decoded.problem == nil)
      let top: String? =
        if case .product(let identifier)? = model.last { identifier.uuidString } else { nil }
      #expect(state.activeScene.storage[SceneKeys.selectedProduct] == top)
    }
  }
}
