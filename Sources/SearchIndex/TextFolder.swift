import Foundation

/// A piece of folded text: a word, or a run of Chinese or Japanese characters.
struct FoldedToken: Hashable, Sendable {
  /// The folded text.
  var text: String
  /// Whether it is a run of CJK characters, matched by substring rather than by word.
  var isCJK: Bool
}

/// Folds text for search and splits it into tokens: compatibility decomposition (so full-width
/// `ＡＢＣ` is `abc` and half-width katakana is full width), case folding, and diacritic
/// removal (`Glaïeul` is `glaieul`). Letters and digits make words; Han, hiragana and katakana
/// make CJK runs; everything else separates.
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
    var folded: [(Unicode.Scalar, Kind)] = []
    if (0xAC00...0xD7A3).contains(scalar.value) {
      // Hangul syllables stay whole: decomposing them into jamo would split every word.
      folded = [(scalar, .word)]
    } else {
      for decomposed in String(scalar).decomposedStringWithCompatibilityMapping.unicodeScalars {
        switch decomposed.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: continue
        default: break
        }
        for lower in decomposed.properties.lowercaseMapping.unicodeScalars {
          folded.append((lower, Self.kind(of: lower)))
        }
      }
    }
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
