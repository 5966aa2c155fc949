import CatalogCore
import StateRestoration

/// How the app is launched: which scene, from where, restoring or not.
package struct LaunchOptions: Sendable, Hashable {
  /// The directories.
  package var paths: AppPaths
  /// `--scene NAME`: open (or create) only that scene.
  package var scene: SceneName?
  /// `--fresh`: start without restoring scene state, like after a force quit.
  package var isFresh = false
  /// Whether a person types the commands at a terminal; false for a script and for
  /// `catalog open`, which leave the session as they found it.
  package var isInteractive = true
  /// Whether the run may read the REPL's line history (`history`), and so checks the file at
  /// launch: false for one command from the shell and for `catalog open`, which show no
  /// prompt, so that they do not read the thousand lines it may hold.
  package var readsLineHistory = true
  /// Whether the run leaves the session's scene in front as it is when it works in a scene of
  /// its own beside a running terminal: `catalog open` from a shell, which must not change
  /// where the next launch puts the user.
  package var leavesFrontAlone = false
  /// What the one command or link from the shell names its product by (`catalog select 42`,
  /// `catalog open catalog://product/ID`): with a catalog on a server, the product is read
  /// with the catalog's state as it opens when that is a list number or an identifier.
  package var namedProduct: String?
  /// The `catalog` executable that builds the search index in the background (`catalog
  /// reindex`) when the changes laid over it pile up; nil for a program that embeds the app
  /// and is not `catalog` (the benchmark), which then builds none in the background.
  package var indexBuilder: String?

  package init(
    paths: AppPaths, scene: SceneName? = nil, isFresh: Bool = false, isInteractive: Bool = true
  ) {
    self.paths = paths
    self.scene = scene
    self.isFresh = isFresh
    self.isInteractive = isInteractive
  }
}
