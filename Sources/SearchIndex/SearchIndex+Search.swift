/// One search result.
public struct SearchHit: Sendable, Hashable {
  /// How one query term matched.
  public struct Match: Sendable, Hashable {
    /// The query term, folded.
    public var term: String
    /// Where it matched.
    public var field: SearchField
    /// How it matched.
    public var kind: MatchKind
    /// The document's word (or Chinese or Japanese run) it matched.
    public var word: String
  }

  /// The document's number.
  public var document: Int
  /// The score: higher is better. Each term adds 6 for an exact title word, 5 for a title
  /// prefix, 4 and 3 for keywords, 2 and 1 for typos; a boost adds less than 1.
  public var score: Double
  /// Each term's best match, in query order.
  public var matches: [Match]
}

extension SearchIndex {
  /// The best matches for a query: every term must match; higher scores first, then lower
  /// document numbers.
  ///
  /// Matches are found in the postings in document order, keeping the best `limit`; the search
  /// stops as soon as that many have the highest score any document could have. Boosted
  /// documents (recently viewed ones, say) and documents changed since the build are scored
  /// from their text.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - limit: The most results.
  ///   - boosts: Extra score for some documents, each in `0..<1`, so that a boost reorders
  ///     results with equal scores only.
  /// - Returns: The results, best first.
  /// - Throws: ``SearchIndexError/damaged(path:reason:)`` when the index was read from a file
  ///   and the search meets a part of it that is damaged; an index built in memory never throws.
  /// - Complexity: At worst O(*m*) in the total length of the matching terms' postings; for
  ///   common words, far less.
  public func search(
    _ query: SearchQuery, limit: Int, boosts: [Int: Double] = [:]
  ) throws(SearchIndexError) -> [SearchHit] {
    guard limit > 0 else { return [] }
    // Finding a term's typos looks every variant of it up in the dictionary, hundreds of
    // lookups, each a read from disk on a large file the system has not cached. A typo adds at most 2 to a score and any other match of a term at least
    // 3, and a boost less than 1: when the search without typos fills its results with scores
    // no document with a typo could reach, they are the results with typos too.
    if query.terms.contains(where: \.allowsTypo) {
      var strict = query
      for index in strict.terms.indices { strict.terms[index].allowsTypo = false }
      let hits = try searchOnce(strict, limit: limit, boosts: boosts)
      let ceiling =
        Double(TermMatch.highestWeight * (query.terms.count - 1) + TermMatch.highestTypoWeight)
        + (boosts.values.max() ?? 0)
      if hits.count == limit, let lowest = hits.last?.score, lowest > ceiling { return hits }
    }
    return try searchOnce(query, limit: limit, boosts: boosts)
  }

  /// The search, typos as the query allows them.
  private func searchOnce(
    _ query: SearchQuery, limit: Int, boosts: [Int: Double]
  ) throws(SearchIndexError) -> [SearchHit] {
    // Documents changed since the build are scored from their text: their postings are stale.
    let scoredByText = Set(overlay.keys)
    var found: [(document: Int, score: Double)] = []
    let count = self.count
    for document in scoredByText where document < count {
      guard let matches = query.matches(try self.document(document)) else { continue }
      found.append((document, Double(matches.map(\.weight).reduce(0, +)) + (boosts[document] ?? 0)))
    }
    // Boosted ones are all considered, whatever the search below keeps: each is looked up in
    // the postings (one seek a term), not read, since thousands may be boosted.
    // The terms' cursors are made once (finding typos costs) and copied for each pass.
    if let cursors = try termCursors(for: query) {
      let boosted = boosts.keys.filter { $0 < count && !scoredByText.contains($0) }.sorted()
      found += try boostedMatches(query, cursors, boosted).map {
        ($0.document, Double($0.score) + (boosts[$0.document] ?? 0))
      }
      found += try postingMatches(
        query, cursors, limit: limit, skipping: scoredByText.union(boosted)
      ).map { ($0.document, Double($0.score)) }
    }
    found.sort { $0.score != $1.score ? $0.score > $1.score : $0.document < $1.document }
    prefetchDocuments(found.prefix(limit).map(\.document))
    var hits: [SearchHit] = []
    for (document, score) in found.prefix(limit) {
      guard let matches = query.matches(try self.document(document)) else { continue }
      hits.append(
        SearchHit(
          document: document, score: score,
          matches: zip(query.terms, matches).map { term, match in
            SearchHit.Match(
              term: term.text, field: match.field, kind: match.kind, word: match.token)
          }))
    }
    return hits
  }

