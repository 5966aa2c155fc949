/// Where a term matched.
public enum SearchField: String, Sendable, Hashable {
  /// The document's title: a product's name.
  case title
  /// The document's keywords.
  case keywords
}

/// How a term matched.
public enum MatchKind: String, Sendable, Hashable, Comparable {
  /// A word equal to the term (for Chinese and Japanese: the characters appear in order).
  case exact
  /// A word starting with the term.
  case prefix
  /// A word, or the start of one, one edit away from the term.
  case typo

  /// Exact ranks above prefix, and prefix above typo.
  public static func < (lhs: MatchKind, rhs: MatchKind) -> Bool {
    lhs.rank < rhs.rank
  }

  var rank: Int {
    switch self {
    case .exact: 2
    case .prefix: 1
    case .typo: 0
    }
  }
}

/// A parsed search query: terms, all required; words match by prefix, with one typo allowed
/// in words of five letters or more; quoted phrases match in order; Chinese and Japanese match
/// by substring.
public struct SearchQuery: Sendable, Hashable {
  struct Term: Sendable, Hashable {
    /// The folded term.
    var text: String
    /// Whether words starting with it match (words outside quotes).
    var matchesPrefix: Bool
    /// Whether a word one edit away matches, ranked lower.
    var allowsTypo: Bool
    /// Whether it is a character or pair of a CJK run.
    var isGram: Bool
  }

  /// The longest query accepted, in bytes.
  public static let maximumLength = 1000
  /// The most terms a query may have.
  public static let maximumTerms = 16

  var terms: [Term]
  /// Phrases: folded words that must appear in this order in one field.
  var phrases: [[String]]
  /// CJK runs of three characters or more, which must appear whole in one field.
  var substrings: [String]

  /// Parses a query.
  ///
  /// - Parameter text: What the user typed, such as `cher`, `red rose`, `"rose rouge"` or `樱桃`.
  /// - Throws: ``SearchIndexError/emptyQuery``, ``SearchIndexError/queryTooLong(bytes:limit:)``
  ///   or ``SearchIndexError/tooManyTerms(count:limit:)``.
  public init(_ text: String) throws(SearchIndexError) {
    guard text.utf8.count <= Self.maximumLength else {
      throw .queryTooLong(bytes: text.utf8.count, limit: Self.maximumLength)
    }
    var folder = TextFolder()
    var terms: [Term] = []
    var phrases: [[String]] = []
    var substrings: [String] = []
    // Outside quotes at even indexes, inside at odd ones; an unclosed quote runs to the end.
    for (index, part) in text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
    {
      let quoted = !index.isMultiple(of: 2)
      let tokens = folder.tokens(String(part))
      if quoted, tokens.count > 1 { phrases.append(tokens.filter { !$0.isCJK }.map(\.text)) }
      for token in tokens {
        if token.isCJK {
          let grams = token.grams
          let scalars = token.text.unicodeScalars.count
          // One character: itself; more: its pairs, which a longer run must then hold whole.
          let used = scalars == 1 ? grams : Array(grams.suffix(scalars - 1))
          for gram in used {
            terms.append(Term(text: gram, matchesPrefix: false, allowsTypo: false, isGram: true))
          }
          if scalars > 2 { substrings.append(token.text) }
        } else {
          terms.append(
            Term(
              text: token.text, matchesPrefix: !quoted,
              allowsTypo: !quoted && token.text.unicodeScalars.count >= 5, isGram: false))
        }
      }
    }
    var seen: Set<Term> = []
    terms = terms.filter { seen.insert($0).inserted }
    guard !terms.isEmpty else { throw .emptyQuery }
    guard terms.count <= Self.maximumTerms else {
      throw .tooManyTerms(count: terms.count, limit: Self.maximumTerms)
    }
    self.terms = terms
    self.phrases = phrases.filter { $0.count > 1 }
    self.substrings = substrings
  }
}
