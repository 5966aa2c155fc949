import Testing

@testable import LineEditing

@Suite struct DisplayWidthTests {
  @Test(arguments: [
    ("", 0),
    ("Cherries", 8),
    ("樱桃", 4),
    ("Cherries 樱桃", 13),
    ("さくら", 6),
    ("ｃｈｅｒｒｙ", 12),
    ("ｻｸﾗ", 3),
    ("한국어", 6),
    ("🍒", 2),
    ("👍🏽", 2),
    ("👩‍👩‍👧", 2),
    ("❤️", 2),
    ("é", 1),
    ("e\u{301}", 1),
    ("a\u{300}\u{301}\u{302}", 1),
    ("Glaïeul", 7),
    ("\u{1B}", 0),
    ("a\tb", 2),
    ("zero\u{200B}width", 9),
  ])
  func measuresColumns(text: String, columns: Int) {
    #expect(DisplayWidth.of(text) == columns)
  }

  /// Text of ASCII alone, measured by its bytes, takes what its characters take one by one:
  /// every byte, alone and around a CR LF pair (one grapheme).
  @Test func asciiTakesWhatItsCharactersTake() {
    for byte in UInt8(0)..<0x80 {
      let scalar = Character(Unicode.Scalar(byte))
      for text in [String(scalar), "a\(scalar)b", "\r\n\(scalar)", "\(scalar)\r\n"] {
        #expect(DisplayWidth.of(text) == text.reduce(0) { $0 + DisplayWidth.of($1) }, "\(byte)")
      }
    }
    #expect(DisplayWidth.of("a\u{7F}b") == 2)
    #expect(DisplayWidth.of("e\u{301}x") == 2, "a combining mark after ASCII")
  }

}
