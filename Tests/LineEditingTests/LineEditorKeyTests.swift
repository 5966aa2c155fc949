import TestSupport
import Testing

@testable import LineEditing

@Suite struct LineEditorKeyTests {
  /// Alt-D deletes the word after the cursor; Alt with an unbound key does nothing.
  @Test func altKeysAreBoundOrIgnored() {
    var terminal = FakeTerminal()
    terminal.type("select cherries now\u{01}\u{1B}f")  // Ctrl-A, then a word forward
    terminal.type("\u{1B}d")
    #expect(terminal.text == "select now")
    terminal.type("\u{1B}u\u{1B}.\u{1B}x")
    #expect(terminal.text == "select now")
  }

  @Test func ctrlTTransposesAndCtrlUnderscoreUndoes() {
    var terminal = FakeTerminal()
    terminal.type("slect")
    terminal.type("\u{01}\u{06}\u{06}")  // after "sl"
    terminal.type("\u{14}")  // Ctrl-T: swap 'l' and 'e'
    #expect(terminal.text == "selct")
    terminal.type("\u{05}\u{14}")  // at the end: swap the last two
    #expect(terminal.text == "seltc")
    terminal.type("\u{1F}\u{1F}")  // Ctrl-_ twice
    #expect(terminal.text == "slect")
    terminal.type("\u{1F}\u{1F}\u{1F}\u{1F}\u{1F}\u{1F}")
    #expect(terminal.text == "")
    terminal.type("\u{1F}")  // nothing left to undo
    #expect(terminal.text == "")
  }
}

@Suite struct PasteTests {
  /// A paste of several lines waits in the editor, its breaks marked, until Enter; then its
  /// lines run one by one — nothing pasted runs by itself (as in fish, zsh and Python).
  @Test func pastedLinesWaitForEnterThenRunOneByOne() {
    var terminal = FakeTerminal()
    terminal.type("\u{1B}[200~select mango\r\nlist\ntab ph\u{1B}[201~")
    #expect(terminal.result == nil)
    #expect(terminal.text == "select mango↵list↵tab ph")
    terminal.type("oto\r")
    #expect(terminal.result == .line("select mango"))
    var next = LineSession(
      prompt: "main › ", plainPrompt: "main › ", history: [], columns: 80,
      complete: { _, _ in LineCompletion(start: 0, candidates: []) })
    let (_, second) = next.start(after: terminal.session.carry)
    #expect(second == .line("list"))
    var last = LineSession(
      prompt: "main › ", plainPrompt: "main › ", history: [], columns: 80,
      complete: { _, _ in LineCompletion(start: 0, candidates: []) })
    let (_, third) = last.start(after: next.carry)
    #expect(third == .line("tab photo"))
  }

  /// A paste that ends with a line break still waits for Enter.
  @Test func aPasteEndingWithABreakWaits() {
    var terminal = FakeTerminal()
    terminal.type("\u{1B}[200~select mango\n\u{1B}[201~")
    #expect(terminal.result == nil)
    #expect(terminal.text == "select mango")
  }
}

@Suite struct SuspendTests {
  /// Ctrl-Z asks to suspend; the keys typed after it wait, and the line comes back whole when
  /// the program continues.
  @Test func ctrlZSuspendsAndTheLineComesBack() {
    var terminal = FakeTerminal()
    terminal.type("select ch\u{1A}er")
    #expect(terminal.session.wantsSuspend)
    #expect(terminal.text == "select ch")
    _ = terminal.session.suspend()
    #expect(!terminal.session.wantsSuspend)
    let (drawn, result) = terminal.session.resume()
    #expect(result == nil)
    #expect(drawn.contains("main › select ch"))
    #expect(terminal.session.editorState.text == "select cher")
  }
}
