import CatalogModel
import Foundation
import StateRestoration
import Testing

@testable import CatalogCore
@testable import LineEditing

/// Navigation commands: select, back and root on the scene's path.
@Suite struct NavigationCommandTests {
  @Test func selectSetsAOneElementPathAndMirrorsTheProduct() throws {
    let (state, _) = try run(["select mango", "select cher", "tab photo"])
    let scene = state.activeScene
    #expect(
      scene.path.routes == [.product(UUID(uuidString: "FA542E3D-4895-44B6-942F-E112101D5160")!)])
    #expect(scene.storage[SceneKeys.selectedProduct] == "FA542E3D-4895-44B6-942F-E112101D5160")
    #expect(scene.selectedTab == .photo)
    let json = String(
      decoding: try #require(scene.storage[SceneKeys.navigationState]), as: UTF8.self)
    #expect(json == #"["Foundation.UUID","\"FA542E3D-4895-44B6-942F-E112101D5160\""]"#)
    #expect(Describe.prompt(for: state) == "main › Cherries [photo] › ")
  }

  @Test func backAndRootPopThePath() throws {
    let (state, _) = try run(["select cher", "back"])
    #expect(state.activeScene.path.routes.isEmpty)
    #expect(state.activeScene.storage[SceneKeys.selectedProduct] == nil)
    #expect(throws: CatalogCoreError.cannotGoBack(requested: 1, depth: 0)) { try run(["back"]) }
    #expect(throws: CatalogCoreError.cannotGoBack(requested: 3, depth: 1)) {
      try run(["select 1", "back 3"])
    }
    #expect(try run(["select 1", "root"]).state.activeScene.path.routes.isEmpty)
  }

  @Test func aWordOfTheNameFindsAProductNoNameStartsWith() throws {
    let (state, output) = try run(["select rose whi"])
    #expect(output.hasPrefix("White Rose"))
    #expect(Describe.prompt(for: state) == "main › White Rose › ")
    // Several have the word: each named with its number, and how to pick one.
    #expect(
      throws: CatalogError.wordMatches(
        "rose", candidates: ["Red Rose", "White Rose"], numbers: [5, 6], more: false,
        command: "push")
    ) { try run(["push rose"]) }
    let message = CatalogError.wordMatches(
      "rose", candidates: ["Red Rose", "White Rose"], numbers: [5, 6], more: false,
      command: "select"
    ).localizedDescription
    #expect(
      message
        == "no name starts with 'rose'; 2 have a word that does: 5 Red Rose, 6 White Rose; type 'select 5' for the first, or another number"
    )
    // Every word must start a word of the name; a start of a name still comes first.
    #expect(try run(["select red"]).output.hasPrefix("Red Rose"))
    #expect(throws: CatalogError.noMatch("rose pink", suggestion: nil)) {
      try run(["select rose pink"])
    }
  }
}
