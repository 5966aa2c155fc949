/// A document's fields as folded tokens: what the index stores to check phrases and CJK
/// substrings, to explain matches, and to score documents outside its postings.
struct FoldedDocument: Sendable, Hashable {
  /// The title's tokens.
  var title: [FoldedToken]
  /// Each keyword's tokens.
  var keywords: [[FoldedToken]]

  init(_ document: SearchDocument, folder: inout TextFolder) {
    title = folder.tokens(document.title)
    keywords = document.keywords.map { folder.tokens($0) }.filter { !$0.isEmpty }
  }

  /// The fields as one string: tokens separated by spaces, keywords by newlines, the title from
  /// the keywords by a NUL. Folded tokens hold no separators, so this reads back unchanged.
  var stored: String {
    title.map(\.text).joined(separator: " ") + "\u{0}"
      + keywords.map { $0.map(\.text).joined(separator: " ") }.joined(separator: "\n")
  }

  init(stored: Substring) {
    func tokens(_ text: Substring) -> [FoldedToken] {
      text.split(separator: " ").map { word in
        FoldedToken(
          text: String(word),
          isCJK: word.unicodeScalars.first.map { TextFolder.kind(of: $0) == .cjk } ?? false)
      }
    }
    let parts = stored.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
    title = tokens(parts[0])
    keywords =
      parts.count > 1 ? parts[1].split(separator: "\n").map(tokens).filter { !$0.isEmpty } : []
  }

  /// The entries of a field: the title is one entry, each keyword another.
  func entries(_ field: SearchField) -> [[FoldedToken]] {
    field == .title ? [title] : keywords
  }
}

/// How one term matched one document.
struct TermMatch: Sendable, Hashable {
  var field: SearchField
  var kind: MatchKind
  /// The document's word (or CJK run) that matched.
  var token: String

  /// The weight in a document's score: title above keywords, and within a field exact above
  /// prefix; a typo anywhere ranks below both.
  /// The most a term's match adds to a score: an exact title word.
  static let highestWeight = 6
  /// The most a typo adds to a score: in a title word.
  static let highestTypoWeight = 2

  var weight: Int {
    switch (kind, field) {
    case (.exact, .title): 6
    case (.prefix, .title): 5
    case (.exact, .keywords): 4
    case (.prefix, .keywords): 3
    case (.typo, .title): 2
    case (.typo, .keywords): 1
    }
  }
}

extension SearchQuery {
  /// Matches the query against a document's text: the best match of every term, or nil when a
  /// term, a phrase or a CJK substring is missing. This is the definition the index's postings
  /// reproduce.
  func matches(_ document: FoldedDocument) -> [TermMatch]? {
    var matches: [TermMatch] = []
    for term in terms {
      var best: TermMatch?
      for field in [SearchField.title, .keywords] {
        for entry in document.entries(field) {
          for token in entry {
            guard let kind = term.match(token) else { continue }
            let match = TermMatch(field: field, kind: kind, token: token.text)
            if match.weight > best?.weight ?? 0 { best = match }
          }
        }
      }
      guard let best else { return nil }
      matches.append(best)
    }
    for phrase in phrases {
      let found = [SearchField.title, .keywords].contains { field in
        document.entries(field).contains { entry in
          let words = entry.map(\.text)
          return words.count >= phrase.count
            && (0...(words.count - phrase.count)).contains {
              Array(words[$0..<($0 + phrase.count)]) == phrase
            }
        }
      }
      guard found else { return nil }
    }
    for substring in substrings {
      let found = [SearchField.title, .keywords].contains { field in
        document.entries(field).contains { entry in
          entry.contains { $0.isCJK && $0.text.utf8.contains(substring.utf8) }
        }
      }
      guard found else { return nil }
    }
    return matches
  }
}

