import SearchIndex
import StateRestoration
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// One search result: a saved activity, and why it matched.
public struct ActivitySearchResult: Sendable, Hashable {
  /// The activity.
  public var activity: UserActivityRecord
  /// The score: higher is better (see `SearchHit.score`).
  public var score: Double
  /// How each query term matched: in the title or the keywords, exactly, as a prefix or with
  /// one typo.
  public var matches: [SearchHit.Match]
}

extension ActivityHistory {
  /// Finds the saved activities eligible for search whose title or keywords match a query, as
  /// Core Spotlight finds an app's activities: every word must match, as a word, a prefix
  /// (`cher`), a `"phrase"`, Chinese or Japanese text (`樱桃`), or with one typo; best first,
  /// the most recently active first among equals. An activity past its expiration date is never
  /// returned.
  ///
  /// The index is built in memory from the history at the first search and kept while the
  /// history stays the same and no activity in it expires.
  ///
  /// - Parameters:
  ///   - text: The query, as a user types it.
  ///   - limit: The most results; 20 by default.
  ///   - date: The time expiration is judged at; now by default.
  /// - Returns: The results, best first.
  /// - Throws: `SearchIndexError` for a query it cannot take (empty, or too long), or a
  ///   `StateRestorationError` when the history cannot be read.
  public func search(_ text: String, limit: Int = 20, at date: Date = Date()) throws
    -> [ActivitySearchResult]
  {
    let query = try SearchQuery(text)
    guard limit > 0 else { return [] }
    let index = try searchIndex(at: date)
    return try index.index.search(query, limit: limit).map { hit in
      ActivitySearchResult(
        activity: index.records[hit.document], score: hit.score, matches: hit.matches)
    }
  }

  /// The index of the activities eligible for search and not expired at a date, from the cache
  /// while it is current.
  private func searchIndex(at date: Date) throws -> ActivitySearchIndex {
    let version = try self.version()
    if let cached = connection.searchIndex.withLock({ $0 }), cached.version == version,
      cached.validUntil.map({ date < $0 }) ?? true
    {
      return cached
    }
    // Most recently active first: among equal scores, the lower document number wins.
    let records = try self.records().filter { record in
      record.isEligibleForSearch && record.expirationDate.map { date < $0 } ?? true
    }
    let index = ActivitySearchIndex(
      version: version,
      validUntil: records.compactMap(\.expirationDate).min(),
      index: SearchIndex(
        records.map { SearchDocument(title: $0.title ?? "", keywords: $0.keywords.sorted()) }),
      records: records)
    connection.searchIndex.withLock { $0 = index }
    return index
  }
}

/// An index of a history's searchable activities, with what it was built from.
struct ActivitySearchIndex: Sendable {
  /// The history's version it was built at; nil for a history with no database yet.
  var version: ActivityHistory.Version?
  /// When the first of its activities expires, which makes it out of date.
  var validUntil: Date?
  var index: SearchIndex
  /// The activities, by document number.
  var records: [UserActivityRecord]
}
