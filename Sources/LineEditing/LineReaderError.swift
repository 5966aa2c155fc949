#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A line that cannot be used as typed.
package enum LineReaderError: Error, Sendable, Equatable, LocalizedError {
  /// The line is longer than the limit.
  case lineTooLong(bytes: Int, limit: Int)
  /// The line is not valid UTF-8.
  case invalidUTF8

  /// What went wrong and what to do, in one line.
  package var errorDescription: String? {
    switch self {
    case .lineTooLong(let bytes, let limit):
      "the line is too long (\(bytes) bytes; the limit is \(limit)); type a shorter command"
    case .invalidUTF8:
      "the line is not valid UTF-8; check the terminal's or the script's encoding"
    }
  }
}

/// What a completion hook gives for a line and its cursor: the candidates for the word before
/// the cursor, and where that word starts.
///
/// When more match than can be offered (a million product names), the candidates are the first
/// of them, ``total`` counts them all, and ``sharedPrefix`` is what they all start with, so
/// that Tab inserts no more than every match has.
package struct LineCompletion: Sendable, Hashable {
  /// Where the replaced word starts, as an index into the line's characters.
  package var start: Int
  /// The candidates, in the order to show them, each text once.
  package var candidates: [String]
  /// What a second Tab lists, one entry a match: the candidates, unless some stand for several
  /// matches (products of one name, each listed with its number).
  package var listing: [String]
  /// How many match in all; more than ``listing`` holds when it holds only the first.
  package var total: Int
  /// The text every match starts with, when the candidates are only the first matches.
  package var sharedPrefix: String?
  /// A line a listing ends with, saying how to read it.
  package var note: String?
  /// Whether a single candidate ends the argument (a space follows it).
  package var isFinal = true

  /// Creates a result.
  ///
  /// - Parameters:
  ///   - start: Where the replaced word starts.
  ///   - candidates: The candidates.
  ///   - listing: What a second Tab lists; the candidates when nil.
  ///   - total: How many match in all; the listing's count when nil.
  ///   - sharedPrefix: What every match starts with, when the candidates are not all of them.
  ///   - note: A line the listing ends with.
  ///   - isFinal: Whether a single candidate ends the argument.
  package init(
    start: Int, candidates: [String], listing: [String]? = nil, total: Int? = nil,
    sharedPrefix: String? = nil, note: String? = nil, isFinal: Bool = true
  ) {
    self.start = start
    self.candidates = candidates
    self.listing = listing ?? candidates
    self.total = max(total ?? 0, self.listing.count)
    self.sharedPrefix = sharedPrefix
    self.note = note
    self.isFinal = isFinal
  }

  /// What to put in place of the word: the one match (with a space after a final argument),
  /// or what every match starts with.
  package var replacement: String? {
    guard let first = candidates.first else { return nil }
    if candidates.count == 1 && total == 1 { return first + (isFinal ? " " : "") }
    return sharedPrefix ?? Self.commonPrefix(of: candidates)
  }

  /// The longest text every string starts with, letters compared whatever their case, as the
  /// first string spells it.
  ///
  /// - Parameter strings: The strings.
  /// - Returns: Their common prefix.
  package static func commonPrefix(of strings: [String]) -> String {
    guard let first = strings.first else { return "" }
    var prefix = Array(first)
    for string in strings.dropFirst() {
      let other = Array(string)
      var length = 0
      while length < min(prefix.count, other.count)
        && prefix[length].lowercased() == other[length].lowercased()
      {
        length += 1
      }
      prefix = Array(prefix.prefix(length))
    }
    return String(prefix)
  }
}

/// The rule a line history keeps: trailing white space trimmed, no empty line, no line
/// repeating the one before, the newest `capacity` kept.
package enum LineHistoryRule {
  /// The history with a line added.
  ///
  /// - Parameters:
  ///   - line: The line run.
  ///   - lines: The history, oldest first.
  ///   - capacity: The most lines kept.
  /// - Returns: The new history.
  package static func adding(_ line: String, to lines: [String], capacity: Int) -> [String] {
    let line = String(line.reversed().drop(while: \.isWhitespace).reversed())
    guard !line.isEmpty, lines.last != line else { return lines }
    return Array((lines + [line]).suffix(capacity))
  }
}
