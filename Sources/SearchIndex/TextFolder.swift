import Foundation

/// How text is folded for matching, wherever it is matched: a search's words, and a catalog's
/// names (`select`, completion). One folding, so that what one finds the other finds too.
package enum TextFolding {
  /// One scalar folded: decomposed by compatibility (ligatures, circled, full-width and
  /// half-width forms, superscripts, fractions: `ﬁ` is `fi`, `Ⓐ` is `a`, `²` is `2`), then case
  /// folded (`ß` is `ss`), with diacritics and width removed; combining marks left over are
  /// dropped. A Hangul syllable stays whole: decomposing it into jamo would split every word.
  ///
  /// - Parameter scalar: The scalar.
  /// - Returns: Its folded scalars; none for a mark.
  package static func fold(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
    if scalar.value < 0x80 {
      let byte = UInt8(truncatingIfNeeded: scalar.value)
      return [Unicode.Scalar((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)]
    }
    if (0xAC00...0xD7A3).contains(scalar.value) { return [scalar] }
    let folded = String(scalar).decomposedStringWithCompatibilityMapping.folding(
      options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    return folded.unicodeScalars.filter { scalar in
      switch scalar.properties.generalCategory {
      case .nonspacingMark, .spacingMark, .enclosingMark: false
      default: true
      }
    }
  }

  /// Text folded whole, every scalar as ``fold(_:)`` folds it and separators kept: what a
  /// catalog compares names by (`GLAÏEUL`, `glaieul` and full-width `ｇｌａｉｅｕｌ` are
  /// equal).
  ///
  /// - Parameter text: The text.
  /// - Returns: The folded text.
  package static func folded(_ text: String) -> String {
    // Plain ASCII folds to its lower case without Foundation: a million names are folded
    // when a catalog is imported.
    let bytes = text.utf8
    if bytes.allSatisfy({ $0 < 0x80 }) {
      guard bytes.contains(where: { (0x41...0x5A).contains($0) }) else { return text }
      return String(
        decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars { result.append(contentsOf: fold(scalar)) }
    return String(result)
  }
}

extension TextFolding {
  /// The word of a text, as the text writes it, that folds to a token: what a search matched,
  /// shown as the product has it (`glaïeul` for `glaieul`).
  ///
  /// - Parameters:
  ///   - token: A token of the text, folded (a word, or a run of Chinese or Japanese).
  ///   - text: The text.
  /// - Returns: The word as written, or nil when no word of the text folds to it.
  package static func word(foldingTo token: String, in text: String) -> String? {
    var folder = TextFolder()
    var start: String.UnicodeScalarView.Index?
    var kind = TextFolder.Kind.separator
    let scalars = text.unicodeScalars
    var index = scalars.startIndex
    while true {
      let next: TextFolder.Kind =
        index == scalars.endIndex
        ? .separator : fold(scalars[index]).first.map(TextFolder.kind(of:)) ?? kind
      if next != kind {
        if let first = start {
          let word = String(scalars[first..<index])
          if folder.tokens(word).map(\.text) == [token] { return word }
        }
        start = next == .separator ? nil : index
        kind = next
      }
      guard index < scalars.endIndex else { return nil }
      index = scalars.index(after: index)
    }
  }
}

/// A piece of folded text: a word, or a run of Chinese or Japanese characters.
struct FoldedToken: Hashable, Sendable {
  /// The folded text.
  var text: String
  /// Whether it is a run of CJK characters, matched by substring rather than by word.
  var isCJK: Bool
}

/// Folds text for search as ``TextFolding`` folds it and splits it into tokens: letters and
/// digits make words; Han, hiragana and katakana make CJK runs; everything else separates.
///
/// Folding a non-ASCII scalar goes through Foundation once and is then cached, so a folder is
/// fast on large inputs; it is a value with its own cache, used by one thread at a time.
struct TextFolder {
  enum Kind: UInt8 {
    case separator, word, cjk
  }

  /// Each non-ASCII scalar seen so far: its folded form as UTF-8, in runs of one kind.
  private var cache: [UInt32: [(bytes: [UInt8], kind: Kind)]] = [:]
  private var buffer: [UInt8] = []

  /// The tokens of a text, in order.
  mutating func tokens(_ text: String) -> [FoldedToken] {
    var tokens: [FoldedToken] = []
    forEachToken(in: text) { tokens.append($0) }
    return tokens
  }

  /// Calls `body` with each token of a text, in order, without collecting them.
  mutating func forEachToken(in text: String, _ body: (FoldedToken) -> Void) {
    var kind = Kind.separator
    buffer.removeAll(keepingCapacity: true)
    for scalar in text.unicodeScalars {
      let value = scalar.value
      if value < 0x80 {
        var byte = UInt8(truncatingIfNeeded: value)
        let next: Kind
        switch byte {
        case 0x61...0x7A, 0x30...0x39: next = .word
        case 0x41...0x5A:
          byte += 0x20
          next = .word
        default: next = .separator
        }
        if next != kind {
          flush(kind, body)
          kind = next
        }
        if next == .word { buffer.append(byte) }
        continue
      }
      for (bytes, next) in fold(scalar) {
        if next != kind {
          flush(kind, body)
          kind = next
        }
        if next != .separator { buffer.append(contentsOf: bytes) }
      }
    }
    flush(kind, body)
  }

  private mutating func flush(_ kind: Kind, _ body: (FoldedToken) -> Void) {
    guard !buffer.isEmpty else { return }
    body(FoldedToken(text: String(decoding: buffer, as: UTF8.self), isCJK: kind == .cjk))
    buffer.removeAll(keepingCapacity: true)
  }

  private mutating func fold(_ scalar: Unicode.Scalar) -> [(bytes: [UInt8], kind: Kind)] {
    if let cached = cache[scalar.value] { return cached }
    let folded = TextFolding.fold(scalar).map { ($0, Self.kind(of: $0)) }
    var runs: [(bytes: [UInt8], kind: Kind)] = []
    for (folded, kind) in folded {
      if runs.last?.kind != kind { runs.append(([], kind)) }
      runs[runs.count - 1].bytes.append(contentsOf: String(folded).utf8)
    }
    cache[scalar.value] = runs
    return runs
  }

  static func kind(of scalar: Unicode.Scalar) -> Kind {
    switch scalar.value {
    case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,
      0x20000...0x3FFFF, 0x3005:
      return .cjk
    default:
      switch scalar.properties.generalCategory {
      case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
        .decimalNumber, .letterNumber, .otherNumber:
        return .word
      default:
        return .separator
      }
    }
  }
}

extension FoldedToken {
  /// The terms a CJK run is indexed under: each character and each pair of neighbours.
  var grams: [String] {
    let characters = Array(text.unicodeScalars)
    var grams = characters.map { String(Character($0)) }
    if characters.count > 1 {
      for index in 0..<(characters.count - 1) {
        var pair = String.UnicodeScalarView()
        pair.append(characters[index])
        pair.append(characters[index + 1])
        grams.append(String(pair))
      }
    }
    return grams
  }
}