extension SearchQuery.Term {
  /// How this term matches one token, if it does.
  func match(_ token: FoldedToken) -> MatchKind? {
    if isGram {
      return token.isCJK && token.text.utf8.contains(text.utf8) ? .exact : nil
    }
    guard !token.isCJK else { return nil }
    let (wordBytes, termBytes) = (token.text.utf8, text.utf8)
    if wordBytes.elementsEqual(termBytes) { return .exact }
    if matchesPrefix && wordBytes.starts(with: termBytes) { return .prefix }
    guard allowsTypo, wordBytes.count >= termBytes.count - 1,
      matchesPrefix || wordBytes.count <= termBytes.count + 1
    else { return nil }
    var (term, word) = (text, token.text)
    return term.withUTF8 { term in
      word.withUTF8 { word in Typos.matches(term, word, prefixMode: matchesPrefix) }
    } ? .typo : nil
  }
}

extension Collection where Element: Equatable {
  /// Whether the collection holds another as a contiguous run.
  func contains(_ other: some Collection<Element>) -> Bool {
    guard !other.isEmpty else { return true }
    var start = startIndex
    while start != endIndex {
      if self[start...].starts(with: other) { return true }
      formIndex(after: &start)
    }
    return false
  }
}

/// One-typo matching, on ASCII letters and digits: a deletion, an insertion, a substitution
/// or a swap of neighbours.
enum Typos {
  static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

  /// Whether a word is made of the letters and digits typos are matched on.
  static func isCandidate(_ word: some Collection<UInt8>) -> Bool {
    word.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
  }

  /// Whether a word matches a term with one typo: in prefix mode, whether some start of the
  /// word does. Only words (and starts) made of ASCII letters and digits qualify.
  static func matches(
    _ term: UnsafeBufferPointer<UInt8>, _ word: UnsafeBufferPointer<UInt8>, prefixMode: Bool
  ) -> Bool {
    guard !term.isEmpty, isCandidate(term) else { return false }
    guard prefixMode else { return isCandidate(word) && withinOneEdit(term, word) }
    for length in (term.count - 1)...(term.count + 1) where length <= word.count {
      let start = UnsafeBufferPointer(rebasing: word[..<length])
      if isCandidate(start) && withinOneEdit(term, start) { return true }
    }
    return false
  }

  /// Whether two words are at most one edit apart: a letter changed, left out, added, or two
  /// neighbours swapped.
  static func withinOneEdit(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>)
    -> Bool
  {
    if a.count == b.count {
      var (first, second, differing) = (0, 0, 0)
      for index in a.indices where a[index] != b[index] {
        differing += 1
        switch differing {
        case 1: first = index
        case 2: second = index
        default: return false
        }
      }
      return differing <= 1
        || (second == first + 1 && a[first] == b[second] && a[second] == b[first])
    }
    let (short, long) = a.count < b.count ? (a, b) : (b, a)
    guard long.count - short.count == 1 else { return false }
    var index = 0
    while index < short.count && short[index] == long[index] { index += 1 }
    while index < short.count {
      guard short[index] == long[index + 1] else { return false }
      index += 1
    }
    return true
  }

  /// Every word one edit away from a word; in prefix mode, those that a shorter variant's
  /// prefix range does not already cover.
  static func variants(of word: [UInt8], prefixMode: Bool) -> Set<[UInt8]> {
    var variants: Set<[UInt8]> = []
    for index in word.indices {
      var deleted = word
      deleted.remove(at: index)
      variants.insert(deleted)
      if index + 1 < word.count, word[index] != word[index + 1] {
        var swapped = word
        swapped.swapAt(index, index + 1)
        variants.insert(swapped)
      }
      if !(prefixMode && index == word.count - 1) {
        for letter in alphabet where letter != word[index] {
          var substituted = word
          substituted[index] = letter
          variants.insert(substituted)
        }
      }
    }
    for index in 0...word.count where !(prefixMode && index == word.count) {
      for letter in alphabet {
        var inserted = word
        inserted.insert(letter, at: index)
        variants.insert(inserted)
      }
    }
    variants.remove(word)
    return variants
  }
}
