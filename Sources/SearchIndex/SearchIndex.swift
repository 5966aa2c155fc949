import Foundation
import Synchronization
import SystemSupport

/// A document to index: a title and keywords.
public struct SearchDocument: Sendable, Hashable {
  /// The title, such as a product's name.
  public var title: String
  /// Keywords, each a word or a few.
  public var keywords: [String]

  /// Creates a document.
  ///
  /// - Parameters:
  ///   - title: The title.
  ///   - keywords: The keywords.
  public init(title: String, keywords: [String] = []) {
    self.title = title
    self.keywords = keywords
  }
}

/// An inverted index over documents numbered from 0, answering ``SearchQuery``s with the top
/// matches without looking at every document.
///
/// Terms are folded words, and single characters and pairs of Chinese and Japanese text. The
/// dictionary is sorted by UTF-8 bytes, so a word prefix is a range of it; each term has a
/// sorted list of the documents with it in their title and another for their keywords. The
/// documents' folded text is kept too, compactly, to check phrases and explain matches.
///
/// Documents changed after the index was built are kept apart, in an overlay that is searched
/// by their text, so an edit is searchable at once without rebuilding.
public struct SearchIndex: Sendable {
  /// The number of documents indexed when the index was built.
  let baseCount: Int
  /// The terms, sorted by their UTF-8 bytes, back to back (`termBytes`), where each starts with
  /// the end as the last entry (`termOffsets`); document numbers, for each term its title list
  /// and then its keyword list (`postings`), where each term's lists start: entry `2t` the
  /// title list, `2t + 1` the keyword list, `2t + 2` the end (`postingOffsets`); every
  /// document's folded text (see `FoldedDocument.stored`) back to back (`textBytes`) and where
  /// each starts, with the end as the last entry (`textOffsets`). In memory or mapped.
  let storage: IndexStorage
  /// Documents changed, added or removed since the index was built.
  var overlay: [Int: FoldedDocument] = [:]
  /// One past the highest document number in the overlay.
  private var overlayEnd = 0

  /// Builds an index.
  ///
  /// - Parameter documents: The documents, numbered from 0 in order.
  /// - Complexity: O(*n*) in the total length of the documents, plus sorting the dictionary.
  public init(_ documents: some Sequence<SearchDocument>) {
    self.init(building: documents as? [SearchDocument] ?? Array(documents))
  }

  // Not generic, so that callers in other modules run specialized code.
  private init(building documents: [SearchDocument]) {
    // Large inputs are folded in parallel, one slice per core, and the slices merged in order.
    let cores = min(4, ProcessInfo.processInfo.activeProcessorCount)
    self.init(building: documents, slices: documents.count < 50_000 ? 1 : cores)
  }

  /// Builds from `slices` parts of the documents, folded in parallel; the index is the same
  /// for any number of slices.
  init(building documents: [SearchDocument], slices requested: Int) {
    let slices = max(1, min(requested, documents.count))
    let sliceLength = (documents.count + slices - 1) / slices
    // Each slice on a thread of its own but the first, which is built here meanwhile.
    @Sendable func built(_ slice: Int) -> Builder {
      let start = slice * sliceLength
      var builder = Builder(firstDocument: start)
      for document in documents[start..<min(start + sliceLength, documents.count)] {
        builder.add(document)
      }
      return builder
    }
    let others = (1..<slices).map { slice in BackgroundWork { built(slice) } }
    var builder = Builder(firstDocument: 0)
    for part in [built(0)] + others.map({ $0.wait() }) {
      builder.append(part)
    }
    let built = builder.finish()
    baseCount = documents.count
    storage = IndexStorage(
      documentCount: documents.count, termBytes: built.termBytes, termOffsets: built.termOffsets,
      postings: built.postings, postingOffsets: built.postingOffsets,
      textBytes: builder.textBytes, textOffsets: builder.textOffsets)
  }

  /// An index read from a file.
  init(storage: IndexStorage) throws(SearchIndexError) {
    self.storage = storage
    baseCount = storage.documentCount
  }

  /// Collects terms, postings and text document by document.
  private struct Builder: Sendable {
    /// The number of the first document this builder sees.
    let firstDocument: Int
    var folder = TextFolder()
    var termIDs: [String: Int] = [:]
    var terms: [String] = []
    /// Entry `2t` is term `t`'s title list, `2t + 1` its keyword list.
    var lists: [[UInt32]] = []
    var textBytes: [UInt8] = []
    var textOffsets: [UInt32] = [0]
    var tokens: [FoldedToken] = []

    init(firstDocument: Int) {
      self.firstDocument = firstDocument
    }

