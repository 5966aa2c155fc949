import ActivityIndex
import CatalogModel
import Foundation
import SearchIndex
import StateRestoration
import SystemSupport

/// One result of `search`: the activity that shows a product, and why it matched.
package struct SearchResult: Sendable, Hashable {
  /// The activity to continue: the product's *Show NAME product* activity, with when it was
  /// last viewed if it was.
  package var activity: UserActivityRecord
  /// The product.
  package var product: Product
  /// The score: higher is better.
  package var score: Double
  /// Why it matched, such as `title: prefix 'cher' of 'cherries'`.
  package var reason: String
  /// Whether the result comes from the activity history (the product was viewed), rather than
  /// from the product's searchable item alone.
  package var isViewed: Bool

  /// Why it ranks where it does, as the table and JSON both say it: the match, and whether the
  /// product was viewed recently.
  package var why: String { reason + (isViewed ? "; viewed recently" : "") }
}

/// A search's best results, and how many products match in all.
package struct SearchResults: Sendable, Hashable {
  /// The best results, best first.
  package var results: [SearchResult]
  /// How many products match, as far as they were counted.
  package var total: Int
  /// Whether ``total`` counts every match, not only those counted before a limit.
  package var isTotalExact: Bool

  /// The most matches a search counts: past it, a count says "more than".
  package static let countLimit = 1_000

  /// Results and their count.
  ///
  /// - Parameters:
  ///   - results: The best results, best first.
  ///   - total: How many match, as far as counted; the results' count when nil.
  ///   - isTotalExact: Whether the count is of every match.
  package init(_ results: [SearchResult], total: Int? = nil, isTotalExact: Bool = true) {
    self.results = results
    self.total = max(total ?? results.count, results.count)
    self.isTotalExact = isTotalExact
  }
}

