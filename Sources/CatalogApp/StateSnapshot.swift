import CatalogCore
import CatalogEngines
import CatalogModel
import CatalogResources
import Foundation
import StateRestoration
import SystemSupport

/// The saved state read without starting the app: for `catalog state`. It takes no lock and
/// writes nothing, so it works while the app runs; files that cannot be read are reported,
/// not moved.
package struct StateSnapshot: Sendable {
  /// The state as the next launch would restore it.
  package var state: AppState
  /// One-line warnings about files that could not be read.
  package var warnings: [String]
  /// Who has each scene open now; a scene no running process has is missing.
  package var owners: [SceneName: SceneOwner] = [:]
  /// When each scene's file was last saved.
  package var savedAt: [SceneName: Date] = [:]

  /// Reads the saved state.
  ///
  /// - Parameter paths: The directories.
  /// - Throws: A `StateRestorationError` only when the bundled catalog cannot be read.
  package init(paths: AppPaths) throws {
    let directory = StateDirectory(existing: paths.stateDirectory)
    var warnings: [String] = []
    var session = SessionState()
    do {
      session = try SessionFile.read(in: directory)
    } catch {
      // As the next launch will: the scenes are found from their files.
      warnings.append(error.localizedDescription)
      session = SessionFile.rebuilt(in: directory)
    }
    // The session's scenes, then scene files it does not list: saved scenes all the same.
    let listed = session.scenes.isEmpty ? [SceneName.main] : session.scenes
    let names =
      listed + SessionFile.sceneNamesOnDisk(in: directory).filter { !listed.contains($0) }
    let files = names.map { name in Result { try SceneFile.read(name, in: directory) } }
    // A catalog on a server reads the products the scenes show with its state, in one request.
    let loaded = try CatalogStore.bundled(paths).loadForReading(
      readingAhead: CatalogReadAhead(
        products: SceneFile.productsToReadAhead(in: files.compactMap { (try? $0.get()) ?? nil })))
    warnings = loaded.warnings + warnings
    var owners: [SceneName: SceneOwner] = [:]
    var savedAt: [SceneName: Date] = [:]
    let scenes = zip(names, files).map { name, read -> Scene in
      // The true phase: in front in the process that has it open, behind another scene there,
      // or in the background when no running process has it (its process quit or died).
      let owner = SceneOwner(lockFile: directory.path(of: LockFiles.scene(name)))
      owners[name] = owner
      let phase: ScenePhase = owner.map { $0.isFront ? .active : .inactive } ?? .background
      var status = stat()
      if stat(directory.path(of: SceneFile.path(for: name)), &status) == 0 {
        savedAt[name] = Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec))
      }
      do {
        guard let file = try read.get() else { return Scene(name: name, phase: phase) }
        var scene = Scene(name: name, storage: file.storage, phase: phase)
        if let note = scene.validate(against: loaded.catalog) {
          warnings.append("scene '\(name)': \(note)")
        }
        // The restoration activity's date is the one its file keeps.
        if var saved = file.activity {
          let date = saved.lastActiveDate
          saved.lastActiveDate = nil
          if saved == scene.userActivity { scene.userActivity?.lastActiveDate = date }
        }
        return scene
      } catch {
        warnings.append(error.localizedDescription)
        return Scene(name: name, phase: phase)
      }
    }
    self.owners = owners
    self.savedAt = savedAt
    // In front: the scene made active last, by the session file or by its own file.
    let front = session.front(
      among: zip(names, files).map { name, read in (name, ((try? read.get()) ?? nil)?.activatedAt) }
    )
    state = AppState(catalog: loaded.catalog, scenes: scenes, activeSceneName: front ?? names[0])
    // AppState gives the active scene its phase; here each scene keeps the phase it has now.
    for index in state.scenes.indices { state.scenes[index].phase = scenes[index].phase }
    self.warnings = warnings
  }

  /// The state as JSON: the active scene, and each scene's storage (values as plain JSON),
  /// path and restoration activity.
  package var json: JSONValue {
    .object([
      ("activeScene", .string(state.activeSceneName.rawValue)),
      (
        "scenes",
        .array(
          state.scenes.map { scene in
            .object([
              ("name", .string(scene.name.rawValue)),
              ("phase", .string(scene.phase.rawValue)),
              (
                "owner",
                owners[scene.name].map { owner in
                  .object([
                    ("pid", .int(Int(owner.process.pid))),
                    ("terminal", owner.terminal.map(JSONValue.string) ?? .null),
                    ("front", .bool(owner.isFront)),
                  ])
                } ?? .null
              ),
              (
                "storage",
                .object(
                  scene.storage.keys.compactMap { key in
                    scene.storage.entries[key].map { (key, Self.plainJSON($0)) }
                  })
              ),
              (
                "path",
                .array(
                  scene.path.routes.map { route in
                    switch route {
                    case .product(let identifier):
                      .object([
                        ("type", .string("product")), ("id", .string(identifier.canonicalText)),
                        ("name", state.catalog[identifier].map { .string($0.name) } ?? .null),
                      ])
                    case .year(let year):
                      .object([("type", .string("year")), ("year", .int(year))])
                    }
                  })
              ),
              ("activity", scene.userActivity.map { Self.activityJSON($0) } ?? .null),
            ])
          })
      ),
    ])
  }

  /// An activity as JSON: its type, title, target, user info (as plain JSON) and keywords.
  ///
  /// - Parameters:
  ///   - activity: The activity.
  ///   - extra: Fields to add at the end, such as a search result's score.
  /// - Returns: The object.
  package static func activityJSON(
    _ activity: UserActivityRecord, extra: [(String, JSONValue)] = []
  )
    -> JSONValue
  {
    .object(
      [
        ("activityType", .string(activity.activityType)),
        ("title", activity.title.map(JSONValue.string) ?? .null),
        (
          "targetContentIdentifier", activity.targetContentIdentifier.map(JSONValue.string) ?? .null
        ),
        (
          "userInfo",
          .object(
            activity.userInfo.keys.sorted().compactMap { key in
              activity.userInfo[key].map { (key, plainJSON($0)) }
            })
        ),
        ("keywords", .array(activity.keywords.sorted().map(JSONValue.string))),
        ("isEligibleForSearch", .bool(activity.isEligibleForSearch)),
        ("isEligibleForHandoff", .bool(activity.isEligibleForHandoff)),
        (
          "lastActiveDate",
          activity.lastActiveDate.map { .string($0.formatted(.iso8601)) } ?? .null
        ),
      ] + extra)
  }

  /// A property-list value as plain JSON: dates in ISO 8601, data as Base64.
  static func plainJSON(_ value: PropertyListValue) -> JSONValue {
    switch value {
    case .string(let value): .string(value)
    case .int(let value): .int(value)
    case .double(let value): value.isFinite ? .double(value) : .null
    case .bool(let value): .bool(value)
    case .date(let value): .string(value.formatted(.iso8601))
    case .data(let value): .string(value.base64EncodedString())
    case .array(let values): .array(values.map(plainJSON))
    case .dictionary(let values):
      .object(values.keys.sorted().compactMap { key in values[key].map { (key, plainJSON($0)) } })
    }
  }

  /// A stored value as plain JSON: data as Base64, dates in ISO 8601, URLs as strings and
  /// `Codable` values as their JSON.
  static func plainJSON(_ value: StoredValue) -> JSONValue {
    switch value {
    case .bool(let value): .bool(value)
    case .int(let value): .int(value)
    case .double(let value): value.isFinite ? .double(value) : .null
    case .string(let value): .string(value)
    case .url(let value): .string(value.absoluteString)
    case .data(let value): .string(value.base64EncodedString())
    case .date(let value): .string(value.formatted(.iso8601))
    case .codable(let json):
      (try? JSONValue(parsing: json)) ?? .string(String(decoding: json, as: UTF8.self))
    }
  }
}