    mutating func add(_ document: SearchDocument) {
      let number = UInt32(firstDocument + textOffsets.count - 1)
      // The stored text is `FoldedDocument.stored`, written straight into the buffer.
      fold(document.title)
      for (position, token) in tokens.enumerated() {
        if position > 0 { textBytes.append(0x20) }
        textBytes.append(contentsOf: token.text.utf8)
        index(token, field: 0, document: number)
      }
      textBytes.append(0)
      var firstEntry = true
      for keyword in document.keywords {
        fold(keyword)
        guard !tokens.isEmpty else { continue }
        if !firstEntry { textBytes.append(0x0A) }
        firstEntry = false
        for (position, token) in tokens.enumerated() {
          if position > 0 { textBytes.append(0x20) }
          textBytes.append(contentsOf: token.text.utf8)
          index(token, field: 1, document: number)
        }
      }
      textOffsets.append(UInt32(textBytes.count))
    }

    /// Appends what another builder collected from the documents after this one's.
    mutating func append(_ other: Builder) {
      for (id, term) in other.terms.enumerated() {
        let global = identifier(of: term)
        lists[2 * global].append(contentsOf: other.lists[2 * id])
        lists[2 * global + 1].append(contentsOf: other.lists[2 * id + 1])
      }
      let base = UInt32(textBytes.count)
      textBytes.append(contentsOf: other.textBytes)
      textOffsets.append(contentsOf: other.textOffsets.dropFirst().map { $0 + base })
    }

    private mutating func fold(_ text: String) {
      tokens.removeAll(keepingCapacity: true)
      folder.forEachToken(in: text) { tokens.append($0) }
    }

    private mutating func index(_ token: FoldedToken, field: Int, document: UInt32) {
      guard token.isCJK else {
        add(token.text, field: field, document: document)
        return
      }
      for gram in token.grams { add(gram, field: field, document: document) }
    }

    private mutating func add(_ term: String, field: Int, document: UInt32) {
      let id = identifier(of: term)
      if lists[2 * id + field].last != document { lists[2 * id + field].append(document) }
    }

    /// The term's number, given one (with empty lists) if it is new.
    private mutating func identifier(of term: String) -> Int {
      if let existing = termIDs[term] { return existing }
      let id = terms.count
      termIDs[term] = id
      terms.append(term)
      lists.append([])
      lists.append([])
      return id
    }

    /// The dictionary sorted by bytes, with the postings in the same order.
    func finish() -> (
      termBytes: [UInt8], termOffsets: [UInt32], postings: [UInt32], postingOffsets: [UInt32]
    ) {
      let order = terms.indices.sorted {
        terms[$0].utf8.lexicographicallyPrecedes(terms[$1].utf8)
      }
      var termBytes: [UInt8] = []
      var termOffsets: [UInt32] = [0]
      var postings: [UInt32] = []
      var postingOffsets: [UInt32] = [0]
      termOffsets.reserveCapacity(order.count + 1)
      postingOffsets.reserveCapacity(2 * order.count + 1)
      postings.reserveCapacity(lists.reduce(0) { $0 + $1.count })
      for id in order {
        termBytes.append(contentsOf: terms[id].utf8)
        termOffsets.append(UInt32(termBytes.count))
        for field in 0..<2 {
          postings.append(contentsOf: lists[2 * id + field])
          postingOffsets.append(UInt32(postings.count))
        }
      }
      return (termBytes, termOffsets, postings, postingOffsets)
    }
  }

  /// The number of documents, including those added since the index was built.
  public var count: Int { max(baseCount, overlayEnd) }

  /// The number of distinct terms indexed when it was built.
  public var termCount: Int { storage.termOffsets.count - 1 }

  /// The memory the index holds, in bytes: its arrays when built in memory (a mapped file's
  /// pages belong to the page cache) and the overlay's text.
  public var memoryFootprint: Int {
    storage.allocatedBytes + overlay.values.reduce(0) { $0 + $1.stored.utf8.count + 64 }
  }

  /// The number of documents changed, added or removed since the index was built.
  public var overlayCount: Int { overlay.count }

  /// Replaces a document, or adds one at the end, so that searches see it at once.
  ///
  /// - Parameters:
  ///   - document: The document's new contents.
  ///   - number: Its number: an existing document's, or ``count`` to add one.
  /// - Precondition: `number` is between 0 and ``count``.
  public mutating func update(_ document: SearchDocument, at number: Int) {
    precondition((0...count).contains(number), "document \(number) is out of range")
    var folder = TextFolder()
    overlay[number] = FoldedDocument(document, folder: &folder)
    overlayEnd = max(overlayEnd, number + 1)
  }

