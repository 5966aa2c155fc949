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
package struct LineCompletion: Sendable, Hashable {
  /// Where the replaced word starts, as an index into the line's characters.
  package var start: Int
  /// The candidates, in the order to show them.
  package var candidates: [String]
  /// Whether a single candidate ends the argument (a space follows it).
  package var isFinal = true

  /// Creates a result.
  ///
  /// - Parameters:
  ///   - start: Where the replaced word starts.
  ///   - candidates: The candidates.
  ///   - isFinal: Whether a single candidate ends the argument.
  package init(start: Int, candidates: [String], isFinal: Bool = true) {
    self.start = start
    self.candidates = candidates
    self.isFinal = isFinal
  }

  /// What to put in place of the word: the one candidate (with a space after a final
  /// argument), or the candidates' longest common prefix.
  package var replacement: String? {
    guard let first = candidates.first else { return nil }
    if candidates.count == 1 { return first + (isFinal ? " " : "") }
    var prefix = Array(first)
    for candidate in candidates.dropFirst() {
      let other = Array(candidate)
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
