import TestSupport
import Testing

@testable import LineEditing

@Suite struct LineEditorTests {
  @Test func editsInTheMiddleOfMixedText() {
    var terminal = FakeTerminal()
    terminal.type("select Cheries 樱桃")
    #expect(terminal.cursorColumn == 7 + 15 + 4)
    terminal.type("\u{01}\u{1B}f\u{1B}f" + left + left + left + "r")
    #expect(terminal.text == "select Cherries 樱桃")
    #expect(terminal.cursor == 12)
    #expect(terminal.cursorColumn == 7 + 12)
    terminal.type("\u{05}")  // Ctrl-E
    #expect(terminal.cursorColumn == 7 + 16 + 4)
    terminal.type(left)  // onto 桃: one character, two columns, back
    #expect(terminal.cursorColumn == 7 + 16 + 2)
    terminal.type("\u{7F}\u{7F}")  // Backspace over 樱 and the space
    #expect(terminal.text == "select Cherries桃")
    terminal.type("\r")
    #expect(terminal.result == .line("select Cherries桃"))
  }

  @Test(arguments: [
    ("樱桃", 4), ("e\u{301}", 1), ("Glaïeul", 7), ("🍒x", 3), ("ｃｈｅｒｒｙ", 12), ("a\u{300}\u{301}b", 2),
  ])
  func placesTheCursorByDisplayWidth(typed: String, columns: Int) {
    var terminal = FakeTerminal()
    terminal.type(typed)
    #expect(terminal.cursorColumn == 7 + columns)
  }

  @Test func combiningMarksJoinTheCharacterBefore() {
    var terminal = FakeTerminal()
    terminal.type("e\u{301}")
    #expect(terminal.session.editorState.buffer.count == 1)
    terminal.type("\u{7F}")
    #expect(terminal.text.isEmpty)
  }

  @Test func movesByWords() {
    var terminal = FakeTerminal()
    terminal.type("scene new side red rose")
    terminal.type("\u{1B}b\u{1B}b")  // Alt-B twice
    #expect(terminal.cursor == 15)
    terminal.type("\u{1B}[1;5D")  // Ctrl-Left
    #expect(terminal.cursor == 10)
    terminal.type("\u{1B}[1;5C\u{1B}f")  // Ctrl-Right, Alt-F
    #expect(terminal.cursor == 18)
    terminal.type("\u{1B}[H")
    #expect(terminal.cursor == 0)
    terminal.type("\u{1B}[F")
    #expect(terminal.cursor == 23)
    terminal.type("\u{02}\u{02}\u{06}")  // Ctrl-B, Ctrl-B, Ctrl-F
    #expect(terminal.cursor == 22)
  }

  @Test func killsAndYanks() {
    var terminal = FakeTerminal()
    terminal.type("select red rose")
    terminal.type("\u{17}")  // Ctrl-W
    #expect(terminal.text == "select red ")
    terminal.type("\u{01}\u{19}")  // Ctrl-A, Ctrl-Y
    #expect(terminal.text == "roseselect red ")
    terminal.type("\u{0B}")  // Ctrl-K
    #expect(terminal.text == "rose")
    terminal.type("\u{05}\u{19}")
    #expect(terminal.text == "roseselect red ")
    terminal.type("\u{15}")  // Ctrl-U
    #expect(terminal.text.isEmpty)
    terminal.type("push mango")
    terminal.type("\u{1B}\u{7F}")  // Alt-Backspace
    #expect(terminal.text == "push ")
    terminal.type("x\u{1B}[3~")  // Delete at the end does nothing
    terminal.type(left + "\u{1B}[3~")
    #expect(terminal.text == "push ")
    terminal.type("\u{08}")  // Ctrl-H
    #expect(terminal.text == "push")
  }

  @Test func walksTheHistory() {
    var terminal = FakeTerminal(history: ["list", "select cher"])
    terminal.type("draft")
    terminal.type(up)
    #expect(terminal.text == "select cher")
    terminal.type(up + up)
    #expect(terminal.text == "list")
    terminal.type(down)
    #expect(terminal.text == "select cher")
    terminal.type(down)
    #expect(terminal.text == "draft")
    terminal.type("\u{10}")  // Ctrl-P
    #expect(terminal.text == "select cher")
  }

