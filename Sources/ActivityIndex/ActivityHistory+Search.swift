import SQLite
import SearchIndex
import StateRestoration
import SystemSupport

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
  /// the more recently active first among equal matches. An activity past its expiration date
  /// is never returned, nor one that does not decode (which stays in the history as it is).
  ///
  /// The search reads an index kept in a file beside the history (`activities.searchindex`),
  /// with the changes made since it was written laid over it, so that a search costs about the
  /// same at a million activities as at ten; the file is built at the first search, and again
  /// when many changes have been made since. Where the file cannot be written, the index is
  /// built in memory.
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
    try search(text, limit: limit, at: date, willBuild: { _ in })
  }

  /// ``search(_:limit:at:)``, telling the caller before the index is built, which takes a few
  /// seconds at a million activities: what a program shows a note for.
  ///
  /// - Parameters:
  ///   - text: The query, as a user types it.
  ///   - limit: The most results.
  ///   - date: The time expiration is judged at.
  ///   - willBuild: Called with the number of activities before the index is built.
  /// - Returns: The results, best first.
  /// - Throws: What ``search(_:limit:at:)`` throws.
  package func search(
    _ text: String, limit: Int, at date: Date, willBuild: (Int) -> Void
  ) throws -> [ActivitySearchResult] {
    let query = try SearchQuery(text)
    guard limit > 0 else { return [] }
    return try readDatabase { database in
      // One snapshot: the changes laid over the index and the activities its hits are.
      try database.readTransaction {
        guard try database.schemaVersion >= 2 else {
          // A history of the first version this program cannot write: searched in memory.
          var index = try ActivitySearchIndex.build(
            from: database, identity: 0, change: 0, willBuild: willBuild)
          return try index.results(for: query, limit: limit, at: date, in: self, database)
        }
        var rebuilt = false
        while true {
          var index = try preparedSearchIndex(
            database, rebuilding: rebuilt, willBuild: willBuild)
          do {
            let results = try index.results(for: query, limit: limit, at: date, in: self, database)
            connection.searchIndex.withLock { $0 = index }
            return results
          } catch is ActivitySearchIndex.Inconsistent where !rebuilt {
            // The file does not say what the history holds (its rows were renumbered, say):
            // built again, once.
            rebuilt = true
          } catch is SearchIndexError where !rebuilt {
            // A file damaged since it was opened.
            rebuilt = true
          }
          connection.searchIndex.withLock { $0 = nil }
        }
      }
    } ?? []
  }

  /// The search index file's path.
  var searchIndexPath: String {
    let base = path.hasSuffix(".sqlite") ? String(path.dropLast(".sqlite".count)) : path
    return directory.path(of: base + ".searchindex")
  }

  /// The index as the history is now: the one this process used last or the file, with the
  /// changes since laid over it; built and written again when it is missing, damaged, of
  /// another history, or too far behind.
  private func preparedSearchIndex(
    _ database: Database, rebuilding: Bool, willBuild: (Int) -> Void
  ) throws -> ActivitySearchIndex {
    let identity = UInt64(
      bitPattern: Int64(
        try database.integer("SELECT value FROM history_info WHERE key = 'id'") ?? 0))
    let change = try database.integer("SELECT value FROM history_info WHERE key = 'change'") ?? 0
    if !rebuilding {
      if var cached = connection.searchIndex.withLock({ $0 }),
        cached.isCurrent(identity: identity, change: change)
      {
        if try cached.catchUp(to: change, in: database) { return cached }
      }
      if var file = try? ActivitySearchIndex(contentsOf: searchIndexPath),
        file.isCurrent(identity: identity, change: change)
      {
        if try file.catchUp(to: change, in: database) { return file }
      }
    }
    // Another process building it now: its file is waited for and used.
    let lock = try? FileLock.acquire(searchIndexPath + ".lock")
    if lock == nil, !rebuilding,
      let waited = try? FileLock.acquireWaiting(searchIndexPath + ".lock")
    {
      withExtendedLifetime(waited) {}
      if var file = try? ActivitySearchIndex(contentsOf: searchIndexPath),
        file.isCurrent(identity: identity, change: change),
        try file.catchUp(to: change, in: database)
      {
        return file
      }
    }
    defer { withExtendedLifetime(lock) {} }
    return try ActivitySearchIndex.build(
      from: database, identity: identity, change: change,
      writingTo: lock == nil ? nil : searchIndexPath, temporaryDirectory: directory.path,
      willBuild: willBuild)
  }
}