  /// Removes a document from the results; its number is not reused.
  ///
  /// - Parameter number: The document's number.
  public mutating func remove(at number: Int) {
    guard (0..<count).contains(number) else { return }
    overlay[number] = FoldedDocument(stored: "")
  }

  /// Forgets every change made since the index was built.
  public mutating func removeOverlay() {
    overlay = [:]
    overlayEnd = 0
  }

  /// A document's folded text.
  func document(_ number: Int) throws(SearchIndexError) -> FoldedDocument {
    if let changed = overlay[number] { return changed }
    let range = try storage.range(storage.textOffsets, number, within: storage.textBytes.count)
    try storage.check(storage.textBytes, range)
    let bytes = UnsafeBufferPointer(rebasing: storage.textBytes.buffer[range])
    return FoldedDocument(stored: Substring(decoding: bytes, as: UTF8.self))
  }

  /// Has the stored text of several documents read ahead together, their offsets first: the
  /// results of a search are read from ten places of a file that may not be cached, which one
  /// by one would each wait on the disk.
  func prefetchDocuments(_ numbers: [Int]) {
    let stored = numbers.filter { overlay[$0] == nil && $0 >= 0 && $0 < count }
    guard stored.count > 1 else { return }
    storage.prefetch(storage.textOffsets, stored.map { $0..<($0 + 2) })
    let ranges = stored.compactMap {
      try? storage.range(storage.textOffsets, $0, within: storage.textBytes.count)
    }
    storage.prefetch(storage.textBytes, ranges)
  }

  // MARK: - The dictionary

  /// The position of the first term not less than `key`, by bytes.
  func lowerBound(_ key: [UInt8]) throws(SearchIndexError) -> Int {
    var low = 0
    var high = termCount
    while low < high {
      let middle = (low + high) / 2
      if try term(at: middle).lexicographicallyPrecedes(key) {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }

  /// The term bytes at a position.
  func term(at position: Int) throws(SearchIndexError) -> UnsafeBufferPointer<UInt8> {
    let range = try storage.range(storage.termOffsets, position, within: storage.termBytes.count)
    try storage.check(storage.termBytes, range)
    return UnsafeBufferPointer(rebasing: storage.termBytes.buffer[range])
  }

  /// Calls a body with every term in order, its position and its bytes: the dictionary's
  /// sections checked once, rather than a term at a time as ``term(at:)`` checks them.
  func forEachTerm(
    _ body: (_ position: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Void
  ) throws(SearchIndexError) {
    let (offsets, bytes) = (storage.termOffsets, storage.termBytes)
    guard termCount > 0 else { return }
    try storage.check(offsets, 0..<offsets.count)
    try storage.check(bytes, 0..<bytes.count)
    var start = Int(offsets.pointer[0])
    for position in 0..<termCount {
      let end = Int(offsets.pointer[position + 1])
      guard start <= end, end <= bytes.count else {
        throw storage.damage("its offsets are out of order")
      }
      body(position, UnsafeBufferPointer(rebasing: bytes.buffer[start..<end]))
      start = end
    }
  }

  /// The position of a term, if indexed.
  func position(of term: [UInt8]) throws(SearchIndexError) -> Int? {
    let position = try lowerBound(term)
    guard position < termCount else { return nil }
    return try self.term(at: position).elementsEqual(term) ? position : nil
  }

  /// The positions of the terms starting with a prefix.
  func positions(withPrefix prefix: [UInt8]) throws(SearchIndexError) -> Range<Int> {
    let start = try lowerBound(prefix)
    var end = start
    // Past the prefix: the smallest key greater than every extension of it.
    var upper = prefix
    while let last = upper.last, last == 0xFF { upper.removeLast() }
    if let last = upper.last {
      upper[upper.count - 1] = last + 1
      end = try lowerBound(upper)
    } else {
      end = termCount
    }
    return start..<max(start, end)
  }

  /// A term's postings for a field, checked.
  ///
  /// - Parameters:
  ///   - position: The term's position in the dictionary.
  ///   - field: The field.
  ///   - checkingPostings: Whether the postings are checked now; when false only where they
  ///     lie is, and whoever reads them checks what it reads.
  /// - Returns: The postings' positions in the postings section.
  /// - Throws: ``SearchIndexError/damaged(path:reason:)``.
  func postingRange(
    term position: Int, field: SearchField, checkingPostings: Bool = true
  ) throws(SearchIndexError) -> Range<Int> {
    let index = 2 * position + (field == .title ? 0 : 1)
    let range = try storage.range(storage.postingOffsets, index, within: storage.postings.count)
    if checkingPostings { try storage.check(storage.postings, range) }
    return range
  }
}
