/// The saved state as text, for `catalog state` without `--json`.
package enum StateText {
  /// Renders every scene with its place and storage.
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
      let rows = scene.storage.keys.compactMap { key in
        scene.storage.entries[key].map { [key, $0.typeName, Describe.describe($0)] }
      }
      return rows.isEmpty ? header : header + "\n" + Table.render(rows: rows, indent: 2)
    }.joined(separator: "\n")
  }
}
