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
}
