import CatalogModel
import Foundation
import StateRestoration
import Testing

@testable import CatalogCore
@testable import LineEditing

/// Scene commands: each scene keeps its own state; closing and naming scenes.
@Suite struct SceneCommandTests {
  @Test func scenesKeepTheirOwnStateAndTheActiveOne() throws {
    let environment = FakeEnvironment()
    let (state, _) = try run(
      ["select cher", "tab photo", "scene new side mango", "scene switch main"],
      environment: environment)
    #expect(environment.claimed == [SceneName("side")])
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
    environment.ownedElsewhere = [SceneName("busy")]
    #expect(throws: CatalogCoreError.sceneOwned("busy", pid: 42)) {
      try run(["scene new busy"], environment: environment)
    }
    #expect(throws: CatalogCoreError.sceneAlreadyOpen("main")) { try run(["scene new main"]) }
    #expect(throws: CatalogCoreError.noSuchScene("nope", open: ["main"])) {
      try run(["scene switch nope"])
    }
    #expect(throws: CatalogCoreError.invalidSceneName("../x")) { try run(["scene new ../x"]) }
  }

  /// Reopening a closed scene is asked of the shell, which must read the file under the
  /// scene's lock: the core claims and reads nothing, and applies the command once the shell
  /// has the scene.
  @Test func reopeningASavedSceneAsksTheShellForIt() throws {
    let environment = FakeEnvironment()
    let side = SceneName("side")
    environment.savedScenes = [side]
    let start = AppState(
      catalog: bundledCatalog, scenes: [Scene(name: .main)], activeSceneName: .main)
    #expect(throws: CatalogCoreError.sceneToRestore(side)) {
      try start.applying(.switchScene("side"), environment: environment)
    }
    var saved = Scene(name: side)
    saved.selectedTab = .photo
    environment.restoredScenes[side] = saved
    let result = try start.applying(.switchScene("side"), environment: environment)
    #expect(result.state.activeSceneName == side)
    #expect(result.state.activeScene.selectedTab == .photo)
    #expect(result.effects == [.claimScene(side)])
  }
}