/// The index of a history's activities: document *n* is the row whose `rowid` is *n* + 1 (an
/// activity saved again keeps its row), empty for an activity not eligible for search or no
/// longer there. Rows changed after the file was built are laid over it; a row deleted since
/// stays in the index until the next build, and is dropped when a search finds it.
struct ActivitySearchIndex: Sendable {
  var index: SearchIndex
  /// The history's identity, as its `history_info` holds it.
  var identity: UInt64
  /// The history's change number the index was built at.
  var generation: Int
  /// The change number the changes laid over it go up to.
  var applied: Int
  /// The boosts that order equal matches by recency, and the change number they are of.
  var boosts: [Int: Double] = [:]
  var boostsChange = -1

  /// Thrown when a search finds the index saying something its history does not.
  struct Inconsistent: Error {}

  /// More changes than this since the build and the index is built again: reading them is
  /// then slower than the build.
  static let overlayLimit = 50_000
  /// The most recent activities whose boosts order equal matches by recency.
  static let recentLimit = 200
  /// Past this many documents per row, the rows are too sparse to number documents by (a
  /// history someone edited by hand): the index is built in memory instead.
  static let sparseLimit = 16

  init(index: SearchIndex, identity: UInt64, generation: Int) {
    self.index = index
    self.identity = identity
    self.generation = generation
    self.applied = generation
  }

  /// Opens an index file.
  init(contentsOf path: String) throws {
    let file = try SearchIndex(contentsOf: path)
    guard let origin = file.origin, let generation = Int(exactly: origin.generation) else {
      throw SearchIndexError.missing(path: path)
    }
    self.init(index: file, identity: origin.source, generation: generation)
  }

  /// Whether the index is of this history, not newer than it, and not too far behind.
  func isCurrent(identity: UInt64, change: Int) -> Bool {
    let (behind, overflow) = change.subtractingReportingOverflow(generation)
    return rows.isEmpty && identity == self.identity && applied <= change && !overflow
      && behind < Self.overlayLimit
  }

  /// The document a row is.
  static func document(title: String?, keywords: [String], eligible: Bool) -> SearchDocument {
    eligible ? SearchDocument(title: title ?? "", keywords: keywords.sorted()) : empty
  }

  static let empty = SearchDocument(title: "", keywords: [])

  /// The document number of a row; nil for one that cannot be a document.
  static func number(ofRow rowid: Int) -> Int? {
    rowid >= 1 && rowid <= Int(UInt32.max) ? rowid - 1 : nil
  }

  /// What a row's columns say of its document: `title`, `keywords`, `eligible` are read with
  /// `json_extract`.
  private static let documentColumns = """
    rowid, json_extract(record, '$.title'), json_extract(record, '$.keywords'),
    json_extract(record, '$.isEligibleForSearch')
    """

  private static func document(_ statement: Statement) -> SearchDocument {
    var keywords: [String] = []
    if !statement.isNull(2),
      case .array(let values)? = try? JSONValue(parsing: statement.text(2).utf8)
    {
      keywords = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }
    return document(
      title: statement.isNull(1) ? nil : statement.text(1), keywords: keywords,
      eligible: !statement.isNull(3) && statement.integer(3) == 1)
  }

  /// Lays the rows changed since ``applied`` over the index.
  ///
  /// - Returns: False when a row's number is too far past the index's end to lay over it.
  mutating func catchUp(to change: Int, in database: Database) throws -> Bool {
    guard change > applied else { return true }
    let statement = try database.statement(
      "SELECT \(Self.documentColumns) FROM activities WHERE change > ? ORDER BY rowid")
    defer { statement.reset() }
    try statement.bind([.integer(applied)])
    while try statement.step() {
      guard let number = Self.number(ofRow: statement.integer(0)),
        number - index.count <= Self.overlayLimit
      else { return false }
      while index.count < number { index.update(Self.empty, at: index.count) }
      index.update(Self.document(statement), at: number)
    }
    applied = change
    return true
  }

