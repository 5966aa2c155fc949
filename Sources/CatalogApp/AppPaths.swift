import CatalogCore
import CatalogEngines
import CatalogModel
import Foundation

/// The directories the app uses: `$XDG_STATE_HOME/catalog` and `$XDG_DATA_HOME/catalog`, or
/// the directories given with `--state-dir` and `--data-dir`.
package struct AppPaths: Sendable, Hashable {
  /// Where session, scenes, activities, history and quarantine live.
  package var stateDirectory: String
  /// Where the user's catalog lives, or, with a catalog on a server, this machine's search
  /// index of it.
  package var dataDirectory: String
  /// The PostgreSQL server keeping the catalog (`--catalog-url` or `CATALOG_URL`, in the
  /// schema `CATALOG_SCHEMA` or `catalog`); nil for the catalog in the data directory.
  package var catalogServer: CatalogStore.Server?

  /// Resolves the directories.
  ///
  /// - Parameters:
  ///   - stateDirectory: `--state-dir`, if given.
  ///   - dataDirectory: `--data-dir`, if given.
  ///   - catalogURL: `--catalog-url`, if given.
  ///   - environment: The process environment.
  /// - Throws: ``CatalogCoreError/invalidArgument(_:expected:)`` when neither an override, an
  ///   absolute XDG variable nor `HOME` is available.
  package init(
    stateDirectory: String?, dataDirectory: String?, catalogURL: String? = nil,
    environment: [String: String]
  ) throws {
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
    if let url = Self.serverURL(catalogURL, environment: environment) {
      catalogServer = CatalogStore.Server(
        url: url,
        schema: environment["CATALOG_SCHEMA"].flatMap { $0.isEmpty ? nil : $0 } ?? "catalog",
        environment: environment, machine: LiveEnvironment.machineName(in: environment))
    }
  }

  /// The URL of the server the catalog is on, if any: `--catalog-url`, else `CATALOG_URL`;
  /// nil when neither names one.
  ///
  /// - Parameters:
  ///   - catalogURL: `--catalog-url`, if given.
  ///   - environment: The process environment.
  /// - Returns: The URL, or nil for the catalog in the data directory.
  package static func serverURL(_ catalogURL: String?, environment: [String: String]) -> String? {
    guard let url = catalogURL ?? environment["CATALOG_URL"], !url.isEmpty else { return nil }
    return url
  }
}
