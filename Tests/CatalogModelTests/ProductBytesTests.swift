import CatalogModel
import Foundation
import Testing

/// A row is written from its bytes only when they show it keeps the editor's rules: never a
/// row the full check would skip.
@Suite struct ProductBytesTests {
  static let identifier = "6E9A3F0C-1B2D-4E5F-8A7B-9C0D1E2F3A4B"

  /// Whether a row with this name is taken from its bytes.
  static func takesBytes(name: String, imageName: String = "kiwi", keywords: String = "") -> Bool {
    takesBytes(name: Array(name.utf8), imageName: Array(imageName.utf8), keywords: keywords)
  }

  /// Whether a row with this name's bytes is taken from its bytes.
  static func takesBytes(name: [UInt8], imageName: [UInt8], keywords: String = "") -> Bool {
    Array(identifier.utf8).withUnsafeBufferPointer { identifier in
      name.withUnsafeBufferPointer { name in
        imageName.withUnsafeBufferPointer { imageName in
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

  /// A long name or picture name (read eight bytes at a time) is taken only when every byte,
  /// wherever it falls in a group of eight, is one the rules allow.
  @Test func everyByteOfALongNameIsChecked() {
    let plain = Array(repeating: UInt8(ascii: "k"), count: 27)
    #expect(Self.takesBytes(name: plain, imageName: plain))
    for position in 1..<(plain.count - 1) {
      for byte: UInt8 in [0x00, 0x01, 0x0A, 0x1F, 0x7F, 0x80, 0x9B, 0xFF] {
        var name = plain
        name[position] = byte
        #expect(!Self.takesBytes(name: name, imageName: plain), "\(byte) at \(position)")
        #expect(!Self.takesBytes(name: plain, imageName: name), "\(byte) at \(position)")
      }
      for byte: UInt8 in [0x20, 0x21, 0x7E] {
        var name = plain
        name[position] = byte
        #expect(Self.takesBytes(name: name, imageName: name), "\(byte) at \(position)")
      }
    }
  }

  /// A name's characters are counted across the groups of eight bytes: 100 are taken, 101
  /// are not, in ASCII alone or with other characters among them.
  @Test(arguments: ["", "é", "玫"])
  func aLongNamesCharactersAreCounted(_ other: String) {
    let rest = String(repeating: "k", count: other.isEmpty ? 40 : 39)
    let hundred = String(repeating: "k", count: 60) + other + rest
    #expect(Self.takesBytes(name: hundred))
    #expect(!Self.takesBytes(name: hundred + "k"))
  }
}
