import CatalogModel
import StateRestoration

/// Everything a command can read or change: the catalog and the open scenes.
///
/// A value: applying a command returns a new state, and the shell saves what differs.
package struct AppState: Sendable, Hashable {
  /// The catalog, in list order.
  package var catalog: Catalog
  /// The open scenes, in the order they were opened.
  package var scenes: [Scene]
  /// The scene taking commands.
  package var activeSceneName: SceneName
  /// The results of the last search, for `continue N`; not saved.
  package var lastSearch: [SearchResult] = []
  /// The entries of the last `activities` listing, for `forget N`; not saved.
  package var lastActivities: [UserActivityRecord] = []

  /// Creates a state; the active scene's phase is set to active and the others' to inactive.
  ///
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - scenes: The open scenes, at least one.
  ///   - activeSceneName: The active scene; the first scene when it is not open.
  package init(catalog: Catalog, scenes: [Scene], activeSceneName: SceneName) {
    self.catalog = catalog
    self.scenes = scenes.isEmpty ? [Scene(name: .main)] : scenes
    self.activeSceneName =
      self.scenes.contains { $0.name == activeSceneName } ? activeSceneName : self.scenes[0].name
    updatePhases()
  }

  /// The active scene.
  package var activeScene: Scene {
    get { scenes.first { $0.name == activeSceneName } ?? scenes[0] }
    set {
      guard let index = scenes.firstIndex(where: { $0.name == newValue.name }) else { return }
      scenes[index] = newValue
    }
  }

  /// The session to save: open scenes in order and the active one.
  package var session: SessionState {
    SessionState(scenes: scenes.map(\.name), activeScene: activeSceneName)
  }

  /// The scene with a name, if open.
  ///
  /// - Parameter name: The scene's name.
  /// - Returns: The scene, or nil when no open scene has that name.
  package func scene(named name: String) -> Scene? {
    scenes.first { $0.name.rawValue == name }
  }

  /// Sets every scene's phase from which one is active.
  package mutating func updatePhases() {
    for index in scenes.indices {
      scenes[index].phase = scenes[index].name == activeSceneName ? .active : .inactive
    }
  }

  /// Sets every scene's activity to the one it advertises.
  package mutating func updateActivities() {
    for index in scenes.indices {
      scenes[index].userActivity = scenes[index].advertisedActivity(in: catalog)
    }
  }

  /// Sets every scene's activity to the one it advertises, as ``updateActivities()`` does,
  /// but keeps a scene's activity from an earlier state where it cannot differ — the same
  /// catalog, and the same path — rather than read its product again.
  ///
  /// - Parameter earlier: A state whose activities are those its scenes advertise (every
  ///   state a command leaves, and every restored one).
  package mutating func updateActivities(since earlier: AppState) {
    guard catalog == earlier.catalog else { return updateActivities() }
    for index in scenes.indices {
      let path = scenes[index].storage[SceneKeys.navigationState]
      if let before = earlier.scene(named: scenes[index].name.rawValue),
        before.storage[SceneKeys.navigationState] == path
      {
        scenes[index].userActivity = before.userActivity
      } else {
        scenes[index].userActivity = scenes[index].advertisedActivity(in: catalog)
      }
    }
  }

  /// The product on top of the active scene's path, if its detail is shown.
  package var shownProduct: Product? {
    activeScene.path.topProduct.flatMap { activeScene.product($0, in: catalog) }
  }
}
