import TestSupport
import Testing

@testable import LineEditing

/// Keys decoded from the bytes a terminal sends, however they are split across reads.
@Suite struct KeyDecoderTests {
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
}
