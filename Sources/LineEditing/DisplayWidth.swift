/// How many terminal columns text takes: East Asian wide and full-width characters and emoji
/// take two, combining marks and other zero-width characters none, control characters none.
package enum DisplayWidth {
  /// The columns a string takes.
  ///
  /// - Parameter text: The text.
  /// - Returns: The width in columns.
  /// - Complexity: O(*n*) in the length of the text.
  package static func of(_ text: String) -> Int {
    asciiWidth(of: text.utf8) ?? charactersWidth(of: text)
  }

  /// The columns part of a string takes.
  ///
  /// - Parameter text: The text.
  /// - Returns: The width in columns.
  /// - Complexity: O(*n*) in the length of the text.
  package static func of(_ text: Substring) -> Int {
    asciiWidth(of: text.utf8) ?? charactersWidth(of: text)
  }

  /// ASCII, most of what a table holds, by its bytes: a printable one takes a column, a control
  /// character none, and no grapheme joins two of them into one that takes more. Nil for text
  /// that is not all ASCII.
  private static func asciiWidth(of bytes: some Sequence<UInt8>) -> Int? {
    var width = 0
    for byte in bytes {
      guard byte < 0x80 else { return nil }
      if byte >= 0x20 && byte < 0x7F { width += 1 }
    }
    return width
  }

  private static func charactersWidth(of text: some StringProtocol) -> Int {
    var width = 0
    for character in text { width += of(character) }
    return width
  }

  /// Text cut to fit a number of columns, ending with `…` when it was cut.
  ///
  /// - Parameters:
  ///   - text: The text.
  ///   - width: The most columns it may take.
  /// - Returns: The text, or as much of it as fits beside the `…`.
  package static func truncated(_ text: String, toWidth width: Int) -> String {
    guard of(text) > width else { return text }
    var kept = ""
    var used = 0
    for character in text {
      let next = of(character)
      guard used + next < width else { break }
      kept.append(character)
      used += next
    }
    return width > 0 ? kept + "…" : ""
  }

  /// The columns one character (a grapheme cluster) takes.
  ///
  /// - Parameter character: The character.
  /// - Returns: 0, 1 or 2.
  package static func of(_ character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    if first.value < 0x7F { return first.value < 0x20 ? 0 : 1 }
    // An emoji shown as an emoji: by default, or asked for with variation selector 16.
    if first.properties.isEmojiPresentation
      || (first.properties.isEmoji && scalars.contains("\u{FE0F}"))
    {
      return 2
    }
    var width = 0
    for scalar in scalars { width = max(width, of(scalar)) }
    return width
  }

  /// The columns one scalar takes on its own.
  static func of(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    switch value {
    case 0..<0x20, 0x7F..<0xA0: return 0
    case 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0xFEFF: return 0
    default: break
    }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul medial vowels and finals
    return isWide(value) ? 2 : 1
  }

  private static func isWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
      0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
      0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
      0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD,
      0x30000...0x3FFFD:
      return true
    default:
      return false
    }
  }
}
