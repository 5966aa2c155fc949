import Testing

@testable import SearchIndex

/// The sample's ten products, with their keywords.
let products: [SearchDocument] = [
  SearchDocument(title: "Ginger", keywords: ["姜", "生姜", "gingembre", "spice"]),
  SearchDocument(title: "Gladiolus", keywords: ["剑兰", "唐菖蒲", "glaïeul", "flower"]),
  SearchDocument(title: "Orchid", keywords: ["兰花", "orchidée", "flower"]),
  SearchDocument(title: "Poinsettia", keywords: ["一品红", "圣诞红", "poinsettia", "flower"]),
  SearchDocument(title: "Red Rose", keywords: ["红玫瑰", "rose rouge", "flower"]),
  SearchDocument(title: "White Rose", keywords: ["白玫瑰", "rose blanche", "flower"]),
  SearchDocument(title: "Mango", keywords: ["芒果", "mangue", "fruit"]),
  SearchDocument(title: "Peanuts", keywords: ["花生", "cacahuètes", "nut"]),
  SearchDocument(title: "Cherries", keywords: ["樱桃", "车厘子", "cerises", "fruit"]),
  SearchDocument(title: "Artichoke", keywords: ["洋蓟", "朝鲜蓟", "artichaut", "vegetable"]),
]

let index = SearchIndex(products)

func titles(_ query: String, limit: Int = 10, boosts: [Int: Double] = [:]) throws -> [String] {
  try index.search(try SearchQuery(query), limit: limit, boosts: boosts).map {
    products[$0.document].title
  }
}

@Suite struct TextFolderTests {
  @Test(arguments: [
    ("CHERRIES", ["cherries"]),
    ("Glaïeul", ["glaieul"]),
    ("Crème Brûlée", ["creme", "brulee"]),
    ("ｃｈｅｒｒｉｅｓ ＲＯＳＥ", ["cherries", "rose"]),
    ("ﬁg", ["fig"]),
    ("Smörgås-Café", ["smorgas", "cafe"]),
    ("Straße", ["strasse"]),
    ("Ⓐb x² Ĳssel ǅemal ℌ", ["ab", "x2", "ijssel", "dzemal", "h"]),
    ("İstanbul ΣΑΣ", ["istanbul", "σασ"]),
    ("K1f3!", ["k1f3"]),
    ("red rose 红玫瑰", ["red", "rose", "红玫瑰"]),
    ("ｻｸﾗ", ["サクラ"]),
    ("さくら餅", ["さくら餅"]),
    ("한국어 단어", ["한국어", "단어"]),
    ("", []),
    ("  ,;  ", []),
  ])
  func foldsCaseDiacriticsAndWidth(text: String, expected: [String]) {
    var folder = TextFolder()
    #expect(folder.tokens(text).map(\.text) == expected)
  }

  @Test func splitsCJKRunsIntoCharactersAndPairs() {
    #expect(FoldedToken(text: "一品红", isCJK: true).grams == ["一", "品", "红", "一品", "品红"])
  }
}

@Suite struct SearchQueryTests {
  static let cases: [(query: String, expected: [String])] = [
    // Folding, both ways.
    ("cherries", ["Cherries"]),
    ("CHERRIES", ["Cherries"]),
    ("ｃｈｅｒｒｉｅｓ", ["Cherries"]),
    ("cerises", ["Cherries"]),
    ("orchidee", ["Orchid"]),
    ("orchidée", ["Orchid"]),
    ("GLAÏEUL", ["Gladiolus"]),
    ("glaieul", ["Gladiolus"]),
    ("cacahuetes", ["Peanuts"]),
    // Word prefixes.
    ("cher", ["Cherries"]),
    ("ros", ["Red Rose", "White Rose"]),
    ("gin", ["Ginger"]),
    // All terms required, in any order.
    ("red rose", ["Red Rose"]),
    ("rose red", ["Red Rose"]),
    ("rose fruit", []),
    ("fruit", ["Mango", "Cherries"]),
    // Phrases: in order, in one field.
    ("\"rose rouge\"", ["Red Rose"]),
    ("\"rouge rose\"", []),
    ("\"rose flower\"", []),
    ("\"red rose\"", ["Red Rose"]),
    // Chinese and Japanese by substring.
    ("樱桃", ["Cherries"]),
    ("樱", ["Cherries"]),
    ("玫瑰", ["Red Rose", "White Rose"]),
    ("红玫瑰", ["Red Rose"]),
    ("红", ["Poinsettia", "Red Rose"]),
    ("品红", ["Poinsettia"]),
    ("一红", []),
    ("圣诞红", ["Poinsettia"]),
    // One typo in words of five letters or more, ranked below real matches.
    ("chery", ["Cherries"]),
    ("cherires", ["Cherries"]),
    ("mnago", ["Mango"]),
    ("gingre", ["Ginger"]),
    ("chrries", ["Cherries"]),
    ("chrry", []),
    ("rsoe", []),
    ("zzzzzz", []),
    // Title above keywords: "flower" is only a keyword, "rose" both.
    ("rose", ["Red Rose", "White Rose"]),
    ("poinsettia", ["Poinsettia"]),
  ]