  /// Which of some documents, in increasing order, match in the postings, with their scores.
  private func boostedMatches(
    _ query: SearchQuery, _ cursors: [TermCursor], _ documents: [Int]
  ) throws(SearchIndexError) -> [(document: Int, score: Int)] {
    guard !documents.isEmpty else { return [] }
    var cursors = cursors
    let verify = !query.phrases.isEmpty || !query.substrings.isEmpty
    var matches: [(document: Int, score: Int)] = []
    candidates: for document in documents {
      var score = 0
      for index in cursors.indices {
        // Past a term's last posting, no later document matches.
        guard let (found, weight) = try cursors[index].seek(UInt32(document)) else {
          break candidates
        }
        guard found == UInt32(document) else { continue candidates }
        score += weight
      }
      matches.append((document, score))
    }
    guard verify else { return matches }
    // A phrase or a Chinese or Japanese run is checked in each candidate's text: read together.
    prefetchDocuments(matches.map(\.document))
    var verified: [(document: Int, score: Int)] = []
    for match in matches where query.matches(try self.document(match.document)) != nil {
      verified.append(match)
    }
    return verified
  }

  /// A cursor for each term of a query; nil when a term matches nothing, so neither does the
  /// query.
  private func termCursors(for query: SearchQuery) throws(SearchIndexError) -> [TermCursor]? {
    var cursors: [TermCursor] = []
    for term in query.terms {
      let cursor = try termCursor(for: term)
      guard !cursor.classes.isEmpty else { return nil }
      cursors.append(cursor)
    }
    return cursors
  }

  /// The best `limit` documents in the postings, with their scores.
  private func postingMatches(
    _ query: SearchQuery, _ cursors: [TermCursor], limit: Int, skipping: Set<Int>
  ) throws(SearchIndexError) -> [(document: Int, score: Int)] {
    let best = cursors.map { $0.classes.map(\.weight).max() ?? 0 }.reduce(0, +)
    var top = TopDocuments(limit: limit)
    try forEachPostingMatch(query, cursors, skipping: skipping) { document, score in
      top.insert(document, score: score)
      return !(top.isFull && top.lowestScore == best)
    }
    return top.documents
  }

  /// Calls a body with each document the postings match, in document order, with its score,
  /// while the body returns true and at most `checks` documents were read to check a phrase or
  /// a Chinese or Japanese run.
  ///
  /// - Returns: false when it stopped at the checks' limit.
  @discardableResult
  private func forEachPostingMatch(
    _ query: SearchQuery, _ cursors: [TermCursor], skipping: Set<Int>, checks: Int = .max,
    _ body: (_ document: Int, _ score: Int) -> Bool
  ) throws(SearchIndexError) -> Bool {
    var checked = 0
    var cursors = cursors
    let verify = !query.phrases.isEmpty || !query.substrings.isEmpty
    var candidate: UInt32 = 0
    var agreeing = 0
    var index = 0
    var score = 0
    while true {
      guard let (document, weight) = try cursors[index].seek(candidate) else {
        return true
      }
      if document != candidate {
        candidate = document
        agreeing = 1
        score = weight
      } else {
        agreeing += 1
        score += weight
      }
      if agreeing == cursors.count {
        let number = Int(candidate)
        var verified = !skipping.contains(number)
        if verified && verify {
          guard checked < checks else { return false }
          checked += 1
          verified = query.matches(try self.document(number)) != nil
        }
        if verified && !body(number, score) { return true }
        guard candidate < UInt32.max else { return true }
        candidate += 1
        agreeing = 0
        score = 0
      }
      index = (index + 1) % cursors.count
      if agreeing == 0 { index = 0 }
    }
  }

  /// How many documents match a query without typos (with them, when none matches without),
  /// counted up to a limit: about what a search with no limit would return.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - limit: The most counted; the count stops there.
  ///   - checks: The most documents read to check a phrase or a Chinese or Japanese run in
  ///     their text; the count stops there too.
  /// - Returns: The number of matching documents, and whether that is all of them (false when
  ///   the count stopped at a limit).
  /// - Throws: ``SearchIndexError/damaged(path:reason:)`` as ``search(_:limit:boosts:)`` does.
  /// - Complexity: At worst O(*m*) in the total length of the matching terms' postings.
  public func count(_ query: SearchQuery, upTo limit: Int, checks: Int = 200)
    throws(SearchIndexError) -> (count: Int, isComplete: Bool)
  {
    var strict = query
    for index in strict.terms.indices { strict.terms[index].allowsTypo = false }
    let found = try countOnce(strict, upTo: limit, checks: checks)
    guard found.count == 0, query.terms.contains(where: \.allowsTypo) else { return found }
    return try countOnce(query, upTo: limit, checks: checks)
  }

