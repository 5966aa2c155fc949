import Foundation
import SearchIndex

extension String {
  /// The string folded for matching as search folds it (`TextFolding`): case, diacritics,
  /// width and compatibility forms removed, so that `GLAÏEUL`, `glaieul` and full-width
  /// `ｇｌａｉｅｕｌ` compare equal, and a name `select` finds is one search finds.
  package var folded: String { TextFolding.folded(self) }
}

extension String {
  /// The string cut to 80 characters, for messages that quote what someone typed.
  package var abbreviated: String {
    count <= 80 ? self : prefix(79) + "…"
  }
}

extension Unicode.Scalar {
  /// Whether a terminal may act on the character rather than show it: C0 and C1 controls,
  /// DEL, line and paragraph separators, and the bidirectional embeddings, overrides and
  /// isolates that reorder what is shown (U+202A–202E, U+2066–2069).
  package var isTerminalControl: Bool {
    switch value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }
}

extension String {
  /// The string with every character a terminal could act on written as an escape
  /// (`\u{1B}`), so that text from outside — a link, a file — prints as one inert line.
  package var escapingControlCharacters: String {
    guard unicodeScalars.contains(where: \.isTerminalControl) else { return self }
    var result = ""
    for scalar in unicodeScalars {
      if scalar.isTerminalControl {
        result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}

extension String {
  /// The string as a JSON string literal, quotes included: quotes, backslashes and line breaks
  /// escaped, and every character a terminal could act on written as `\u001b`, so that JSON
  /// output stays inert when printed.
  package var jsonQuoted: String {
    var result = "\""
    for scalar in unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where scalar.isTerminalControl:
        let hex = String(scalar.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
