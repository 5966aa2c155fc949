import CatalogTestSupport
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct NavigationTests {
  static let identifiers = bundledProducts.map(\.identifier.uuidString)

  enum Element: Equatable {
    case product(Int)
    case year(Int)

    var codable: [String] {
      switch self {
      case .product(let index): ["Foundation.UUID", "\"\(NavigationTests.identifiers[index])\""]
      case .year(let year): ["Swift.Int", String(year)]
      }
    }
  }

  static func codable(_ model: [Element]) -> String {
    let strings = model.reversed().flatMap(\.codable)
    let data = try? JSONSerialization.data(
      withJSONObject: strings, options: [.withoutEscapingSlashes])
    return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
  }

  @Test(arguments: CatalogEngine.allCases)
  func aLinkFromTheShellRestoresThenNavigates(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let opened = try sandbox.run(["open", "catalog://product/Cherries?tab=photo"])
    #expect(opened.status == 0)
    #expect(opened.errors.isEmpty)
    #expect(opened.output.hasPrefix("Cherries\n"))
    let state = try sandbox.stateJSON()
    let main = try #require(sandbox.scene("main", in: state))
    let storage = try #require(main["storage"] as? [String: Any])
    #expect(storage["DetailView.selectedTab"] as? String == "photo")
    #expect(storage["ContentView.selectedProduct"] as? String == Self.identifiers[8])
    let path = try #require(main["path"] as? [[String: Any]])
    #expect(path.count == 1)
    #expect(path.first?["name"] as? String == "Cherries")

    // The next launch of the REPL comes back there.
    let relaunched = try sandbox.run(input: "path\n")
    #expect(relaunched.output.contains("1  product  Cherries"))
  }

  @Test(arguments: CatalogEngine.allCases)
  func aSceneLinkOpensTheSceneAndBadLinksChangeNothing(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    _ = try sandbox.run(input: "year 2015\npush cher\n")
    let before = try sandbox.contents(of: "scenes/main.json")
    let sessionBefore = try sandbox.contents(of: "session.json")
    for link in [
      "catalog://product/Cheries", "catalog://year/1800", "http://x", "catalog://product/..",
      "catalog://scene/side/product/nope",
    ] {
      let result = try sandbox.run(["open", link])
      #expect(result.status == 1, "\(link)")
      #expect(result.errorLines.count == 1 && result.errors.hasPrefix("error: "), "\(link)")
      #expect(try sandbox.contents(of: "scenes/main.json") == before)
      #expect(try sandbox.contents(of: "session.json") == sessionBefore)
      #expect(!sandbox.exists("scenes/side.json"))
    }
    let mismatch = try sandbox.run(["open", "catalog://scene/side/products", "--scene", "main"])
    #expect(mismatch.status == 1)
    #expect(mismatch.errors.contains("'--scene' names 'main'"))

    let side = try sandbox.run(["open", "catalog://scene/side/product/mango/edit"])
    #expect(side.status == 0)
    #expect(side.output.hasPrefix("Opened scene 'side'.\nEditing Mango"))
    let state = try sandbox.stateJSON()
    #expect(state["activeScene"] as? String == "side")
    let main = try #require(sandbox.scene("main", in: state))
    #expect((main["path"] as? [[String: Any]])?.count == 2)
    let storage = try #require(sandbox.scene("side", in: state)?["storage"] as? [String: Any])
    #expect(storage["DetailView.showEditView"] as? Bool == true)
    #expect(storage["EditView.editTitle"] as? String == "Mango")
  }

  @Test(arguments: CatalogEngine.allCases)
  func aRemovedProductEndsTheRestoredPathThere(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    _ = try sandbox.run(input: "year 2015\npush mango\npush cher\npush ginger\n")
    try sandbox.removeProductFromDataFile(named: "Cherries")

    let result = try sandbox.run(input: "path --codable\n")
    #expect(result.errorLines.count == 1)
    #expect(
      result.errors.hasPrefix(
        "warning: scene 'main': dropped 2 elements of the saved path: a product is no longer in the catalog; kept the saved scene as '"
      ))
    #expect(result.output == Self.codable([.year(2015), .product(6)]) + "\n")
  }

  /// Random navigation, one command per launch: each step restores the path the last one
  /// saved, and the path printed must equal the model's.
  @Test(arguments: [11, 12] as [UInt64])
  func thePathSurvivesEveryRelaunch(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    let sandbox = CatalogSandbox()
    var model: [Element] = []
    for _ in 0..<15 {
      let index = Int.random(in: 0..<10, using: &generator)
      let command: String
      var expected: [Element]?
      switch Int.random(in: 0..<5, using: &generator) {
      case 0: (command, expected) = ("select \(index + 1)", [.product(index)])
      case 1:
        (command, expected) = ("push \(bundledProducts[index].name)", model + [.product(index)])
      case 2:
        let year = Int.random(in: 2000...2016, using: &generator)
        (command, expected) = ("year \(year)", model + [.year(year)])
      case 3:
        let count = Int.random(in: 1...2, using: &generator)
        (command, expected) = ("back \(count)", count > model.count ? nil : model.dropLast(count))
      default: (command, expected) = ("root", [])
      }
      let result = try sandbox.run(input: "\(command)\npath --codable\n")
      #expect(result.status == (expected == nil ? 1 : 0), "\(command)")
      model = expected ?? model
      #expect(
        result.output.split(separator: "\n").last.map(String.init) == Self.codable(model),
        "\(command)")
    }
  }
}
