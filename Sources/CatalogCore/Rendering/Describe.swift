import CatalogModel
import Foundation
import StateRestoration

/// Short descriptions of scenes and stored values, shared by the REPL and `catalog state`.
package enum Describe {
  /// The prompt: the scene and where it is, e.g. `main › Cherries [photo] › `.
  ///
  /// - Parameter state: The state.
  /// - Returns: The prompt text.
  package static func prompt(for state: AppState) -> String {
    let scene = state.activeScene
    return ([scene.name.rawValue] + place(of: scene, in: state.catalog)).joined(separator: " › ")
      + " › "
  }

  /// The parts of a scene's location after its name: the product (with a non-default tab) and
  /// `edit` while editing.
  package static func place(of scene: Scene, in catalog: Catalog) -> [String] {
    guard let identifier = scene.path.topProduct else { return [] }
    let name = catalog[identifier]?.name ?? "?"
    var parts = [scene.selectedTab == .detail ? name : "\(name) [\(scene.selectedTab.rawValue)]"]
    if scene.isEditing { parts.append("edit") }
    return parts
  }

  /// A stored value as the `state` command shows it.
  package static func describe(_ value: StoredValue) -> String {
    switch value {
    case .bool(let value): String(value)
    case .int(let value): String(value)
    case .double(let value): String(value)
    case .string(let value): "\"\(value)\""
    case .url(let value): value.absoluteString
    case .data(let data):
      if let text = String(data: data, encoding: .utf8), !text.contains(where: \.isNewline),
        data.count <= 200
      {
        "\(data.count) bytes: \(text)"
      } else {
        "\(data.count) bytes"
      }
    case .date(let date): date.formatted(.iso8601)
    case .codable(let json): String(decoding: json, as: UTF8.self)
    }
  }
}