  /// The count, typos as the query allows them.
  private func countOnce(_ query: SearchQuery, upTo limit: Int, checks: Int)
    throws(SearchIndexError) -> (count: Int, isComplete: Bool)
  {
    guard limit > 0 else { return (0, false) }
    // Documents changed since the build are matched by their text: their postings are stale.
    let scoredByText = Set(overlay.keys)
    var total = 0
    for document in scoredByText where document < count {
      if query.matches(try self.document(document)) != nil { total += 1 }
    }
    guard total < limit else { return (limit, false) }
    guard let cursors = try termCursors(for: query) else { return (total, true) }
    let finished = try forEachPostingMatch(query, cursors, skipping: scoredByText, checks: checks) {
      _, _ in
      total += 1
      return total < limit
    }
    return (total, finished && total < limit)
  }

  /// The classes of documents a term matches: each field's exact, prefix and typo matches.
  private func termCursor(for term: SearchQuery.Term) throws(SearchIndexError) -> TermCursor {
    let bytes = Array(term.text.utf8)
    var exact: [Int] = []
    var prefixed: [Int] = []
    var typos: Set<Int> = []
    if let position = try position(of: bytes) { exact = [position] }
    if term.matchesPrefix {
      prefixed = try positions(withPrefix: bytes).filter { $0 != exact.first }
    }
    if term.allowsTypo, Typos.isCandidate(bytes) {
      // About as many variants as edits: deletions, swaps, substitutions and insertions.
      let variantCount = bytes.count * (2 * Typos.alphabet.count + 2)
      if termCount <= 8 * variantCount {
        // A small dictionary is quicker to scan than to look every variant up in.
        try bytes.withUnsafeBufferPointer { bytes throws(SearchIndexError) in
          try forEachTerm { position, word in
            if Typos.matches(bytes, word, prefixMode: term.matchesPrefix) {
              typos.insert(position)
            }
          }
        }
      } else {
        for variant in Typos.variants(of: bytes, prefixMode: term.matchesPrefix) {
          if term.matchesPrefix {
            typos.formUnion(try positions(withPrefix: variant))
          } else if let position = try position(of: variant) {
            typos.insert(position)
          }
        }
      }
    }
    var classes: [ClassCursor] = []
    for (terms, kind) in [(exact, MatchKind.exact), (prefixed, .prefix), (typos.sorted(), .typo)] {
      for field in [SearchField.title, .keywords] {
        var ranges: [Range<Int>] = []
        for term in terms {
          let range = try postingRange(term: term, field: field, checkingPostings: false)
          if !range.isEmpty { ranges.append(range) }
        }
        guard !ranges.isEmpty else { continue }
        let weight = TermMatch(field: field, kind: kind, token: "").weight
        classes.append(
          try ClassCursor(ranges: ranges, weight: weight, postings: PostingReader(storage)))
      }
    }
    return TermCursor(classes: classes)
  }
}

/// The documents one term matches, in document order, with the weight of its best match.
private struct TermCursor {
  var classes: [ClassCursor]

  /// The first document at or after `target` and its weight; nil when there is none.
  mutating func seek(_ target: UInt32) throws(SearchIndexError) -> (UInt32, Int)? {
    var best: (document: UInt32, weight: Int)?
    for index in classes.indices {
      guard let document = try classes[index].seek(target) else { continue }
      if let current = best, current.document < document { continue }
      if let current = best, current.document == document {
        best = (document, max(current.weight, classes[index].weight))
      } else {
        best = (document, classes[index].weight)
      }
    }
    return best.map { ($0.document, $0.weight) }
  }
}

/// The documents of one class of matches (a field and a kind), in order: one posting list,
/// a few merged as they are read, or many merged once into an array.
private struct ClassCursor {
  let weight: Int
  private var postings: PostingReader
  private var positions: [Int]
  private let ends: [Int]
  private let merged: [UInt32]?
  private var mergedPosition = 0

  /// A cursor over some posting lists; only the lists it merges at once are checked now.
  init(ranges: [Range<Int>], weight: Int, postings: PostingReader) throws(SearchIndexError) {
    self.weight = weight
    self.postings = postings
    if ranges.count > 8 {
      var all: [UInt32] = []
      all.reserveCapacity(ranges.reduce(0) { $0 + $1.count })
      for range in ranges {
        all.append(contentsOf: try postings.checked(range))
      }
      all.sort()
      var unique: [UInt32] = []
      unique.reserveCapacity(all.count)
      for document in all where unique.last != document { unique.append(document) }
      merged = unique
      positions = []
      ends = []
    } else {
      merged = nil
      positions = ranges.map(\.lowerBound)
      ends = ranges.map(\.upperBound)
    }
  }

  mutating func seek(_ target: UInt32) throws(SearchIndexError) -> UInt32? {
    if let merged {
      var reader = ArrayReader(array: merged)
      mergedPosition = try reader.gallop(from: mergedPosition, to: merged.count, target)
      return mergedPosition < merged.count ? merged[mergedPosition] : nil
    }
    var lowest: UInt32?
    for index in positions.indices {
      positions[index] = try postings.gallop(from: positions[index], to: ends[index], target)
      if positions[index] < ends[index] {
        let document = try postings.element(positions[index])
        if lowest.map({ document < $0 }) ?? true { lowest = document }
      }
    }
    return lowest
  }
}

