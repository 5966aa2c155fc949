import TestSupport
import Testing

@testable import LineEditing

/// Editing a line: text, words, kills and yanks, pastes, and the keys that end it.
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
    #expect(interrupted.output.hasSuffix("main › select\u{1B}[J\r\u{1B}[13C^C\r\n"))
    var cleared = FakeTerminal()
    cleared.type("list\u{0C}")
    #expect(cleared.output.contains("\u{1B}[H\u{1B}[2J"))
    #expect(cleared.text == "list")
  }
}