  @Test(arguments: cases)
  func findsWhatAPersonExpects(query: String, expected: [String]) throws {
    #expect(try titles(query) == expected)
  }

  @Test func explainsWhyEachResultMatched() throws {
    let hit = try #require(try index.search(try SearchQuery("cher"), limit: 1).first)
    #expect(hit.matches == [.init(term: "cher", field: .title, kind: .prefix, word: "cherries")])
    let typo = try #require(try index.search(try SearchQuery("chery"), limit: 1).first)
    #expect(typo.matches.first?.kind == .typo)
    let keyword = try #require(try index.search(try SearchQuery("cerises"), limit: 1).first)
    #expect(keyword.matches.first?.field == .keywords && keyword.matches.first?.kind == .exact)
    #expect(hit.score > typo.score)
  }

  @Test func ranksTitleAboveKeywordsAndExactAbovePrefixAboveTypo() throws {
    let documents = [
      SearchDocument(title: "Plain", keywords: ["mango"]),
      SearchDocument(title: "Mangoes"),
      SearchDocument(title: "Mango"),
      SearchDocument(title: "Other", keywords: ["mangoes"]),
      SearchDocument(title: "Mangp"),
    ]
    let index = SearchIndex(documents)
    let order = try index.search(try SearchQuery("mango"), limit: 10).map {
      documents[$0.document].title
    }
    #expect(order == ["Mango", "Mangoes", "Plain", "Other", "Mangp"])
  }

  @Test func recentlyViewedRanksHigherAmongEquals() throws {
    #expect(try titles("rose") == ["Red Rose", "White Rose"])
    #expect(try titles("rose", boosts: [5: 0.5]) == ["White Rose", "Red Rose"])
    // A boost never lifts a weaker match over a stronger one.
    #expect(try titles("flower", boosts: [1: 0.9]).first == "Gladiolus")
    #expect(try titles("ros", boosts: [8: 0.9]) == ["Red Rose", "White Rose"])
  }

  @Test func editsAreSearchableAtOnce() throws {
    var index = index
    index.update(SearchDocument(title: "Morello", keywords: ["樱桃", "fruit"]), at: 8)
    let search = { (text: String) throws -> [Int] in
      try index.search(try SearchQuery(text), limit: 10).map(\.document)
    }
    #expect(try search("cherries").isEmpty)
    #expect(try search("morello") == [8])
    #expect(try search("樱桃") == [8])
    index.update(SearchDocument(title: "Quince"), at: index.count)
    #expect(try search("quince") == [10])
    index.remove(at: 6)
    #expect(try search("fruit") == [8])
  }

  @Test(arguments: ["", "   ", "!!!", "\"\"", "\u{301}"])
  func refusesEmptyQueries(text: String) {
    #expect(throws: SearchIndexError.emptyQuery) { try SearchQuery(text) }
    #expect(SearchIndexError.emptyQuery.isAboutTheQuery)
    #expect(!SearchIndexError.damaged(path: "p", reason: "r").isAboutTheQuery)
  }

  @Test func refusesHugeQueries() {
    let huge = String(repeating: "cherries ", count: 7282)
    #expect(throws: SearchIndexError.queryTooLong(bytes: huge.utf8.count, limit: 1000)) {
      try SearchQuery(huge)
    }
    let many = (1...17).map { "w\($0)" }.joined(separator: " ")
    #expect(throws: SearchIndexError.tooManyTerms(count: 17, limit: 16)) { try SearchQuery(many) }
  }

  @Test func limitsResults() throws {
    #expect(try titles("flower", limit: 2).count == 2)
    #expect(try titles("flower", limit: 0).isEmpty)
  }
}

