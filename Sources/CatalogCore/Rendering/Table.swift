import CatalogModel
import LineEditing

/// Plain-text tables: columns padded to the widest cell, by display width, so that Chinese and
/// Japanese text lines up.
package enum Table {
  /// Renders rows as aligned columns separated by two spaces.
  ///
  /// - Parameters:
  ///   - header: The column titles, if any.
  ///   - rows: The cells.
  ///   - rightAligned: The columns aligned to the right (numbers).
  ///   - indent: Spaces before each line.
  ///   - minimumWidths: Widths the columns have at least, so that tables rendered in parts
  ///     line up.
  ///   - width: The most columns a line may take: the widest columns' cells are cut to fit,
  ///     none to fewer than a few characters.
  /// - Returns: The lines, joined by newlines, with no trailing spaces.
  package static func render(
    header: [String]? = nil, rows: [[String]], rightAligned: Set<Int> = [], indent: Int = 0,
    minimumWidths: [Int] = [], width: Int? = nil
  ) -> String {
    // Cells quote stored text (a draft, a scene's values): nothing in them may drive the
    // terminal or break a row.
    var all = ((header.map { [$0] } ?? []) + rows).map { $0.map(\.escapingControlCharacters) }
    let columns = all.map(\.count).max() ?? 0
    var widths = (minimumWidths + [Int](repeating: 0, count: columns)).prefix(columns).map { $0 }
    for row in all {
      for (index, cell) in row.enumerated() {
        widths[index] = max(widths[index], DisplayWidth.of(cell))
      }
    }
    if let width, columns > 0 {
      // The widest column gives up a column at a time until the line fits, none narrower than
      // a few characters; its cells are cut with `…`.
      let fixed = indent + 2 * (columns - 1)
      var fitted = widths
      while fixed + fitted.reduce(0, +) > width,
        let widest = fitted.indices.filter({ !rightAligned.contains($0) }).max(by: {
          fitted[$0] < fitted[$1]
        }), fitted[widest] > 8
      {
        fitted[widest] -= 1
      }
      for column in 0..<columns where fitted[column] < widths[column] {
        for index in all.indices where all[index].count > column {
          all[index][column] = DisplayWidth.truncated(all[index][column], toWidth: fitted[column])
        }
      }
      widths = fitted
    }
    let lines = all.map { row in
      let cells = row.enumerated().map { index, cell in
        let padding = String(repeating: " ", count: widths[index] - DisplayWidth.of(cell))
        if rightAligned.contains(index) { return padding + cell }
        return index == row.count - 1 ? cell : cell + padding
      }
      let line = String(repeating: " ", count: indent) + cells.joined(separator: "  ")
      // Trailing spaces go by their bytes: a Character-wise reverse cost seconds at a
      // million rows.
      guard let last = line.utf8.lastIndex(where: { $0 != 0x20 }) else { return "" }
      return String(line[...last])
    }
    return lines.joined(separator: "\n")
  }
}
