/// A named window of an app: its storage, its phase and the activity it advertises.
///
/// Nothing is shared between scenes except what the app keeps elsewhere; closing a scene
/// destroys its storage. `Scene` is a value: an app applies changes to copies and saves the
/// ones that differ.
package struct Scene: Sendable, Hashable, Identifiable {
  /// The scene's name, which is also its identity.
  package let name: SceneName
  /// The scene's storage, what `@SceneStorage` properties hold.
  package var storage: SceneStorageValues
  /// The scene's phase.
  package var phase: ScenePhase
  /// The activity the scene advertises, saved with it as its restoration activity, like the
  /// activity SwiftUI's `userActivity(_:isActive:_:)` modifier keeps for a scene.
  package var userActivity: UserActivityRecord?

  /// The scene's identity: its name.
  package var id: SceneName { name }

  /// Creates a scene.
  ///
  /// - Parameters:
  ///   - name: The scene's name.
  ///   - storage: Its storage; empty for a new scene.
  ///   - phase: Its phase; inactive until it is brought to the front.
  ///   - userActivity: Its restoration activity, if any.
  package init(
    name: SceneName, storage: SceneStorageValues = SceneStorageValues(),
    phase: ScenePhase = .inactive, userActivity: UserActivityRecord? = nil
  ) {
    self.name = name
    self.storage = storage
    self.phase = phase
    self.userActivity = userActivity
  }
}
