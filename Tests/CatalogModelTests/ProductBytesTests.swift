import CatalogModel
import Foundation
import Testing

/// A row is written from its bytes only when they show it keeps the editor's rules: never a
/// row the full check would skip.
@Suite struct ProductBytesTests {
  static let identifier = "6E9A3F0C-1B2D-4E5F-8A7B-9C0D1E2F3A4B"

  /// Whether a row with this name is taken from its bytes.
  static func takesBytes(name: String, keywords: String = "") -> Bool {
    Array(identifier.utf8).withUnsafeBufferPointer { identifier in
      Array(name.utf8).withUnsafeBufferPointer { name in
        Array("kiwi".utf8).withUnsafeBufferPointer { imageName in
          Array(keywords.utf8).withUnsafeBufferPointer { keywords in
            ProductBytes(
              identifier: identifier, name: name, imageName: imageName, keywords: keywords,
              year: 2020, cents: 199) != nil
          }
        }
      }
    }
  }

  /// Names of letters beyond ASCII, CJK among them, as most catalogs have.
  @Test(arguments: [
    "Kiwi", "Über Orchid", "Crème Brûlée", "Señor Café", "红玫瑰", "さくら 一品红", "Ki\u{00A0}wi",
    "Ki\u{3000}wi", String(repeating: "玫", count: 100), "Ελιά", "Кедр",
  ])
  func plainNamesAreTakenFromTheirBytes(_ name: String) {
    #expect(Self.takesBytes(name: name))
  }

  /// Names the full check must see: spaces at an end, control characters, line and paragraph
  /// separators, bidi controls, four-byte characters, too many characters, none.
  @Test(arguments: [
    "", " Kiwi", "Kiwi ", "\u{00A0}Kiwi", "Kiwi\u{00A0}", "\u{3000}Kiwi", "Kiwi\u{3000}",
    "\u{3000}", "Ki\u{0085}wi", "Ki\u{2028}wi", "Ki\u{202E}wi", "Ki\u{2066}wi", "Ki\twi",
    "Ki\u{1B}wi", "Ki\u{9B}wi", "🥝 Kiwi", "Ki\u{200B}wi", String(repeating: "玫", count: 101),
    String(repeating: "k", count: 101),
  ])
  func otherNamesAreCheckedInFull(_ name: String) {
    #expect(!Self.takesBytes(name: name))
  }

  /// Every name the bytes take, from pieces that meet at every boundary, keeps the rules.
  @Test func aNameTakenFromItsBytesKeepsTheRules() throws {
    let pieces = [
      "a", " ", "é", "\u{00A0}", "\u{3000}", "玫", "\u{0301}", "\u{FEFF}", "\u{2028}", "\t", "Ω",
      "\u{E000}", "\u{FFFD}",
    ]
    let identifier = try #require(UUID(uuidString: Self.identifier))
    for first in pieces {
      for second in pieces {
        for third in pieces {
          let name = first + second + third
          guard Self.takesBytes(name: name) else { continue }
          let product = Product(
            identifier: identifier, name: name, imageName: "kiwi", year: 2020,
            price: Price(cents: 199))
          #expect(product.ruleViolation == nil, "\(name.unicodeScalars.map(\.value))")
          #expect(name.trimmingCharacters(in: .whitespacesAndNewlines) == name)
        }
      }
    }
  }
}
