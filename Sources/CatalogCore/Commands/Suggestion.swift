import CatalogModel

/// "Did you mean …?" for words typed slightly wrong.
package enum Suggestion {
  /// The candidate closest to a word, when it is within a small edit distance.
  ///
  /// - Parameters:
  ///   - word: What was typed.
  ///   - candidates: The valid words.
  /// - Returns: The closest candidate within distance 1 (2 for words of five or more
  ///   characters), or nil.
  /// - Complexity: O(*n* × *m*²) for *n* candidates of length *m*.
  package static func closest(to word: String, in candidates: [String]) -> String? {
    let budget = word.count >= 5 ? 2 : 1
    let scored = candidates.map { (candidate: $0, distance: editDistance(word, $0)) }
    guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= budget else {
      return nil
    }
    return best.candidate
  }
}
