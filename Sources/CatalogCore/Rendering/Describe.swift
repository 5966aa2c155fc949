import CatalogModel
import Foundation
import LineEditing
import StateRestoration

/// Short descriptions of scenes and stored values, shared by the REPL and `catalog state`.
package enum Describe {
  /// The prompt: the scene and where it is, e.g. `main › Cherries [photo] › `.
  ///
  /// - Parameters:
  ///   - state: The state.
  ///   - colors: Whether to colour the scene's name and the separators.
  /// - Returns: The prompt text.
  package static func prompt(for state: AppState, colors: Bool = false) -> String {
    let scene = state.activeScene
    let separator = Presentation.paint(" › ", "2", enabled: colors)
    return
      ([Presentation.paint(scene.name.rawValue, "1;36", enabled: colors)]
      + place(of: scene, in: state.catalog)).joined(separator: separator) + separator
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
        let name = scene.product(identifier, in: catalog)?.name ?? "?"
        let isTop = offset == min(routes.count, shown) - 1
        parts.append(
          isTop && scene.selectedTab != .detail ? "\(name) [\(scene.selectedTab.rawValue)]" : name)
      }
    }
    if scene.isEditing { parts.append("edit") }
    return parts
  }

  /// Search results, numbered for `continue N`, and how many more match.
  ///
  /// - Parameters:
  ///   - found: The best results, best first, and how many match.
  ///   - columns: The most columns a row takes: "why" is cut to fit.
  ///   - hint: Whether to end with how to continue a result, as the REPL does.
  /// - Returns: One result a line: number, title, product, and why it matched.
  package static func searchResults(_ found: SearchResults, columns: Int? = nil, hint: Bool = true)
    -> String
  {
    let results = found.results
    guard !results.isEmpty else {
      return "No results; try fewer words, a shorter prefix, or another spelling."
    }
    let rows = results.enumerated().map { index, result in
      [
        String(index + 1), result.activity.title ?? result.activity.activityType,
        result.product.name, result.why,
      ]
    }
    let total = (found.isTotalExact ? "" : "more than ") + found.total.grouped
    let more =
      found.total > results.count || !found.isTotalExact
      ? "\nThe best \(results.count) of \(total) matches; add words to narrow them." : ""
    var table = Table.render(
      header: ["#", "Activity", "Product", "Why"], rows: rows, rightAligned: [0])
    if let columns, table.split(separator: "\n").contains(where: { DisplayWidth.of($0) > columns })
    {
      // Too wide for the window: the activity's title, which repeats the product's name, goes
      // first, then the other cells are cut.
      table = Table.render(
        header: ["#", "Product", "Why"], rows: rows.map { [$0[0], $0[2], $0[3]] },
        rightAligned: [0], width: columns)
    }
    return table + more + (hint ? "\n" + continueHint : "")
  }

  /// The editor's last line: how to change a field, save and discard, within 80 columns.
  package static let editorHint =
    "Type a field's name and its value to change it; 'done' saves, 'cancel' discards."

  /// The last line of search results in the REPL, saying how to continue one.
  package static let continueHint = "Type 'continue N' to open a result."

  /// The same while the editor is open, where `continue` is refused.
  package static let continueHintWhileEditing =
    "Close the editor ('done' or 'cancel'), then type 'continue N' to open a result."

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

  /// How long ago something happened, in words: `just now`, `5 min ago`, `3 h ago`,
  /// `2 days ago`.
  ///
  /// - Parameters:
  ///   - date: When it happened.
  ///   - now: The time now.
  /// - Returns: The words.
  package static func age(of date: Date, now: Date) -> String {
    let seconds = max(0, Int(now.timeIntervalSince(date)))
    switch seconds {
    case ..<60: return "just now"
    case ..<3_600: return "\(seconds / 60) min ago"
    case ..<86_400: return "\(seconds / 3_600) h ago"
    default:
      let days = seconds / 86_400
      return "\(days) day\(days == 1 ? "" : "s") ago"
    }
  }
}
