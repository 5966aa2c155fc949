import TestSupport
import Testing

@testable import LineEditing

/// The line as drawn: redrawn for a new width, wrapped with the cursor in place.
@Suite struct EditorScreenTests {
  @Test func redrawsForANewWidth() {
    var terminal = FakeTerminal(columns: 80)
    terminal.type("select 樱桃樱桃")
    #expect(terminal.cursorColumn == 7 + 15)
    terminal.output = terminal.session.resize(columns: 10)
    #expect(terminal.cursorColumn == 2)
  }

  @Test func wrapsLongLinesAndKeepsTheCursorRight() {
    var terminal = FakeTerminal(columns: 10)
    // "main › sel" fills row 0; "ect 樱桃樱" fills row 1; 桃 does not fit in row 1's last
    // column, so it starts row 2 whole.
    terminal.type("select 樱桃樱桃")
    #expect(terminal.cursorColumn == 2)
    terminal.type(left)
    #expect(terminal.cursorColumn == 0)
    terminal.type(left)
    #expect(terminal.cursorColumn == 8)
    #expect(terminal.output.hasSuffix("\u{1B}[1A\r\u{1B}[8C"))
    // Exactly full: the cursor goes to the next row, not past the margin.
    var full = FakeTerminal(columns: 10)
    full.type("abc")
    #expect(full.output.hasSuffix("\r\n\u{1B}[J\r"))
  }

  /// A redraw writes over the last drawing and erases only what is left after its end: never
  /// the screen from the top-left corner (after Ctrl-L), which tmux saves to its history.
  @Test func redrawsWithoutClearingFromTheLineStart() {
    var terminal = FakeTerminal(columns: 20)
    terminal.type("\u{0C}select")
    let afterClear = terminal.output.components(separatedBy: "\u{1B}[2J").last ?? ""
    #expect(!afterClear.contains("\r\u{1B}[J") && !afterClear.contains("\u{1B}[H"))
    #expect(afterClear.hasSuffix("\rmain › select\u{1B}[J\r\u{1B}[13C"))
    // Taking the line off the screen (for a message) erases its rows, not the screen.
    var wrapped = FakeTerminal(columns: 10)
    wrapped.type("select gin")
    #expect(wrapped.session.setAside() == "\u{1B}[1A\r\u{1B}[K\u{1B}[B\u{1B}[J\u{1B}[A")
  }

  /// A terminal reflows the line drawn when its width changes: the redraw starts from the row
  /// the line now starts on, so the prompt is not drawn a second time below its first row.
  @Test func aResizeRedrawsFromWhereTheReflowedLineStarts() {
    var terminal = FakeTerminal(columns: 80)
    terminal.type("select cherries")
    // 20 columns: "main › select cherri" fills a row, and the cursor is on the next.
    let narrower = terminal.session.resize(columns: 20)
    #expect(narrower.hasPrefix("\u{1B}[1A\rmain › select cherries\u{1B}[J"))
    // Wider again: one row, and nothing above it is drawn over.
    let wider = terminal.session.resize(columns: 80)
    #expect(wider.hasPrefix("\rmain › select cherries\u{1B}[J"))
  }
}
