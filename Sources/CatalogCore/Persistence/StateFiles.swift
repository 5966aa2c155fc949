import StateRestoration

/// `scenes/NAME.json`: one scene's storage.
package struct SceneFile: VersionedFormat, Hashable {
  package static let currentFormatVersion = 1
  package var formatVersion = currentFormatVersion
  /// The scene's name; it matches the file's name.
  package var name: SceneName
  /// The scene's storage, every value tagged with its type.
  package var storage: SceneStorageValues

  /// The file's path in the state directory.
  package static func path(for name: SceneName) -> String { "scenes/\(name.rawValue).json" }
}

/// `session.json`: the open scenes in order and the active one.
package struct SessionFile: VersionedFormat, Hashable {
  package static let currentFormatVersion = 1
  package var formatVersion = currentFormatVersion
  /// The open scenes, in order.
  package var scenes: [SceneName]
  /// The active scene.
  package var activeScene: SceneName?

  package static let path = "session.json"

  package init(_ session: SessionState) {
    scenes = session.scenes
    activeScene = session.activeScene
  }

  package var session: SessionState { SessionState(scenes: scenes, activeScene: activeScene) }
}

/// `launch.json`: how many launches in a row started without reaching the prompt.
package struct LaunchFile: VersionedFormat, Hashable {
  package static let currentFormatVersion = 1
  package var formatVersion = currentFormatVersion
  /// Launches since the last one that reached its prompt.
  package var unfinishedLaunches: Int

  package static let path = "launch.json"
}

/// Where lock files live in the state directory.
package enum LockFiles {
  package static func scene(_ name: SceneName) -> String { "locks/scene-\(name.rawValue).lock" }
  package static let session = "locks/session.lock"
}
