import Imaging

/// How output looks: colour or not (SPEC section 8), and whether product pictures are drawn.
package struct Presentation: Sendable, Hashable {
  /// Whether standard output gets colour.
  package var colorsOutput = false
  /// Whether standard error gets colour.
  package var colorsErrors = false
  /// How pictures are drawn; nil to describe them by path and size instead.
  package var pictureDepth: HalfBlockRenderer.ColorDepth?
  /// How pictures are drawn when they are: half blocks, kitty graphics or sixels.
  package var pictureKind = PictureKind.blocks

  /// How pictures are drawn.
  package enum PictureKind: Sendable, Hashable {
    case blocks, kitty, sixel
  }
  /// The most columns a picture's drawing takes, its indent aside.
  package var pictureColumns = 40
  /// The spaces before each row of a picture's drawing.
  package static let pictureIndent = 2
  /// Products a page of `list` shows: what fits on the terminal beside a heading, a footer
  /// and the prompt; 20 when output is not a terminal.
  package var pageSize = 20
  /// The columns text is wrapped to: the terminal's width, 80 when output is not a terminal.
  package var columns = 80
  /// Whether the sizes follow the terminal's (output is one): ``fit(columns:rows:)`` then
  /// takes its size at the time something is printed.
  package var followsTerminal = false

  /// Plain output: no colour, no pictures, the sizes of a script.
  package init() {}

  /// Takes the terminal's size now — after a resize, the next page, table and picture fit the
  /// window as it is — when output is a terminal.
  ///
  /// - Parameters:
  ///   - columns: The terminal's width.
  ///   - rows: Its height, when known.
  package mutating func fit(columns: Int, rows: Int?) {
    guard followsTerminal else { return }
    if let rows { pageSize = max(5, rows - 5) }
    self.columns = max(40, columns)
    // The drawing and its indent fit: a row as wide as the window would wrap.
    pictureColumns = max(1, min(40, columns - Self.pictureIndent))
  }

  /// Plain text: no colour, no pictures.
  package static let plain = Presentation()

  /// Text in a colour (an SGR code such as `1;31`) when `enabled`, as is otherwise.
  package static func paint(_ text: String, _ code: String, enabled: Bool) -> String {
    enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }
}
