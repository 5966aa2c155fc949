import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import CatalogModel

/// The import's own trimming and identifier text agree with Foundation's, which they replace
/// on the import's path.
@Suite struct TextTrimmingTests {
  static let texts = [
    "", " ", "\t", "Kiwi", " Kiwi ", "\tKiwi\t", "\u{00A0}Kiwi\u{3000}", "\u{2003} \u{00A0}",
    "Kiwi\n", "\r\nKiwi\u{0085}", "\u{2028}Kiwi\u{2029}", "\u{000B}Kiwi\u{000C}", "Ki wi",
    "\u{0001}Kiwi", "Kiwi\u{200B}", "  é  ", "e\u{0301} ", " 奇异果 ", "\u{FEFF}Kiwi",
  ]

  @Test(arguments: texts)
  func trimsAsFoundationDoes(_ text: String) {
    #expect(text.trimmingSpaces == text.trimmingCharacters(in: .whitespaces))
    #expect(
      text.trimmingSpacesAndNewlines == text.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  @Test func everyScalarIsASpaceOrNotAsFoundationSays() {
    for value in UInt32(0)...0x3100 {
      guard let scalar = Unicode.Scalar(value) else { continue }
      #expect(scalar.isSpace == CharacterSet.whitespaces.contains(scalar), "\(scalar.codePoint)")
      #expect(
        scalar.isSpaceOrNewline == CharacterSet.whitespacesAndNewlines.contains(scalar),
        "\(scalar.codePoint)")
    }
  }

  /// The listed spaces are the space separators of the standard library's Unicode, all of
  /// them, with the tab and U+200B.
  @Test func theListedSpacesAreUnicodesSpaceSeparators() {
    var differing: [String] = []
    for value in UInt32(0)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let separator =
        value == 0x09 || value == 0x200B || scalar.properties.generalCategory == .spaceSeparator
      if scalar.isSpace != separator { differing.append(scalar.codePoint) }
    }
    #expect(differing.isEmpty)
  }

  /// Every space beyond ASCII begins with a byte said to begin one: a keyword's ends are
  /// decoded only after such a byte.
  @Test func everySpaceBeginsWithALeadThatMayBeginOne() {
    for value in UInt32(0x80)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value), scalar.isSpace,
        let lead = String(scalar).utf8.first
      else { continue }
      #expect(Unicode.Scalar.mayBeginSpace(utf8Lead: lead), "\(scalar.codePoint)")
    }
  }

  @Test func identifiersReadAndWriteAsFoundationDoes() {
    var generator = SeededGenerator(seed: 0x5EED_0001)
    for _ in 0..<1_000 {
      let identifier = UUID(
        uuid: withUnsafeBytes(of: generator.next()) { high in
          withUnsafeBytes(of: generator.next()) { low in
            (
              high[0], high[1], high[2], high[3], high[4], high[5], high[6], high[7],
              low[0], low[1], low[2], low[3], low[4], low[5], low[6], low[7]
            )
          }
        })
      #expect(identifier.canonicalText == identifier.uuidString)
      #expect(UUID(canonical: identifier.uuidString) == identifier)
      #expect(UUID(canonical: identifier.uuidString.lowercased()) == identifier)
    }
    for text in [
      "", "FA542E3D-4895-44B6-942F-E112101D516", "FA542E3D-4895-44B6-942F-E112101D51600",
      "FA542E3D+4895-44B6-942F-E112101D5160", "GA542E3D-4895-44B6-942F-E112101D5160",
      "FA542E3D4895-44B6-942F-E112101D5160-", "FA542E3D-4895-44B6-942F-E112101D516é",
      // Forms Foundation's sscanf-based parser takes on Linux: a sign, a space inside a pair
      // of digits, text after a NUL. An identifier is its canonical form, nothing else.
      "+A542E3D-4895-44B6-942F-E112101D5160", "FA542E3D-4895-44B6-942F- 112101D5160",
      "FA542E3D-4895-44B6-942F-E112101D5160\u{0}x",
    ] {
      #expect(UUID(canonical: text) == nil, "\(text)")
    }
  }
}
