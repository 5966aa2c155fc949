import Foundation
import StateRestoration

/// The saved state as text, for `catalog state` without `--json`.
package enum StateText {
  /// Renders every scene with its place, its phase and who has it open, its storage and the
  /// activity it advertises.
  ///
  /// - Parameters:
  ///   - state: The state.
  ///   - owners: Who has each scene open now; a scene missing has no running process.
  ///   - savedAt: When each scene's file was last saved, to say how long a closed one has been.
  ///   - now: The time now.
  /// - Returns: The text.
  package static func render(
    _ state: AppState, owners: [SceneName: SceneOwner] = [:], savedAt: [SceneName: Date] = [:],
    now: Date = Date()
  ) -> String {
    state.scenes.map { scene in
      let place = Describe.place(of: scene, in: state.catalog)
      let where_ =
        owners[scene.name].map { "open in \($0.place)" }
        ?? "not open"
        + (savedAt[scene.name].map { ", saved \(Describe.age(of: $0, now: now))" } ?? "")
      let header =
        "scene \(scene.name) (\(scene.phase.rawValue), \(where_)): "
        + (place.isEmpty ? "product list" : place.joined(separator: " › "))
      var rows = scene.storage.keys.compactMap { key in
        scene.storage.entries[key].map { [key, $0.typeName, Describe.describe($0)] }
      }
      if let activity = scene.userActivity {
        rows.append(["(activity)", "", activity.title ?? activity.activityType])
      }
      return rows.isEmpty ? header : header + "\n" + Table.render(rows: rows, indent: 2)
    }.joined(separator: "\n")
  }
}
