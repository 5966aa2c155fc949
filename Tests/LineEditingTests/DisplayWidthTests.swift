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

}
