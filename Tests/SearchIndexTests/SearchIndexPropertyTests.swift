import TestSupport
import Testing

@testable import SearchIndex

/// SplitMix64, so that a failing case fails the same way again.
struct Generator: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// The index must give exactly what scoring every document by its text gives.
@Suite struct SearchIndexPropertyTests {
  static let words =
    [
      "Red", "Rose", "Roses", "Rosé", "Mango", "Mangoes", "Cherries", "Cherry", "Golden", "Gold",
      "Crème", "Brûlée", "Wild", "Wilde", "Tulip", "Tulips", "Lemon", "Melon", "Mlon", "K1f3",
      "K1f30", "K9a", "Señor", "Über", "Café",
    ] + (0..<12).map { "K1\($0)x" }
  static let cjk = ["樱桃", "玫瑰", "红玫瑰", "さくら", "一品红", "ばら", "芒果"]

  static func document(_ generator: inout Generator) -> SearchDocument {
    let title = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
      words.randomElement(using: &generator) ?? ""
    }
    var keywords = [cjk.randomElement(using: &generator) ?? ""]
    if Bool.random(using: &generator) {
      keywords.append(
        [
          words.randomElement(using: &generator) ?? "",
          words.randomElement(using: &generator) ?? "",
        ]
        .joined(separator: " "))
    }
    return SearchDocument(title: title.joined(separator: " "), keywords: keywords)
  }

  static func query(_ generator: inout Generator) -> String {
    var parts: [String] = []
    for _ in 0..<Int.random(in: 1...3, using: &generator) {
      var word = (words + cjk).randomElement(using: &generator) ?? ""
      switch Int.random(in: 0..<5, using: &generator) {
      case 0 where word.count > 2:
        word = String(word.prefix(Int.random(in: 1..<word.count, using: &generator)))
      case 1 where word.count > 4:
        var characters = Array(word)
        characters.remove(at: Int.random(in: 0..<characters.count, using: &generator))
        word = String(characters)
      case 2: word = word.uppercased()
      default: break
      }
      parts.append(word)
    }
    if Int.random(in: 0..<6, using: &generator) == 0 {
      return "\"" + parts.joined(separator: " ") + "\""
    }
    return parts.joined(separator: " ")
  }

  /// Built in memory, or written to a file and mapped back (its blocks checked as read).
  @Test(arguments: [1, 2, 3] as [UInt64], [false, true])
  func theIndexAgreesWithScoringEveryDocument(seed: UInt64, mapped: Bool) throws {
    var generator = Generator(state: seed)
    let documents = (0..<400).map { _ in Self.document(&generator) }
    var index = SearchIndex(documents)
    let directory = TemporaryDirectory()
    if mapped {
      let path = directory.path + "/search.index"
      try index.write(to: path, origin: .init(source: seed, generation: 7))
      index = try SearchIndex(contentsOf: path, checkingWholeUpTo: 0)
      #expect(index.origin == .init(source: seed, generation: 7))
    }
    var folder = TextFolder()
    var folded = documents.map { FoldedDocument($0, folder: &folder) }
    // Some edits, so the overlay takes part.
    for _ in 0..<10 {
      let number = Int.random(in: 0..<documents.count, using: &generator)
      let replacement = Self.document(&generator)
      index.update(replacement, at: number)
      folded[number] = FoldedDocument(replacement, folder: &folder)
    }
    for _ in 0..<200 {
      let text = Self.query(&generator)
      guard let query = try? SearchQuery(text) else { continue }
      let limit = Int.random(in: 1...15, using: &generator)
      // Boosted: some documents at random, and some of those that match (edited ones too),
      // as a history of viewed products would boost them.
      var boosts: [Int: Double] = [:]
      for _ in 0..<Int.random(in: 0...3, using: &generator) {
        boosts[Int.random(in: 0..<documents.count, using: &generator)] = Double.random(
          in: 0..<1, using: &generator)
      }
      let matching = folded.indices.filter { query.matches(folded[$0]) != nil }
      for number in matching where Int.random(in: 0..<3, using: &generator) == 0 {
        boosts[number] = Double.random(in: 0..<1, using: &generator)
      }
      let expected = folded.indices.compactMap { number -> (Int, Double)? in
        query.matches(folded[number]).map {
          (number, Double($0.map(\.weight).reduce(0, +)) + (boosts[number] ?? 0))
        }
      }
      .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
      .prefix(limit)
      let found = try index.search(query, limit: limit, boosts: boosts)
      #expect(found.map(\.document) == expected.map(\.0), "query '\(text)'")
      #expect(found.map(\.score) == expected.map(\.1), "query '\(text)'")
    }
  }
}

extension SearchIndexPropertyTests {
  /// With a dictionary too large to scan, typos are looked up variant by variant; the results
  /// must be the same.
  @Test func typoLookupsInALargeDictionaryAgreeWithScoringEveryDocument() throws {
    var generator = Generator(state: 99)
    let letters = Array("abcdefghij")
    func word() -> String {
      String(
        (0..<Int.random(in: 5...7, using: &generator)).map { _ in
          letters.randomElement(using: &generator) ?? "a"
        })
    }
    let documents = (0..<3000).map { _ in
      SearchDocument(title: word() + " " + word(), keywords: [word()])
    }
    let built = SearchIndex(documents)
    // Mapped, with each block checked as a lookup reads it.
    let directory = TemporaryDirectory()
    try built.write(to: directory.path + "/search.index", origin: .init(source: 1, generation: 1))
    let index = try SearchIndex(contentsOf: directory.path + "/search.index", checkingWholeUpTo: 0)
    #expect(index.termCount > 5000)
    var folder = TextFolder()
    let folded = documents.map { FoldedDocument($0, folder: &folder) }
    var typoHits = 0
    for _ in 0..<30 {
      var text = word()
      if Bool.random(using: &generator) { text = "\"\(text)\"" }
      let query = try SearchQuery(text)
      let expected = folded.indices.compactMap { number -> (Int, Double)? in
        query.matches(folded[number]).map { (number, Double($0.map(\.weight).reduce(0, +))) }
      }
      .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
      .prefix(25)
      let found = try index.search(query, limit: 25)
      #expect(found.map(\.document) == expected.map(\.0), "query '\(text)'")
      typoHits += found.filter { $0.matches.contains { $0.kind == .typo } }.count
    }
    #expect(typoHits > 0)
  }
}

extension SearchIndexPropertyTests {
  /// Folding in parallel slices and merging them gives the index one pass gives.
  @Test(arguments: [2, 3, 7])
  func buildingInSlicesGivesTheSameIndex(slices: Int) {
    var generator = Generator(state: 5)
    let documents = (0..<500).map { _ in Self.document(&generator) }
    let whole = SearchIndex(building: documents, slices: 1)
    let sliced = SearchIndex(building: documents, slices: slices)
    for (slicedSection, wholeSection) in zip(sliced.storage.sections, whole.storage.sections) {
      #expect(Array(slicedSection) == Array(wholeSection))
    }
  }
}
