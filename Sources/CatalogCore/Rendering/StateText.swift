/// The saved state as text, for `catalog state` without `--json`.
package enum StateText {
  /// Renders every scene with its place, storage and the activity it advertises.
  ///
  /// - Parameter state: The state.
  /// - Returns: The text.
  package static func render(_ state: AppState) -> String {
    state.scenes.map { scene in
      let marker = scene.name == state.activeSceneName ? " (active)" : ""
      let place = Describe.place(of: scene, in: state.catalog)
      let header =
        "scene \(scene.name)\(marker): "
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