  /// Builds the index from every row, writing it to a file when given one (a file that cannot
  /// be written is left out: the index is then kept in memory).
  static func build(
    from database: Database, identity: UInt64, change: Int, writingTo path: String? = nil,
    temporaryDirectory: String = ".", willBuild: (Int) -> Void
  ) throws -> ActivitySearchIndex {
    let rows = try database.integer("SELECT count(*) FROM activities") ?? 0
    willBuild(rows)
    let last = try database.integer("SELECT max(rowid) FROM activities") ?? 0
    // Rows too sparse to number documents by are indexed in memory, one document each, in
    // row order; the overlay cannot follow them, so such an index is never kept.
    let dense = last / Self.sparseLimit <= max(rows, Self.overlayLimit)
    let statement = try database.statement(
      "SELECT \(documentColumns) FROM activities ORDER BY rowid")
    defer { statement.reset() }
    if dense, let path {
      let directory = temporaryDirectory
      var builder = SearchIndexFileBuilder(temporaryDirectory: directory)
      defer { builder.removeSlices() }
      do {
        while try statement.step() {
          guard let number = number(ofRow: statement.integer(0)) else { continue }
          while builder.count < number { try builder.add(empty) }
          try builder.add(document(statement))
        }
        try builder.write(
          to: path,
          origin: SearchIndex.Origin(source: identity, generation: UInt64(clamping: change)))
        return ActivitySearchIndex(
          index: try SearchIndex(contentsOf: path), identity: identity, generation: change)
      } catch is SearchIndexError {
        // A cache that cannot be written: built in memory below.
        statement.reset()
      }
    }
    var documents: [SearchDocument] = []
    var rowids: [Int] = []
    while try statement.step() {
      if dense {
        guard let number = number(ofRow: statement.integer(0)) else { continue }
        while documents.count < number { documents.append(empty) }
      } else {
        rowids.append(statement.integer(0))
      }
      documents.append(document(statement))
    }
    var built = ActivitySearchIndex(
      index: SearchIndex(documents), identity: identity, generation: change)
    built.rows = rowids
    return built
  }

  /// The row of each document, for an index of sparse rows, which is never kept (the changes
  /// cannot be laid over it); empty when document *n* is row *n* + 1.
  var rows: [Int] = []

  private func rowid(ofDocument document: Int) -> Int {
    rows.isEmpty ? document + 1 : (rows.indices.contains(document) ? rows[document] : 0)
  }

  /// Boosts for the most recently active rows, falling from 0.95 towards 0.05, all below one
  /// match's weight: equal matches come most recent first.
  private mutating func updateBoosts(in database: Database) throws {
    guard rows.isEmpty, boostsChange != applied else { return }
    let statement = try database.statement(
      "SELECT rowid FROM activities ORDER BY last_active DESC LIMIT ?")
    defer { statement.reset() }
    try statement.bind([.integer(Self.recentLimit)])
    var recent: [Int] = []
    while try statement.step() {
      if let number = Self.number(ofRow: statement.integer(0)) { recent.append(number) }
    }
    boosts = [:]
    for (rank, number) in recent.enumerated() where number < index.count {
      boosts[number] = 0.95 - 0.9 * Double(rank) / Double(recent.count)
    }
    boostsChange = applied
  }

  /// The best activities for a query: the index's hits, each looked up in the history and
  /// matched again against what it holds, so that a deleted, expired or changed activity is
  /// never returned; more hits are asked for while too few remain.
  mutating func results(
    for query: SearchQuery, limit: Int, at date: Date, in history: ActivityHistory,
    _ database: Database
  ) throws -> [ActivitySearchResult] {
    try updateBoosts(in: database)
    let lookup = try database.statement("SELECT record FROM activities WHERE rowid = ?")
    var wanted = limit.addingReportingOverflow(8).overflow ? limit : limit + 8
    while true {
      let hits = try index.search(query, limit: wanted, boosts: boosts)
      var candidates: [UserActivityRecord] = []
      for hit in hits {
        defer { lookup.reset() }
        try lookup.bind([.integer(rowid(ofDocument: hit.document))])
        guard try lookup.step() else { continue }
        // One that does not decode (a later version's, say) is left out, and kept.
        guard let record = try? history.decode(lookup.text(0)), record.isEligibleForSearch,
          !record.isExpired(at: date)
        else { continue }
        candidates.append(record)
      }
      // Matched again in the activities themselves.
      let check = SearchIndex(
        candidates.map {
          Self.document(title: $0.title, keywords: Array($0.keywords), eligible: true)
        })
      let verified = try check.search(query, limit: max(1, candidates.count))
      if rows.isEmpty, verified.count < candidates.count {
        throw Inconsistent()
      }
      let results = verified.map { hit in
        ActivitySearchResult(
          activity: candidates[hit.document], score: hit.score, matches: hit.matches)
      }
      if results.count >= limit || hits.count < wanted {
        return Array(
          results.sorted {
            $0.score != $1.score
              ? $0.score > $1.score
              : ($0.activity.lastActiveDate ?? .distantPast)
                > ($1.activity.lastActiveDate ?? .distantPast)
          }.prefix(limit))
      }
      // Past the index's count, every hit is asked for and the loop ends.
      wanted = min(index.count + 1, wanted > Int.max / 4 ? Int.max : wanted * 4)
    }
  }
}
