import CatalogModel
import StateRestoration
import SystemSupport

#if canImport(Glibc)
  import Glibc
#endif

/// How a text cell of a CSV export is written so that an import reads back the very same text,
/// and so that a spreadsheet opening the file never runs one as a formula.
package enum CSVCell {
  /// What a cell for spreadsheets begins with when its text would read as a formula.
  static let formulaMark = UInt8(ascii: "'")

  /// Whether a cell beginning with a byte is one a spreadsheet would run as a formula (`=`,
  /// `+`, `-`, `@`, a tab or a carriage return) — or one beginning with the mark itself, which
  /// is marked too so that taking one mark off is always right.
  static func startsFormula(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D,
      formulaMark:
      true
    default: false
    }
  }

  /// A cell of a file for spreadsheets as the text it stands for: one mark taken off a cell
  /// the export marked.
  ///
  /// - Parameter cell: The cell's text.
  /// - Returns: The text.
  static func unmarked(_ cell: String) -> String {
    let bytes = cell.utf8
    guard bytes.count >= 2, bytes.first == formulaMark,
      startsFormula(bytes[bytes.index(after: bytes.startIndex)])
    else { return cell }
    return String(cell.dropFirst())
  }

  /// The keywords cell of products' keywords, given as stored (separated by the unit separator,
  /// 0x1F): joined by `;` when the importer splits them back into the same keywords, else a
  /// JSON array of strings (a keyword holding `;`, an empty one, one with spaces at an end, or
  /// a first one beginning with `[`).
  ///
  /// - Parameter keywords: The keywords, separated by 0x1F.
  /// - Returns: The cell's bytes.
  /// - Complexity: O(*n*) in the bytes.
  static func keywords<Bytes: Collection<UInt8>>(_ keywords: Bytes) -> [UInt8] {
    guard !keywords.isEmpty else { return [] }
    let plain =
      keywords.withContiguousStorageIfAvailable(isPlainList)
      ?? Array(keywords).withUnsafeBufferPointer(isPlainList)
    if plain { return keywords.map { $0 == 0x1F ? UInt8(ascii: ";") : $0 } }
    let words = keywords.split(separator: 0x1F, omittingEmptySubsequences: false).map {
      String(decoding: $0, as: UTF8.self)
    }
    return Array(("[" + words.map(\.jsonQuoted).joined(separator: ", ") + "]").utf8)
  }

  /// Whether keywords separated by 0x1F split back from `;` as they are, told from their bytes:
  /// each is not empty and holds no `;`, neither of its ends is a space (as the importer's
  /// trimming counts spaces), and the first does not begin with `[`.
  static func isPlainList(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress, bytes.first != UInt8(ascii: "["),
      memchr(base, Int32(UInt8(ascii: ";")), bytes.count) == nil
    else { return false }
    var start = 0
    while true {
      let end =
        memchr(base + start, 0x1F, bytes.count - start).map {
          UnsafeRawPointer($0) - UnsafeRawPointer(base)
        } ?? bytes.count
      guard start < end, !isSpace(startingAt: start, in: bytes),
        !isSpace(endingAt: end, after: start, in: bytes)
      else { return false }
      guard end < bytes.count else { return true }
      start = end + 1
    }
  }

  /// Whether the character starting at an offset of UTF-8 bytes is a space.
  private static func isSpace(startingAt offset: Int, in bytes: UnsafeBufferPointer<UInt8>)
    -> Bool
  {
    let lead = bytes[offset]
    guard lead >= 0x80 else { return Unicode.Scalar(lead).isSpace }
    guard Unicode.Scalar.mayBeginSpace(utf8Lead: lead) else { return false }
    let length = lead >= 0xE0 ? 3 : 2
    guard offset + length <= bytes.count else { return true }
    var value = UInt32(lead) & (0x7F >> length)
    for index in offset + 1..<offset + length { value = value << 6 | UInt32(bytes[index] & 0x3F) }
    return Unicode.Scalar(value)?.isSpace ?? true
  }

  /// Whether the character ending before an offset of UTF-8 bytes (and not before `start`) is
  /// a space.
  private static func isSpace(
    endingAt end: Int, after start: Int, in bytes: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    var first = end - 1
    while first > start, bytes[first] & 0xC0 == 0x80 { first -= 1 }
    return isSpace(startingAt: first, in: bytes)
  }

  /// The keywords of a keywords cell: a JSON array of strings as it is, or else the text split
  /// at `;`, each keyword trimmed of spaces and empty ones left out.
  ///
  /// - Parameter cell: The cell's text.
  /// - Returns: The keywords.
  static func keywords(ofCell cell: String) -> [String] {
    if cell.utf8.first == UInt8(ascii: "["),
      case .array(let values)? = try? JSONValue(parsing: cell.utf8)
    {
      let strings = values.compactMap { value -> String? in
        if case .string(let text) = value { return text }
        return nil
      }
      if strings.count == values.count { return strings }
    }
    return splitKeywords(cell)
  }

  /// The keywords of a `keywords` field: separated by `;`, trimmed of spaces, empty ones left
  /// out.
  static func splitKeywords(_ field: String) -> [String] {
    var keywords: [String] = []
    var field = field
    field.withUTF8 { bytes in
      var start = 0
      for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: ";") {
        // ASCII spaces here; other spaces (U+00A0, …) are rare enough for the general trim.
        var first = start
        var end = index
        while first < end, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
        while end > first, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        start = index + 1
        guard first < end else { continue }
        let keyword = String(
          decoding: UnsafeBufferPointer(rebasing: bytes[first..<end]), as: UTF8.self)
        if bytes[first] < 0x80 && bytes[end - 1] < 0x80 {
          keywords.append(keyword)
        } else if case let trimmed = keyword.trimmingSpaces, !trimmed.isEmpty {
          keywords.append(trimmed)
        }
      }
    }
    return keywords
  }
}
