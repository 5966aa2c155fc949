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

  /// The parts of a scene's location after its name: the last few path elements (the
  /// product on top with a non-default tab), then `edit` while editing.
  package static func place(of scene: Scene, in catalog: Catalog) -> [String] {
    let routes = scene.path.routes
    let shown = 3
    var parts = routes.count > shown ? ["…"] : []
    for (offset, route) in routes.suffix(shown).enumerated() {
      switch route {
      case .year(let year):
        parts.append(String(year))
      case .product(let identifier):
        let name = catalog[identifier]?.name ?? "?"
        let isTop = offset == min(routes.count, shown) - 1
        parts.append(
          isTop && scene.selectedTab != .detail ? "\(name) [\(scene.selectedTab.rawValue)]" : name)
      }
    }
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
