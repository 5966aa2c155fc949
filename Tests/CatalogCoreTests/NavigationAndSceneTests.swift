import CatalogModel
import Foundation
import StateRestoration
import Testing

@testable import CatalogCore
@testable import LineEditing

@Suite struct NavigationAndSceneTests {
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

  @Test func scenesKeepTheirOwnStateAndTheActiveOne() throws {
    let environment = FakeEnvironment()
    let (state, _) = try run(
      ["select cher", "tab photo", "scene new side mango", "scene switch main"],
      environment: environment)
    #expect(environment.claimed == [SceneName("side")!])
    #expect(state.scenes.map(\.name.rawValue) == ["main", "side"])
    #expect(state.activeSceneName == .main)
    #expect(
      state.scene(named: "side")?.path.topProduct
        == UUID(uuidString: "3F6624CC-5105-492C-A307-235E78AAC4BC"))
    #expect(state.scene(named: "side")?.selectedTab == .detail)
    #expect(state.activeScene.selectedTab == .photo)
    #expect(state.scenes.map(\.phase) == [.active, .inactive])
  }

  @Test func closingTheActiveSceneActivatesThePreviousOne() throws {
    let (state, output) = try run(["scene new a", "scene new b", "scene close"])
    #expect(state.scenes.map(\.name.rawValue) == ["main", "a"])
    #expect(state.activeSceneName.rawValue == "a")
    #expect(output == "Closed scene 'b'. Scene 'a' is active.")
  }

  @Test func closingTheLastSceneLeavesAFreshMain() throws {
    let (state, _) = try run(["select cher", "scene close main"])
    #expect(state.scenes.map(\.name) == [.main])
    #expect(state.activeScene.storage.isEmpty)
  }

  @Test func sceneErrorsNameTheScene() throws {
    let environment = FakeEnvironment()
    environment.ownedElsewhere = [SceneName("busy")!]
    #expect(throws: CatalogCoreError.sceneOwned("busy", pid: 42)) {
      try run(["scene new busy"], environment: environment)
    }
    #expect(throws: CatalogCoreError.sceneAlreadyOpen("main")) { try run(["scene new main"]) }
    #expect(throws: CatalogCoreError.noSuchScene("nope", open: ["main"])) {
      try run(["scene switch nope"])
    }
    #expect(throws: CatalogCoreError.invalidSceneName("../x")) { try run(["scene new ../x"]) }
  }
}
