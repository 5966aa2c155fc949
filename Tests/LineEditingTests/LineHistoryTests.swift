import TestSupport
import Testing

@testable import LineEditing

/// The line history: walking it, and searching it backwards (Ctrl-R).
@Suite struct LineHistoryTests {
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
}