/// Sorted documents read by position, to be galloped through.
private protocol SortedDocuments {
  /// The document at a position.
  mutating func element(_ position: Int) throws(SearchIndexError) -> UInt32
}

extension SortedDocuments {
  /// The first position in `start..<end` whose document is at least `target`: exponential
  /// steps from `start`, then a binary search, reading O(log *d*) elements for a distance *d*.
  mutating func gallop(
    from start: Int, to end: Int, _ target: UInt32
  ) throws(SearchIndexError) -> Int {
    guard start < end, try element(start) < target else { return start }
    var low = start
    var step = 1
    while low + step < end, try element(low + step) < target {
      low += step
      step *= 2
    }
    var high = min(low + step, end)
    // element(low) < target; the answer is in low + 1...high.
    low += 1
    while low < high {
      let middle = (low + high) / 2
      if try element(middle) < target { low = middle + 1 } else { high = middle }
    }
    return low
  }
}

/// An array already in memory: nothing to check.
private struct ArrayReader: SortedDocuments {
  let array: [UInt32]

  func element(_ position: Int) -> UInt32 { array[position] }
}

/// The postings section of an index read one element at a time, each element's block checked
/// against its checksum before it is read: a search reads a few postings of a long list, not
/// all of them. Blocks are checked once, by whichever reader meets them first; a reader also
/// remembers the elements of the last block it checked, not to look them up again.
private struct PostingReader: SortedDocuments {
  private let storage: IndexStorage
  private let buffer: UnsafeBufferPointer<UInt32>
  /// Positions known checked.
  private var checkedPositions: Range<Int> = 0..<0
  /// Positions whose pages were last asked for ahead of their checks.
  private var askedAhead: Range<Int> = 0..<0
  /// How many postings, from one in a block not yet checked, are asked for together.
  static let readAhead = (128 << 10) / MemoryLayout<UInt32>.stride

  init(_ storage: IndexStorage) {
    self.storage = storage
    buffer = storage.postings.buffer
    // An index built in memory has no checksums: all of it is trusted.
    if storage.file == nil { checkedPositions = 0..<buffer.count }
  }

  @inline(__always)
  mutating func element(_ position: Int) throws(SearchIndexError) -> UInt32 {
    if !checkedPositions.contains(position) { try check(position) }
    return buffer[position]
  }

  /// A range of positions, all checked now.
  func checked(_ range: Range<Int>) throws(SearchIndexError) -> UnsafeBufferPointer<UInt32> {
    try storage.check(storage.postings, range)
    return UnsafeBufferPointer(rebasing: buffer[range])
  }

  private mutating func check(_ position: Int) throws(SearchIndexError) {
    guard position >= 0, position < buffer.count else {
      throw storage.damage("a posting lies outside its section")
    }
    // A seek touches pages near each other one after another (a gallop doubles its step,
    // then halves it back), and a walk touches the next: on a disk the system has not cached,
    // each would wait for its own read, where the pages ahead asked for together arrive in one.
    if !askedAhead.contains(position) {
      askedAhead = position..<min(position + Self.readAhead, buffer.count)
      storage.readAhead(storage.postings, askedAhead)
    }
    try storage.check(storage.postings, position..<(position + 1))
    checkedPositions = position..<(position + 1)
    guard let file = storage.file else { return }
    // The positions whose bytes lie in the block just checked.
    let stride = MemoryLayout<UInt32>.stride
    let offset = storage.postings.fileOffset
    let block = (offset + position * stride - file.header.dataStart) / IndexHeader.blockSize
    let blockStart = file.header.dataStart + block * IndexHeader.blockSize
    let first = max(0, (blockStart - offset + stride - 1) / stride)
    let end = min(buffer.count, (blockStart + IndexHeader.blockSize - offset) / stride)
    if first <= position, position < end { checkedPositions = first..<end }
  }
}

/// The best documents so far, best first: higher scores, then lower numbers.
private struct TopDocuments {
  let limit: Int
  private(set) var documents: [(document: Int, score: Int)] = []

  init(limit: Int) {
    self.limit = limit
    documents.reserveCapacity(limit + 1)
  }

  var isFull: Bool { documents.count >= limit }
  var lowestScore: Int { documents.last?.score ?? 0 }

  /// Adds a document found in increasing number order; it goes after others with its score.
  mutating func insert(_ document: Int, score: Int) {
    if isFull && score <= lowestScore { return }
    var index = documents.count
    while index > 0 && documents[index - 1].score < score { index -= 1 }
    documents.insert((document, score), at: index)
    if documents.count > limit { documents.removeLast() }
  }
}