/// A matched token named as the text writes it.
@Suite struct MatchedWordTests {
  @Test func findsTheWordAsWrittenThatFoldsToAToken() {
    #expect(TextFolding.word(foldingTo: "glaieul", in: "剑兰, 唐菖蒲, glaïeul, flower") == "glaïeul")
    #expect(TextFolding.word(foldingTo: "唐菖蒲", in: "剑兰, 唐菖蒲, glaïeul") == "唐菖蒲")
    // A combining mark stays with its letter; full width and case are the text's.
    #expect(TextFolding.word(foldingTo: "cafe", in: "Black Cafe\u{301}") == "Cafe\u{301}")
    #expect(TextFolding.word(foldingTo: "rose", in: "Ｒｏｓｅ garden") == "Ｒｏｓｅ")
    #expect(TextFolding.word(foldingTo: "tulip", in: "Red Rose") == nil)
  }
}

/// A count of matches: without typos when any match so, with them otherwise; stopped at a
/// limit, or at the documents it may read to check a phrase or a Chinese or Japanese run.
@Suite struct MatchCountTests {
  @Test func countsWithoutTyposFirstAndStopsAtItsLimits() throws {
    let index = SearchIndex(products)
    #expect(try index.count(SearchQuery("flower"), upTo: 100) == (5, true))
    #expect(try index.count(SearchQuery("flower"), upTo: 3) == (3, false))
    // "flowre" matches only with a typo: counted with it.
    #expect(try index.count(SearchQuery("flowre"), upTo: 100) == (5, true))
    // A Chinese run is checked in each document's text: at most `checks` of them.
    #expect(try index.count(SearchQuery("一品红"), upTo: 100, checks: 0) == (0, false))
    #expect(try index.count(SearchQuery("一品红"), upTo: 100) == (1, true))
  }
}

/// One typo: a letter changed, left out, added, or two neighbours swapped — and no more.
@Suite struct TypoTests {
  static func withinOneEdit(_ a: String, _ b: String) -> Bool {
    Array(a.utf8).withUnsafeBufferPointer { a in
      Array(b.utf8).withUnsafeBufferPointer { b in Typos.withinOneEdit(a, b) }
    }
  }

  static func matches(_ term: String, _ word: String, prefixMode: Bool) -> Bool {
    Array(term.utf8).withUnsafeBufferPointer { term in
      Array(word.utf8).withUnsafeBufferPointer { word in
        Typos.matches(term, word, prefixMode: prefixMode)
      }
    }
  }

  @Test(arguments: [
    ("cherry", "cherry", true), ("cherry", "cherri", true), ("cherry", "chery", true),
    ("chery", "cherry", true), ("cherry", "hcerry", true), ("cherry", "chrery", true),
    ("cherry", "cherr", true), ("cherry", "xcherry", true), ("cherry", "ehcrry", false),
    ("cherry", "chxrrx", false), ("cherry", "chry", false), ("cherry", "cxhxerry", false),
    ("cherry", "yrrehc", false), ("cherry", "cheryr", true), ("a", "", true), ("ab", "ba", true),
  ])
  func wordsOneEditApart(_ a: String, _ b: String, _ expected: Bool) {
    #expect(Self.withinOneEdit(a, b) == expected, "\(a) \(b)")
    #expect(Self.withinOneEdit(b, a) == expected, "\(b) \(a)")
  }

  /// In prefix mode a start of the word one edit from the term matches; only ASCII letters
  /// and digits qualify, and an empty term matches nothing.
  @Test func prefixesAndCandidates() {
    #expect(Self.matches("chery", "cherries", prefixMode: true))
    #expect(!Self.matches("chery", "cherries", prefixMode: false))
    #expect(Self.matches("mnago", "mango", prefixMode: false))
    #expect(!Self.matches("mango", "man-go", prefixMode: false))
    #expect(!Self.matches("", "a", prefixMode: true))
    #expect(Self.matches("ros", "rose", prefixMode: false))
  }

  /// Walking the dictionary gives every term, in order, as reading it a term at a time does.
  @Test func walkingTheDictionaryGivesEveryTerm() throws {
    var walked: [[UInt8]] = []
    try index.forEachTerm { position, bytes in
      #expect(position == walked.count)
      walked.append(Array(bytes))
    }
    #expect(walked.count == index.termCount)
    #expect(try walked == (0..<index.termCount).map { Array(try index.term(at: $0)) })
    #expect(walked == walked.sorted { $0.lexicographicallyPrecedes($1) })
  }
}
