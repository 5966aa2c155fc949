import Foundation

extension UUID {
  /// Parses the canonical text form (`FA542E3D-4895-44B6-942F-E112101D5160`, either case)
  /// without Foundation's `sscanf`: a million identifiers are parsed when a catalog is
  /// imported.
  ///
  /// Nil when the text is not in the canonical form.
  ///
  /// - Parameter text: The text.
  package init?(canonical text: String) {
    var bytes = [UInt8](repeating: 0, count: 16)
    var index = 0
    var high: UInt8?
    var offset = 0
    for byte in text.utf8 {
      defer { offset += 1 }
      if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
        guard byte == UInt8(ascii: "-") else { return nil }
        continue
      }
      let value: UInt8
      switch byte {
      case 0x30...0x39: value = byte - 0x30
      case 0x41...0x46: value = byte - 0x41 + 10
      case 0x61...0x66: value = byte - 0x61 + 10
      default: return nil
      }
      guard index < 16 else { return nil }
      if let first = high {
        bytes[index] = first << 4 | value
        index += 1
        high = nil
      } else {
        high = value
      }
    }
    guard offset == 36, index == 16 else { return nil }
    self.init(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }

  /// The canonical upper-case text form, as `uuidString` gives, without `printf`.
  package var canonicalText: String {
    let digits = Array("0123456789ABCDEF".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(36)
    withUnsafeBytes(of: uuid) { bytes in
      for (index, byte) in bytes.enumerated() {
        if index == 4 || index == 6 || index == 8 || index == 10 { text.append(0x2D) }
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
      }
    }
    return String(decoding: text, as: UTF8.self)
  }
}
