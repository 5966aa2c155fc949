/// Which scenes are open, in order, and which one is active: what a relaunch needs to put every
/// window back.
package struct SessionState: Sendable, Hashable, Codable {
  /// The open scenes, in the order they were opened.
  package var scenes: [SceneName]
  /// The scene taking commands; nil only when no scene is open.
  package var activeScene: SceneName?

  /// Creates a session.
  ///
  /// - Parameters:
  ///   - scenes: The open scenes, in order.
  ///   - activeScene: The active scene; it should be one of `scenes`.
  package init(scenes: [SceneName] = [], activeScene: SceneName? = nil) {
    self.scenes = scenes
    self.activeScene = activeScene
  }

  /// Merges what one process owns into a session that other processes may share.
  ///
  /// Scenes that other processes own keep their places; scenes this process closed are removed;
  /// scenes it opened are added at the end, in its order. The active scene becomes this
  /// process's active scene.
  ///
  /// - Parameters:
  ///   - owned: The scenes this process has open now, in order.
  ///   - released: The scenes this process has closed.
  ///   - activeScene: This process's active scene.
  /// - Returns: The merged session.
  /// - Complexity: O(*n* + *m*) in the sizes of the two sessions.
  package func merging(owned: [SceneName], released: Set<SceneName>, activeScene: SceneName?)
    -> SessionState
  {
    let ownedSet = Set(owned)
    var merged = scenes.filter { !released.contains($0) || ownedSet.contains($0) }
    let present = Set(merged)
    merged += owned.filter { !present.contains($0) }
    return SessionState(
      scenes: merged,
      activeScene: activeScene ?? self.activeScene.flatMap { merged.contains($0) ? $0 : nil })
  }
}