/// The app's search (SPEC section 7): every product is a searchable item in a ``SearchIndex``,
/// and the activity history ranks recently viewed products higher. Expired activities count
/// for nothing.
package struct ActivitySearch: Sendable {
  /// The catalog indexed.
  package private(set) var catalog: Catalog
  /// The index, by document number.
  package private(set) var index: CatalogSearchIndex

  /// The fewest viewed products matching a query that a search asks the history for, to rank
  /// them higher (twice as many as it returns, if more): the best matches, the most recently
  /// viewed first among equals, which a product's own matches follow (its activity's title and
  /// keywords are its own). Each costs a search a lookup in the history and in the catalog
  /// (`catalog-bench cold-search --history N` measures it); far past the results shown, a
  /// boost would only order products that are not shown.
  package static let historyLimit = 20

  /// The most results a search returns unless told otherwise.
  package static let defaultLimit = 10

  /// Indexes a catalog in memory.
  ///
  /// - Parameter catalog: The catalog.
  package init(catalog: Catalog) {
    self.init(catalog: catalog, index: CatalogSearchIndex(building: catalog))
  }

  /// Searches a catalog with an index of it.
  ///
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - index: Its index, up to date with it.
  package init(catalog: Catalog, index: CatalogSearchIndex) {
    self.catalog = catalog
    self.index = index
  }

  /// Brings an index built in memory up to date with a catalog: a catalog with other products is
  /// indexed anew.
  ///
  /// - Parameter catalog: The catalog now.
  package mutating func update(to catalog: Catalog) {
    guard catalog != self.catalog else { return }
    self = ActivitySearch(catalog: catalog)
  }

  /// Searches, with a history given as its activities (all of them count, whatever they match).
  ///
  /// - Parameters:
  ///   - text: The query.
  ///   - history: The saved activities.
  ///   - now: The time, for expiry.
  ///   - limit: The most results.
  /// - Returns: The results, best first.
  /// - Throws: ``CatalogCoreError/invalidSearch(_:)``.
  package func results(
    for text: String, history: [UserActivityRecord], now: Date, limit: Int = defaultLimit
  ) throws -> [SearchResult] {
    try results(
      for: text, viewed: { _, _ in history.map(ActivityHistory.Entry.init) }, now: now,
      limit: limit)
  }

  /// Searches the products, the viewed ones that match ranked higher, most recently viewed
  /// first; the history is asked only when something matches, as reading it is most of what a
  /// search that finds nothing would cost.
  ///
  /// - Parameters:
  ///   - text: The query.
  ///   - viewed: Finds at most a number of saved activities matching the query in the history
  ///     (its search, `ActivityHistory.search`), as entries.
  ///   - now: The time, for expiry.
  ///   - limit: The most results.
  /// - Returns: The results, best first.
  /// - Throws: ``CatalogCoreError/invalidSearch(_:)``.
  package func results(
    for text: String, viewed: (_ text: String, _ limit: Int) -> [ActivityHistory.Entry], now: Date,
    limit: Int = defaultLimit
  ) throws -> [SearchResult] {
    let query = try Self.query(text)
    guard limit > 0, !(try index.index.search(query, limit: 1).isEmpty) else { return [] }
    let asked = max(limit > Int.max / 2 ? limit : limit * 2, Self.historyLimit)
    let (boosts, viewed) = ranking(of: viewed(text, asked), at: now)
    let hits = try index.index.search(query, limit: limit, boosts: boosts)
    // The results' products in one read of the catalog.
    let products = catalog.products(
      atNumbers: hits.compactMap { index.number(ofDocument: $0.document) })
    return hits.compactMap { hit in
      guard let number = index.number(ofDocument: hit.document), let product = products[number]
      else { return nil }
      var activity = ProductActivity.show(product)
      activity.lastActiveDate = viewed[hit.document]?.lastActiveDate
      return SearchResult(
        activity: activity, product: product, score: hit.score,
        reason: hit.matches.map { Self.describe($0, of: product) }.joined(separator: "; "),
        isViewed: viewed[hit.document] != nil)
    }
  }

  /// Searches, and says how many products match: counted only when the results fill the
  /// limit (fewer are all there are), up to ``SearchResults/countLimit``.
  ///
  /// - Parameters:
  ///   - text: The query.
  ///   - viewed: Finds viewed products matching the query, as ``results(for:viewed:now:limit:)``.
  ///   - now: The time, for expiry.
  ///   - limit: The most results.
  /// - Returns: The results and their count.
  /// - Throws: ``CatalogCoreError/invalidSearch(_:)``.
  package func counted(
    for text: String, viewed: (_ text: String, _ limit: Int) -> [ActivityHistory.Entry], now: Date,
    limit: Int = defaultLimit
  ) throws -> SearchResults {
    let results = try results(for: text, viewed: viewed, now: now, limit: limit)
    guard results.count == limit else { return SearchResults(results) }
    let (total, isComplete) = try index.index.count(
      Self.query(text), upTo: SearchResults.countLimit)
    return SearchResults(results, total: total, isTotalExact: isComplete)
  }

  /// A query as typed, parsed; a query the search cannot take is the user's error.
  private static func query(_ text: String) throws -> SearchQuery {
    do {
      return try SearchQuery(text)
    } catch {
      throw CatalogCoreError.invalidSearch(error.description)
    }
  }

  /// What the history adds to a search: a boost for each viewed product's document, and the
  /// entry that viewed it.
  private func ranking(of history: [ActivityHistory.Entry], at now: Date) -> (
    boosts: [Int: Double], viewed: [Int: ActivityHistory.Entry]
  ) {
    // Newest first (ties by key, so that every process ranks alike), one entry a product.
    let live = history.filter {
      $0.activityType == ProductActivity.type && !$0.isExpired(at: now)
    }.sorted {
      let (first, second) = ($0.lastActiveDate ?? .distantPast, $1.lastActiveDate ?? .distantPast)
      return first != second ? first > second : $0.historyKey < $1.historyKey
    }
    let targets = live.map { $0.targetContentIdentifier.flatMap(UUID.init(canonical:)) }
    let numbers = catalog.numbers(of: targets.compactMap { $0 })
    var ranking: (boosts: [Int: Double], viewed: [Int: ActivityHistory.Entry]) = ([:], [:])
    var order: [Int] = []
    for (entry, target) in zip(live, targets) {
      guard let number = target.flatMap({ numbers[$0] }) else { continue }
      let document = index.document(ofNumber: number)
      if ranking.viewed[document] == nil {
        ranking.viewed[document] = entry
        order.append(document)
      }
    }
    // Boosts fall from 0.95 towards 0.05, all below one match's weight.
    for (rank, document) in order.enumerated() {
      ranking.boosts[document] = 0.95 - 0.9 * Double(rank) / Double(order.count)
    }
    return ranking
  }

  /// How a term matched, naming the product's word as the product writes it.
  private static func describe(_ match: SearchHit.Match, of product: Product) -> String {
    let field = match.field.rawValue
    let text = match.field == .title ? product.name : product.keywords.joined(separator: ", ")
    let word = TextFolding.word(foldingTo: match.word, in: text) ?? match.word
    switch match.kind {
    case .exact where match.term == match.word: return "\(field): '\(word)'"
    case .exact: return "\(field): '\(match.term)' in '\(word)'"
    case .prefix: return "\(field): prefix '\(match.term)' of '\(word)'"
    case .typo: return "\(field): '\(word)' for '\(match.term)' (one typo)"
    }
  }
}
