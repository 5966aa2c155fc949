import SystemSupport

/// Draws the line being edited — prompt, text and cursor — over several rows when it wraps,
/// measuring East Asian wide characters and combining marks by their display width so the
/// cursor sits where the text is.
///
/// Pure: it returns the bytes to write and remembers only which row the cursor was left on.
package struct EditorScreen: Sendable {
  /// The terminal's width in columns.
  package var columns: Int
  /// The terminal's height in rows, when known: a listing fills at most a screen.
  package var rows: Int?
  /// The row of the cursor, counted from the prompt's first row, after the last draw.
  package private(set) var cursorRow = 0
  /// The last row the last draw wrote, counted as ``cursorRow`` is.
  private var lastRow = 0

  package init(columns: Int, rows: Int? = nil) {
    self.columns = max(1, columns)
    self.rows = rows.map { max(1, $0) }
  }

  /// Where each character starts, and where the text ends, laid out from a starting column.
  ///
  /// A character that does not fit at the end of a row starts the next one, as terminals wrap.
  static func layout(
    _ characters: some Sequence<Character>, from start: (row: Int, column: Int), columns: Int
  )
    -> (positions: [(row: Int, column: Int)], end: (row: Int, column: Int))
  {
    var (row, column) = start
    var positions: [(row: Int, column: Int)] = []
    for character in characters {
      let width = DisplayWidth.of(character)
      if column + width > columns {
        row += 1
        column = 0
      }
      positions.append((row, column))
      column += width
    }
    return (positions, (row, column))
  }

  /// The bytes that redraw the line: over the last drawing, then erasing what it left after
  /// the end — never the whole screen from its top-left corner, which terminals such as tmux
  /// would save to their history at every key.
  ///
  /// - Parameters:
  ///   - prompt: The prompt as written, possibly with colour.
  ///   - plainPrompt: The prompt's visible text, for measuring.
  ///   - buffer: The line.
  ///   - cursor: The cursor, an index into `buffer`.
  /// - Returns: What to write to the terminal.
  package mutating func draw(
    prompt: String, plainPrompt: String, buffer: [Character], cursor: Int
  ) -> String {
    var output = ""
    if cursorRow > 0 { output += "\u{1B}[\(cursorRow)A" }
    output += "\r" + prompt + String(buffer)
    let promptEnd = Self.layout(plainPrompt, from: (0, 0), columns: columns).end
    let text = Self.layout(buffer, from: promptEnd, columns: columns)
    var end = text.end
    if end.column >= columns {
      // The terminal waits at the margin; move it to the next row so the cursor math holds.
      output += "\r\n"
      end = (end.row + 1, 0)
    }
    output += "\u{1B}[J"
    lastRow = end.row
    var target = cursor < buffer.count ? text.positions[cursor] : end
    if target.column >= columns { target = (target.row + 1, 0) }
    if end.row > target.row { output += "\u{1B}[\(end.row - target.row)A" }
    output += "\r"
    if target.column > 0 { output += "\u{1B}[\(target.column)C" }
    cursorRow = target.row
    return output
  }

  /// Takes a new terminal size. Terminals reflow the line drawn (tmux, VTE, kitty, iTerm2): its
  /// rows and the cursor's row are found again at the new width, so the next draw starts
  /// where the line now starts rather than a row into it (drawing the prompt twice) or above it.
  ///
  /// - Parameters:
  ///   - columns: The new width.
  ///   - rows: The new height, when known.
  ///   - plainPrompt: The prompt's visible text.
  ///   - buffer: The line.
  ///   - cursor: The cursor, an index into `buffer`.
  package mutating func resize(
    columns: Int, rows: Int?, plainPrompt: String, buffer: [Character], cursor: Int
  ) {
    self.columns = max(1, columns)
    if let rows { self.rows = max(1, rows) }
    let promptEnd = Self.layout(plainPrompt, from: (0, 0), columns: self.columns).end
    let text = Self.layout(buffer, from: promptEnd, columns: self.columns)
    let position = cursor < buffer.count ? text.positions[cursor] : text.end
    cursorRow = min(position.row, text.end.row)
    lastRow = text.end.row
  }

  /// The bytes that leave the line as drawn and move below it, for output that follows.
  ///
  /// - Parameters:
  ///   - plainPrompt: The prompt's visible text.
  ///   - buffer: The line.
  /// - Returns: What to write.
  package mutating func finish(plainPrompt: String, buffer: [Character]) -> String {
    let promptEnd = Self.layout(plainPrompt, from: (0, 0), columns: columns).end
    var end = Self.layout(buffer, from: promptEnd, columns: columns).end
    if end.column >= columns { end = (end.row + 1, 0) }
    let down = end.row - cursorRow
    (cursorRow, lastRow) = (0, 0)
    return (down > 0 ? "\u{1B}[\(down)B" : "") + "\r\n"
  }

  /// The bytes that erase the line as drawn, leaving the cursor where its first row began: the
  /// first row, then the rows below it (not the screen from its top-left corner).
  package mutating func clear() -> String {
    defer { (cursorRow, lastRow) = (0, 0) }
    return (cursorRow > 0 ? "\u{1B}[\(cursorRow)A" : "") + "\r\u{1B}[K"
      + (lastRow > 0 ? "\u{1B}[B\u{1B}[J\u{1B}[A" : "")
  }

  /// Forgets the rows drawn, after something else was written below the line.
  package mutating func forget() {
    (cursorRow, lastRow) = (0, 0)
  }

  /// Candidates laid out in columns, one block below the line, as a second Tab shows them: a
  /// screenful at most, then how many more there are.
  ///
  /// - Parameters:
  ///   - candidates: The candidates.
  ///   - total: How many there are in all, the candidates being the first of them.
  ///   - note: A last line saying how to read them.
  /// - Returns: The lines, joined with `\r\n`.
  package func columnsLayout(_ candidates: [String], total: Int? = nil, note: String? = nil)
    -> String
  {
    let width = (candidates.map { DisplayWidth.of($0) }.max() ?? 0) + 2
    let perRow = max(1, columns / max(width, 1))
    // Room for the line of how many more, and the prompt below.
    let fitting = rows.map { max(1, $0 - 2 - (note == nil ? 0 : 1)) * perRow } ?? candidates.count
    let shown = Array(candidates.prefix(fitting))
    let rows = (shown.count + perRow - 1) / perRow
    var lines: [String] = []
    for row in 0..<rows {
      var line = ""
      for column in 0..<perRow {
        let index = column * rows + row
        guard index < shown.count else { continue }
        let candidate = shown[index]
        let padding = column == perRow - 1 ? 0 : width - DisplayWidth.of(candidate)
        line += candidate + String(repeating: " ", count: max(0, padding))
      }
      lines.append(String(line.reversed().drop { $0 == " " }.reversed()))
    }
    let more = max(total ?? 0, candidates.count) - shown.count
    if more > 0 { lines.append("… and \(more.grouped) more; type more to narrow them") }
    if let note { lines.append(note) }
    return lines.joined(separator: "\r\n")
  }
}
