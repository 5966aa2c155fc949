extension Unicode.Scalar {
  /// Whether the scalar is a space as Foundation's `CharacterSet.whitespaces` has it: a tab,
  /// a space separator (general category Zs), or the zero-width space U+200B.
  ///
  /// The space separators are listed rather than looked up in the scalar's properties: an
  /// export asks this of each end of a million keywords. The list has been Unicode's since
  /// version 6.3, and a test compares it with the properties of every scalar.
  package var isSpace: Bool {
    switch value {
    case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
    default: false
    }
  }

  /// Whether a UTF-8 sequence of more than one byte led by `lead` may encode a space
  /// (``isSpace``): the spaces beyond ASCII are U+00A0 (led by 0xC2), U+1680 (0xE1), those
  /// from U+2000 to U+205F (0xE2) and U+3000 (0xE3), so no other lead begins one.
  ///
  /// - Parameter lead: The sequence's first byte, 0x80 or above.
  /// - Returns: Whether the scalar it begins must be decoded to tell.
  package static func mayBeginSpace(utf8Lead lead: UInt8) -> Bool {
    lead == 0xC2 || (0xE1...0xE3).contains(lead)
  }

  /// Whether the scalar is a space or a line break as Foundation's
  /// `CharacterSet.whitespacesAndNewlines` has it: a space, U+000A–U+000D, U+0085, or a line
  /// or paragraph separator.
  package var isSpaceOrNewline: Bool {
    switch value {
    case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
    default: isSpace
    }
  }
}

extension String {
  /// The string without the spaces (``Unicode/Scalar/isSpace``) at its ends, as Foundation's
  /// `trimmingCharacters(in: .whitespaces)` gives it, without bridging: an import trims a
  /// million names and prices.
  package var trimmingSpaces: String { trimming(\.isSpace) }

  /// The string without spaces and line breaks (``Unicode/Scalar/isSpaceOrNewline``) at its
  /// ends, as Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)` gives it.
  package var trimmingSpacesAndNewlines: String { trimming(\.isSpaceOrNewline) }

  private func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
    // Most text starts and ends with a printable ASCII character: nothing to trim.
    let bytes = utf8
    guard let first = bytes.first, let last = bytes.last else { return self }
    if first < 0x80, last < 0x80, !isTrimmed(Unicode.Scalar(first)),
      !isTrimmed(Unicode.Scalar(last))
    {
      return self
    }
    let scalars = unicodeScalars
    guard let start = scalars.firstIndex(where: { !isTrimmed($0) }),
      let end = scalars.lastIndex(where: { !isTrimmed($0) })
    else { return "" }
    return String(scalars[start...end])
  }
}
