import CatalogModel
import Foundation
import SearchIndex
import StateRestoration

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
}

/// The app's search (SPEC section 7): every product is a searchable item in a ``SearchIndex``,
/// and the activity history ranks recently viewed products higher. Expired activities count
/// for nothing.
package struct ActivitySearch: Sendable {
  /// The catalog indexed.
  package private(set) var catalog: Catalog
  /// The products indexed, by document number.
  private var products: [Product] = []
  private var index: SearchIndex

  /// The most recent saved activities a search reads to rank viewed products higher.
  package static let historyLimit = 10_000

  /// The most results a search returns unless told otherwise.
  package static let defaultLimit = 10

  /// Indexes a catalog.
  ///
  /// - Parameter catalog: The catalog.
  package init(catalog: Catalog) {
    self.catalog = catalog
    var products: [Product] = []
    products.reserveCapacity(catalog.count)
    catalog.forEachProduct { products.append($0) }
    self.products = products
    index = SearchIndex(products.map(Self.document))
  }

  private static func document(_ product: Product) -> SearchDocument {
    SearchDocument(title: product.name, keywords: product.keywords)
  }

  /// Brings the index up to date with a catalog: edited products are re-indexed at once; a
  /// catalog with other products or another order is indexed anew.
  ///
  /// - Parameter catalog: The catalog now.
  package mutating func update(to catalog: Catalog) {
    guard catalog != self.catalog else { return }
    var new: [Product] = []
    new.reserveCapacity(catalog.count)
    catalog.forEachProduct { new.append($0) }
    let old = products
    if old.count == new.count && zip(old, new).allSatisfy({ $0.identifier == $1.identifier }) {
      for position in new.indices where old[position] != new[position] {
        index.update(Self.document(new[position]), at: position)
      }
    } else {
      index = SearchIndex(new.map(Self.document))
    }
    products = new
    self.catalog = catalog
  }

  /// Searches.
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
    let query: SearchQuery
    do {
      query = try SearchQuery(text)
    } catch {
      throw CatalogCoreError.invalidSearch(error.description)
    }
    var viewed: [Int: UserActivityRecord] = [:]
    let live = history.filter {
      $0.activityType == ProductActivity.type && !$0.isExpired(at: now)
    }
    for record in live.sorted(by: {
      ($0.lastActiveDate ?? .distantPast) > ($1.lastActiveDate ?? .distantPast)
    }) {
      guard let identifier = record.targetContentIdentifier.flatMap(UUID.init(uuidString:)),
        let number = catalog.number(of: identifier), viewed[number - 1] == nil
      else { continue }
      viewed[number - 1] = record
    }
    // Newest first: boosts fall from 0.95 towards 0.05, all below one match's weight.
    let order = viewed.sorted {
      ($0.value.lastActiveDate ?? .distantPast) > ($1.value.lastActiveDate ?? .distantPast)
    }
    var boosts: [Int: Double] = [:]
    for (rank, entry) in order.enumerated() {
      boosts[entry.key] = 0.95 - 0.9 * Double(rank) / Double(order.count)
    }
    return try index.search(query, limit: limit, boosts: boosts).compactMap { hit in
      guard products.indices.contains(hit.document) else { return nil }
      let product = products[hit.document]
      var activity = ProductActivity.show(product)
      activity.lastActiveDate = viewed[hit.document]?.lastActiveDate
      return SearchResult(
        activity: activity, product: product, score: hit.score,
        reason: hit.matches.map(Self.describe).joined(separator: "; "),
        isViewed: viewed[hit.document] != nil)
    }
  }

  private static func describe(_ match: SearchHit.Match) -> String {
    let field = match.field.rawValue
    switch match.kind {
    case .exact where match.term == match.word: return "\(field): '\(match.word)'"
    case .exact: return "\(field): '\(match.term)' in '\(match.word)'"
    case .prefix: return "\(field): prefix '\(match.term)' of '\(match.word)'"
    case .typo: return "\(field): '\(match.word)' for '\(match.term)' (one typo)"
    }
  }
}
