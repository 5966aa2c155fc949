import StateRestoration

/// `scenes/NAME.json`: one scene's storage and its restoration activity.
package struct SceneFile: VersionedFormat, Hashable {
  package static let currentFormatVersion = 1
  package var formatVersion = currentFormatVersion
  /// The scene's name; it matches the file's name.
  package var name: SceneName
  /// The scene's storage, every value tagged with its type.
  package var storage: SceneStorageValues
  /// The activity the scene advertised, if any.
  package var activity: UserActivityRecord?

  package init(name: SceneName, storage: SceneStorageValues, activity: UserActivityRecord? = nil) {
    self.name = name
    self.storage = storage
    self.activity = activity
  }

  package init(_ scene: Scene) {
    self.init(name: scene.name, storage: scene.storage, activity: scene.userActivity)
  }

  /// The file's path in the state directory.
  package static func path(for name: SceneName) -> String { "scenes/\(name.rawValue).json" }

  /// Reads a scene's file, as the launch and `catalog state` both do.
  ///
  /// - Parameters:
  ///   - name: The scene.
  ///   - directory: The state directory.
  /// - Returns: The file's contents, or nil when the scene has no file yet.
  /// - Throws: A `StateRestorationError` when the file cannot be read, is malformed, is of a
  ///   newer format, or holds another scene (a file copied or renamed by hand).
  package static func read(_ name: SceneName, in directory: StateDirectory) throws -> SceneFile? {
    let file = try directory.load(SceneFile.self, from: path(for: name))
    if let file, file.name != name {
      throw StateRestorationError.malformed(
        path: directory.path(of: path(for: name)), detail: "it holds scene '\(file.name)'")
    }
    return file
  }
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

  /// Reads the session file.
  ///
  /// - Parameter directory: The state directory.
  /// - Returns: The session; empty when there is no file yet.
  /// - Throws: A `StateRestorationError` when the file cannot be read.
  package static func read(in directory: StateDirectory) throws -> SessionState {
    try directory.load(SessionFile.self, from: path)?.session ?? SessionState()
  }
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
