#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension UUID {
  /// Parses the canonical text form (`FA542E3D-4895-44B6-942F-E112101D5160`, either case)
  /// without Foundation's `sscanf`: a million identifiers are parsed when a catalog is
  /// imported.
  ///
  /// Nil when the text is not in the canonical form.
  ///
  /// - Parameter text: The text.
  package init?(canonical text: String) {
    var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var text = text
    let parsed = text.withUTF8 { characters in
      guard characters.count == 36 else { return false }
      return withUnsafeMutableBytes(of: &uuid) { bytes in
        var index = 0
        var high: UInt8?
        for (offset, character) in characters.enumerated() {
          if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
            guard character == UInt8(ascii: "-") else { return false }
            continue
          }
          let value: UInt8
          switch character {
          case 0x30...0x39: value = character - 0x30
          case 0x41...0x46: value = character - 0x41 + 10
          case 0x61...0x66: value = character - 0x61 + 10
          default: return false
          }
          if let first = high {
            bytes[index] = first << 4 | value
            index += 1
            high = nil
          } else {
            high = value
          }
        }
        return true
      }
    }
    guard parsed else { return nil }
    self.init(uuid: uuid)
  }

  /// The canonical upper-case text form, as `uuidString` gives, without `printf`.
  package var canonicalText: String {
    let digits: StaticString = "0123456789ABCDEF"
    return withUnsafeBytes(of: uuid) { bytes in
      String(unsafeUninitializedCapacity: 36) { text in
        var length = 0
        for (index, byte) in bytes.enumerated() {
          if index == 4 || index == 6 || index == 8 || index == 10 {
            text[length] = 0x2D
            length += 1
          }
          text[length] = digits.utf8Start[Int(byte >> 4)]
          text[length + 1] = digits.utf8Start[Int(byte & 0x0F)]
          length += 2
        }
        return length
      }
    }
  }
}
