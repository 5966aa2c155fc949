#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Which scenes are open, in order, and which one is active: what a relaunch needs to put every
/// window back.
package struct SessionState: Sendable, Hashable, Codable {
  /// The open scenes, in the order they were opened.
  package var scenes: [SceneName]
  /// The scene taking commands; nil only when no scene is open.
  package var activeScene: SceneName?
  /// When `activeScene` became the active scene, as far as the session file knows; nil in a
  /// file of an earlier version. A scene file made active later (``SceneFile/activatedAt``)
  /// puts its scene in front instead (``front(among:)``).
  package var activatedAt: Date?

  /// Creates a session.
  ///
  /// - Parameters:
  ///   - scenes: The open scenes, in order.
  ///   - activeScene: The active scene; it should be one of `scenes`.
  ///   - activatedAt: When the active scene became active, if known.
  package init(scenes: [SceneName] = [], activeScene: SceneName? = nil, activatedAt: Date? = nil) {
    self.scenes = scenes
    self.activeScene = activeScene
    self.activatedAt = activatedAt
  }

  /// Merges what one process owns into a session that other processes may share.
  ///
  /// Scenes that other processes own keep their places; scenes this process closed are removed;
  /// scenes it opened are added at the end, in its order. The active scene becomes this
  /// process's active scene, dated now when that changes it.
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
    guard let activeScene, activeScene != self.activeScene else {
      let kept = self.activeScene.flatMap { merged.contains($0) ? $0 : nil }
      return SessionState(
        scenes: merged, activeScene: kept, activatedAt: kept == nil ? nil : activatedAt)
    }
    return SessionState(scenes: merged, activeScene: activeScene, activatedAt: Date())
  }

  /// The scene in front: the active scene, unless one of the session's scenes was made active
  /// later through its own file, which a program writes anyway when it saves a change there,
  /// rather than rewrite the session for it.
  ///
  /// - Parameter files: Scenes whose files were read, with when each file says its scene was
  ///   made active (nil when it does not say).
  /// - Returns: The scene made active last; the session's active scene when no file is newer,
  ///   nil when the session has none and no file says.
  package func front(among files: [(scene: SceneName, activatedAt: Date?)]) -> SceneName? {
    var front = activeScene
    var newest = activeScene == nil ? nil : (activatedAt ?? .distantPast)
    for file in files where scenes.contains(file.scene) {
      guard let date = file.activatedAt, newest.map({ date > $0 }) ?? true else { continue }
      front = file.scene
      newest = date
    }
    return front
  }
}
