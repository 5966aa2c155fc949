import CatalogCore
import Foundation

/// The directories the app uses: `$XDG_STATE_HOME/catalog` and `$XDG_DATA_HOME/catalog`, or
/// the directories given with `--state-dir` and `--data-dir`.
package struct AppPaths: Sendable, Hashable {
  /// Where session, scenes, activities, history and quarantine live.
  package var stateDirectory: String
  /// Where the user's catalog lives.
  package var dataDirectory: String

  /// Resolves the directories.
  ///
  /// - Parameters:
  ///   - stateDirectory: `--state-dir`, if given.
  ///   - dataDirectory: `--data-dir`, if given.
  ///   - environment: The process environment.
  /// - Throws: ``CatalogCoreError/invalidArgument(_:expected:)`` when neither an override, an
  ///   absolute XDG variable nor `HOME` is available.
  package init(stateDirectory: String?, dataDirectory: String?, environment: [String: String])
    throws
  {
    func resolve(_ override: String?, variable: String, fallback: String) throws -> String {
      if let override, !override.isEmpty { return override }
      if let base = environment[variable], base.hasPrefix("/") { return base + "/catalog" }
      guard let home = environment["HOME"], !home.isEmpty else {
        throw CatalogCoreError.invalidArgument(
          "$HOME", expected: "set; set HOME or pass --state-dir and --data-dir")
      }
      return home + "/" + fallback + "/catalog"
    }
    self.stateDirectory = try resolve(
      stateDirectory, variable: "XDG_STATE_HOME", fallback: ".local/state")
    self.dataDirectory = try resolve(
      dataDirectory, variable: "XDG_DATA_HOME", fallback: ".local/share")
  }
}