  @Test func searchesTheHistoryBackwards() {
    var terminal = FakeTerminal(history: ["select cherries", "tab photo", "select mango", "list"])
    terminal.type("\u{12}sel")
    #expect(terminal.output.contains("(reverse-i-search)`sel': select mango"))
    #expect(terminal.text == "select mango")
    terminal.type("\u{12}")
    #expect(terminal.text == "select cherries")
    terminal.type("\u{12}")  // no older match: stays
    #expect(terminal.text == "select cherries")
    let before = terminal.output.count
    terminal.type("\r")
    #expect(terminal.result == .line("select cherries"))
    // What stays on the screen is the prompt and the accepted line, not the search.
    let accepted = String(terminal.output.dropFirst(before))
    #expect(accepted.contains("main › select cherries"), "\(accepted.debugDescription)")
    #expect(!accepted.contains("reverse-i-search"))

    var cancelled = FakeTerminal(history: ["tab photo"])
    cancelled.type("draft\u{12}tab\u{07}")  // Ctrl-G cancels
    #expect(cancelled.text == "draft")
    var missing = FakeTerminal(history: ["tab photo"])
    missing.type("\u{12}zz")
    #expect(missing.output.contains("(reverse-i-search)`zz' (no match): "))
    var edited = FakeTerminal(history: ["tab photo"])
    edited.type("\u{12}pho" + right + "s")  // another key takes the match and goes on
    // The match's cursor is at "pho"; Right moves past its "p", then "s" goes in.
    #expect(edited.text == "tab pshoto")
  }

  /// A one-line paste is text to edit: it does not run, and its control characters go.
  @Test func aOneLinePasteDoesNotRunAndKeepsItsText() {
    var terminal = FakeTerminal()
    terminal.type("\u{1B}[200~select mango\ttab\u{1B}[201~")
    #expect(terminal.result == nil)
    #expect(terminal.text == "select mangotab")
  }

  @Test func endsLinesOnControlKeys() {
    var empty = FakeTerminal()
    empty.type("\u{04}")
    #expect(empty.result == .end)
    var deleting = FakeTerminal()
    deleting.type("ab" + left + "\u{04}")
    #expect(deleting.text == "a" && deleting.result == nil)
    var interrupted = FakeTerminal()
    interrupted.type("select" + left + left + "\u{03}")
    #expect(interrupted.result == .interrupted)
    // The abandoned line is shown whole, the cursor after it, then ^C.
    #expect(interrupted.output.hasSuffix("main › select\r\u{1B}[13C^C\r\n"))
    var cleared = FakeTerminal()
    cleared.type("list\u{0C}")
    #expect(cleared.output.contains("\u{1B}[H\u{1B}[2J"))
    #expect(cleared.text == "list")
  }

  @Test func decodesSequencesSplitAcrossReads() {
    var decoder = KeyDecoder()
    #expect(decoder.feed([0x1B]).isEmpty)
    #expect(decoder.feed(Array("[1;5".utf8)).isEmpty)
    #expect(decoder.feed(Array("C".utf8)) == [.wordRight])
    #expect(decoder.feed([0xE6, 0xA8]).isEmpty)
    #expect(decoder.feed([0xB1]) == [.text("樱")])
    #expect(decoder.feed([0x1B]).isEmpty)
    #expect(decoder.flush() == [.escape])
    #expect(decoder.feed(Array("\u{1B}[200~a\u{1B}[2".utf8)).isEmpty)
    #expect(decoder.feed(Array("01~".utf8)) == [.paste("a")])
    #expect(decoder.feed([0xFF]) == [.text("\u{FFFD}")])
  }

  @Test func keysTypedAheadGoToTheNextLine() {
    var terminal = FakeTerminal()
    terminal.type("select cher\rtab ph")
    #expect(terminal.result == .line("select cher"))
    var next = LineSession(
      prompt: "main › ", plainPrompt: "main › ", history: [], columns: 80,
      complete: { _, _ in LineCompletion(start: 0, candidates: []) })
    let (_, result) = next.start(after: terminal.session.carry)
    #expect(result == nil)
    #expect(next.editorState.text == "tab ph")
    _ = next.feed(Array("oto\r".utf8))
    #expect(next.editorState.text == "tab photo")
  }

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
    #expect(full.output.hasSuffix("\r\n\r"))
  }
}
