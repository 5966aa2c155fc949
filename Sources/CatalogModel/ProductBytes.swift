/// A product as the bytes of its catalog row, for writing a million of them without making a
/// `Product` of each: only for a row whose bytes alone show that it keeps the editor's rules
/// (``init(identifier:name:imageName:keywords:year:cents:)`` says which), and valid only during
/// the call that gives it.
package struct ProductBytes {
  /// The identifier in canonical upper-case text.
  package var identifier: UnsafeBufferPointer<UInt8>
  /// The name: plain UTF-8 (``init(identifier:name:imageName:keywords:year:cents:)``), trimmed.
  package var name: UnsafeBufferPointer<UInt8>
  /// The picture name: printable ASCII, relative to no directory.
  package var imageName: UnsafeBufferPointer<UInt8>
  /// The keywords, separated by the unit separator (0x1F); UTF-8 without control characters.
  package var keywords: UnsafeBufferPointer<UInt8>
  /// The year.
  package var year: Int
  /// The price in cents.
  package var cents: Int

  /// The row's bytes, when they show on their own that the row keeps the editor's rules: an
  /// upper-case canonical identifier, a name of plain UTF-8 (no character that could be a
  /// control one) as the editor leaves it, a picture name of printable ASCII, keywords of plain
  /// UTF-8, each short enough, and the year and price in range. Nil for any
  /// other row, which is then read as a `Product` and checked in full.
  package init?(
    identifier: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>,
    imageName: UnsafeBufferPointer<UInt8>, keywords: UnsafeBufferPointer<UInt8>, year: Int,
    cents: Int
  ) {
    guard ProductEdit.years.contains(year), (0...Price.maximum.cents).contains(cents),
      Self.isCanonicalIdentifier(identifier),
      Self.isPlainName(name),
      imageName.count <= Product.maximumImageNameLength, Self.isPrintableASCII(imageName),
      Self.arePlainKeywords(keywords)
    else { return nil }
    (self.identifier, self.name, self.imageName, self.keywords) =
      (identifier, name, imageName, keywords)
    (self.year, self.cents) = (year, cents)
  }

  private static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    printableASCIIEnd(bytes, from: 0) == bytes.count
  }

  /// The offset of the first byte at or after `index` that is not printable ASCII (0x20–0x7E),
  /// or the end: eight bytes at a time, then one at a time.
  @inline(__always)
  private static func printableASCIIEnd(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int)
    -> Int
  {
    guard let base = bytes.baseAddress else { return index }
    var index = index
    let ones: UInt64 = 0x0101_0101_0101_0101
    while index + 8 <= bytes.count {
      let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
      // A byte's high bit set in `below` if it is under 0x20, in `delete` if it is 0x7F
      // (exact as a whole, the tests for a byte of zero and a byte below a value).
      let below = (word &- ones &* 0x20) & ~word
      let other = word ^ (ones &* 0x7F)
      let delete = (other &- ones) & ~other
      guard (word | below | delete) & (ones &* 0x80) == 0 else { break }
      index += 8
    }
    while index < bytes.count, bytes[index] &- 0x20 < 0x5F { index += 1 }
    return index
  }

  /// Whether a name is one the editor leaves, told from its bytes: 1 to 100 scalars (so no
  /// more characters) of plain UTF-8 (``plainScalarLength(_:at:)``), no space at either end.
  private static func isPlainName(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard !bytes.isEmpty else { return false }
    var scalars = 0
    var index = 0
    var last = 0
    while index < bytes.count {
      let ascii = printableASCIIEnd(bytes, from: index)
      if ascii > index {
        scalars += ascii - index
        last = ascii - 1
        index = ascii
        continue
      }
      guard let length = plainScalarLength(bytes, at: index) else { return false }
      scalars += 1
      last = index
      index += length
    }
    guard scalars <= ProductEdit.maximumNameLength else { return false }
    // The only spaces plain UTF-8 holds: U+0020, U+00A0 and U+3000.
    func isSpace(at start: Int) -> Bool {
      switch bytes[start] {
      case 0x20: true
      case 0xC2: bytes[start + 1] == 0xA0
      case 0xE3: bytes[start + 1] == 0x80 && bytes[start + 2] == 0x80
      default: false
      }
    }
    return !isSpace(at: 0) && !isSpace(at: last)
  }

  /// The length of the UTF-8 sequence at an offset when it is plain: printable ASCII, a
  /// two-byte sequence from U+00A0, or a three-byte one led by 0xE3–0xEC or 0xEE–0xEF (CJK and
  /// most scripts), none of which is a control character or a line break; nil for anything
  /// else (U+2028, bidi controls, four-byte sequences), which is left to the full check.
  @inline(__always)
  private static func plainScalarLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int)
    -> Int?
  {
    let byte = bytes[index]
    switch byte {
    case 0x20...0x7E:
      return 1
    case 0xC2...0xDF:
      guard index + 1 < bytes.count, bytes[index + 1] & 0xC0 == 0x80,
        byte != 0xC2 || bytes[index + 1] >= 0xA0
      else { return nil }
      return 2
    case 0xE3...0xEC, 0xEE...0xEF:
      guard index + 2 < bytes.count, bytes[index + 1] & 0xC0 == 0x80,
        bytes[index + 2] & 0xC0 == 0x80
      else { return nil }
      return 3
    default:
      return nil
    }
  }

  private static func isCanonicalIdentifier(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.count == 36 else { return false }
    var offset = 0
    for byte in bytes {
      if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
        guard byte == 0x2D else { return false }
      } else {
        // 0–9 or A–F, each one unsigned comparison.
        guard byte &- 0x30 < 10 || byte &- 0x41 < 6 else { return false }
      }
      offset += 1
    }
    return true
  }

  /// Keywords of plain UTF-8 (``plainScalarLength(_:at:)``), none longer in scalars than the
  /// limit in characters, at most the most there may be.
  private static func arePlainKeywords(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var count = bytes.isEmpty ? 0 : 1
    var length = 0
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == 0x1F {
        count += 1
        length = 0
        index += 1
        continue
      }
      length += 1
      guard length <= Product.maximumKeywordLength,
        let scalarLength = plainScalarLength(bytes, at: index)
      else { return false }
      index += scalarLength
    }
    return count <= Product.maximumKeywordCount
  }
}

/// A product of the catalog, as its row's bytes or, for a row that needed the full check, as a
/// `Product`.
package enum ProductRecord {
  /// A row whose bytes showed it keeps the editor's rules.
  case bytes(ProductBytes)
  /// A row read and checked in full.
  case product(Product)
}
