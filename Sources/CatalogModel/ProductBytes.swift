/// A product as the bytes of its catalog row, for writing a million of them without making a
/// `Product` of each: only for a row whose bytes alone show that it keeps the editor's rules
/// (``init(identifier:name:imageName:keywords:year:cents:)`` says which), and valid only during
/// the call that gives it.
package struct ProductBytes {
  /// The identifier in canonical upper-case text.
  package var identifier: UnsafeBufferPointer<UInt8>
  /// The name: printable ASCII, trimmed.
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
  /// upper-case canonical identifier, a name of printable ASCII as the editor leaves it, a
  /// picture name of printable ASCII, keywords of plain UTF-8 (no character that could be a
  /// control one), each short enough in bytes, and the year and price in range. Nil for any
  /// other row, which is then read as a `Product` and checked in full.
  package init?(
    identifier: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>,
    imageName: UnsafeBufferPointer<UInt8>, keywords: UnsafeBufferPointer<UInt8>, year: Int,
    cents: Int
  ) {
    guard ProductEdit.years.contains(year), (0...Price.maximum.cents).contains(cents),
      Self.isCanonicalIdentifier(identifier),
      (1...ProductEdit.maximumNameLength).contains(name.count), name.first != 0x20,
      name.last != 0x20, Self.isPrintableASCII(name),
      imageName.count <= Product.maximumImageNameLength, Self.isPrintableASCII(imageName),
      Self.arePlainKeywords(keywords)
    else { return nil }
    (self.identifier, self.name, self.imageName, self.keywords) =
      (identifier, name, imageName, keywords)
    (self.year, self.cents) = (year, cents)
  }

  private static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    for byte in bytes where byte < 0x20 || byte > 0x7E { return false }
    return true
  }

  private static func isCanonicalIdentifier(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.count == 36 else { return false }
    for (offset, byte) in bytes.enumerated() {
      if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
        guard byte == 0x2D else { return false }
      } else {
        guard (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) else { return false }
      }
    }
    return true
  }

  /// Keywords no longer in bytes than the limit in characters, at most the most there may be,
  /// of printable ASCII and of UTF-8 sequences that cannot be control characters: two-byte
  /// ones from U+00A0, and three-byte ones led by 0xE3–0xEC or 0xEE–0xEF (CJK and most
  /// scripts). Anything else (U+2028, bidi controls, four-byte sequences) is left to the full
  /// check.
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
      guard length <= Product.maximumKeywordLength else { return false }
      switch byte {
      case 0x20...0x7E:
        index += 1
      case 0xC2...0xDF:
        guard index + 1 < bytes.count, bytes[index + 1] & 0xC0 == 0x80,
          byte != 0xC2 || bytes[index + 1] >= 0xA0
        else { return false }
        index += 2
      case 0xE3...0xEC, 0xEE...0xEF:
        guard index + 2 < bytes.count, bytes[index + 1] & 0xC0 == 0x80,
          bytes[index + 2] & 0xC0 == 0x80
        else { return false }
        index += 3
      default:
        return false
      }
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
