import StateRestoration

/// How the app is launched: which scene, from where, restoring or not.
package struct LaunchOptions: Sendable, Hashable {
  /// The directories.
  package var paths: AppPaths
  /// `--scene NAME`: open (or create) only that scene.
  package var scene: SceneName?
  /// `--fresh`: start without restoring scene state, like after a force quit.
  package var isFresh = false

  package init(paths: AppPaths, scene: SceneName? = nil, isFresh: Bool = false) {
    self.paths = paths
    self.scene = scene
    self.isFresh = isFresh
  }
}
