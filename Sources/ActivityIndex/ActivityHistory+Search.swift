import SQLite
import SearchIndex
import StateRestoration
import SystemSupport

#if canImport(Glibc)
  import Glibc
#endif
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
          let index = try ActivitySearchIndex.build(
            from: database, identity: 0, change: 0, willBuild: willBuild)
          return try index.results(for: query, limit: limit, at: date, in: self, database)
        }
        var rebuilt = false
        while true {
          let index = try preparedSearchIndex(
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

  /// The search index file's path, and its rows'.
  var searchIndexPaths: (index: String, rows: String) {
    let base = path.hasSuffix(".sqlite") ? String(path.dropLast(".sqlite".count)) : path
    return (directory.path(of: base + ".searchindex"), directory.path(of: base + ".searchrows"))
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
    let rows = try database.integer("SELECT value FROM history_info WHERE key = 'count'") ?? 0
    let paths = searchIndexPaths
    func opened() -> ActivitySearchIndex? {
      try? ActivitySearchIndex(contentsOf: paths.index, rowsPath: paths.rows)
    }
    // The one this process used last, else the file: opened only when that one will not do.
    if !rebuilding {
      for candidate in [{ connection.searchIndex.withLock { $0 } }, opened] {
        if var index = candidate(),
          index.isCurrent(identity: identity, change: change, rows: rows)
        {
          try index.catchUp(to: change, in: database)
          return index
        }
      }
    }
    // Another process building it now: its files are waited for and used.
    let lock = try? FileLock.acquire(paths.index + ".lock")
    if lock == nil, !rebuilding, let waited = try? FileLock.acquireWaiting(paths.index + ".lock") {
      withExtendedLifetime(waited) {}
      if var index = opened(), index.isCurrent(identity: identity, change: change, rows: rows) {
        try index.catchUp(to: change, in: database)
        return index
      }
    }
    defer { withExtendedLifetime(lock) {} }
    return try ActivitySearchIndex.build(
      from: database, identity: identity, change: change,
      writingTo: lock == nil ? nil : paths, temporaryDirectory: directory.path,
      willBuild: willBuild)
  }
}

/// The index of a history's activities, most recently active first when it was built (equal
/// matches come in document order), with the row each document is, kept in a file of its own
/// beside the index's (`activities.searchrows`). Rows changed since the build are added at the
/// end, their documents boosted by recency, so that they come first among equal matches; a
/// row's document from the build stays where it was and is skipped when a search finds it.
struct ActivitySearchIndex: Sendable {
  var index: SearchIndex
  /// The row of each document of the build.
  var rows: DocumentRows
  /// The history's identity, as its `history_info` holds it.
  var identity: UInt64
  /// The history's change number the index was built at.
  var generation: Int
  /// The change number the changes laid over it go up to.
  var applied: Int
  /// The row of each document added since the build, and the document of each such row.
  var addedRows: [Int: Int] = [:]
  var addedDocuments: [Int: Int] = [:]
  /// When each added document's row was last active, and the boosts made from it.
  var addedActive: [Int: Double] = [:]
  var boosts: [Int: Double] = [:]

  /// Thrown when a search finds the index saying something its history does not.
  struct Inconsistent: Error {}

  /// The most changes since the build a history lays over its index: every search scores
  /// their documents from their text.
  static let overlayLimit = 10_000
  /// The changes since the build that a history of some size lays over its index before it is
  /// built again: every process reads them at its first search, and a build costs in
  /// proportion to the history, so a small history is built again sooner.
  static func changesKept(rows: Int) -> Int {
    min(max(100, rows / 100), overlayLimit)
  }

  init(index: SearchIndex, rows: DocumentRows, identity: UInt64, generation: Int) {
    self.index = index
    self.rows = rows
    self.identity = identity
    self.generation = generation
    self.applied = generation
  }

  /// Opens an index file and its rows' file, which must be of the same build.
  init(contentsOf path: String, rowsPath: String) throws {
    let file = try SearchIndex(contentsOf: path)
    guard let origin = file.origin, let generation = Int(exactly: origin.generation) else {
      throw SearchIndexError.missing(path: path)
    }
    let rows = try DocumentRows(contentsOf: rowsPath)
    guard rows.identity == origin.source, rows.generation == origin.generation,
      rows.count == file.count
    else { throw SearchIndexError.missing(path: rowsPath) }
    self.init(index: file, rows: rows, identity: origin.source, generation: generation)
  }

  /// Whether the index is of this history, not newer than it, and not too far behind a history
  /// of so many rows.
  func isCurrent(identity: UInt64, change: Int, rows: Int) -> Bool {
    let (behind, overflow) = change.subtractingReportingOverflow(generation)
    return identity == self.identity && applied <= change && !overflow
      && behind <= Self.changesKept(rows: rows)
  }

  /// The document a row is.
  static func document(title: String?, keywords: [String], eligible: Bool) -> SearchDocument {
    eligible ? SearchDocument(title: title ?? "", keywords: keywords.sorted()) : empty
  }

  static let empty = SearchDocument(title: "", keywords: [])

  /// What a row's columns say of its document: `rowid`, then the title, keywords and
  /// eligibility read with `json_extract`, then when it was last active.
  private static let documentColumns = """
    rowid, json_extract(record, '$.title'), json_extract(record, '$.keywords'),
    json_extract(record, '$.isEligibleForSearch'), last_active
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

  /// Adds the rows changed since ``applied`` at the end, in place of any added before.
  mutating func catchUp(to change: Int, in database: Database) throws {
    guard change > applied else { return }
    let statement = try database.statement(
      "SELECT \(Self.documentColumns) FROM activities WHERE change > ? ORDER BY last_active, rowid")
    defer { statement.reset() }
    try statement.bind([.integer(applied)])
    while try statement.step() {
      let rowid = statement.integer(0)
      if let earlier = addedDocuments[rowid] {
        index.remove(at: earlier)
        addedRows[earlier] = nil
        addedActive[earlier] = nil
      }
      let number = index.count
      index.update(Self.document(statement), at: number)
      addedRows[number] = rowid
      addedDocuments[rowid] = number
      addedActive[number] = statement.double(4)
    }
    applied = change
    // Boosts fall from 0.95 towards 0.05 with recency, all below one match's weight.
    let order = addedActive.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key > $1.key }
    boosts = [:]
    for (rank, added) in order.enumerated() {
      boosts[added.key] = 0.95 - 0.9 * Double(rank) / Double(order.count)
    }
  }

  /// Builds the index from every row, most recently active first, writing it and its rows to
  /// files when given them (files that cannot be written are left out: the index is then kept
  /// in memory).
  static func build(
    from database: Database, identity: UInt64, change: Int,
    writingTo paths: (index: String, rows: String)? = nil, temporaryDirectory: String = ".",
    willBuild: (Int) -> Void
  ) throws -> ActivitySearchIndex {
    willBuild(try database.integer("SELECT count(*) FROM activities") ?? 0)
    // Read in the table's order and sorted by SQLite (`+` keeps it from walking the index on
    // `last_active`, which reads the rows in random order).
    let statement = try database.statement(
      "SELECT \(documentColumns) FROM activities ORDER BY +last_active DESC, rowid")
    defer { statement.reset() }
    var rowids: [Int] = []
    if let paths {
      // What a build killed before its renames left beside the files.
      DurableFile.removeAbandonedTemporaryFiles(of: paths.index)
      DurableFile.removeAbandonedTemporaryFiles(of: paths.rows)
      var builder = SearchIndexFileBuilder(temporaryDirectory: temporaryDirectory)
      defer { builder.removeSlices() }
      do {
        while try statement.step() {
          rowids.append(statement.integer(0))
          try builder.add(document(statement))
        }
        let generation = UInt64(clamping: change)
        // The rows first: an index file without its rows' file of the same build is not used.
        try DocumentRows.write(rowids, identity: identity, generation: generation, to: paths.rows)
        try builder.write(
          to: paths.index, origin: SearchIndex.Origin(source: identity, generation: generation))
        return try ActivitySearchIndex(contentsOf: paths.index, rowsPath: paths.rows)
      } catch is SearchIndexError, is SystemError {
        // A cache that cannot be written (a full disk, a read-only directory): built in
        // memory below.
        statement.reset()
      }
      rowids = []
    }
    var documents: [SearchDocument] = []
    while try statement.step() {
      rowids.append(statement.integer(0))
      documents.append(document(statement))
    }
    return ActivitySearchIndex(
      index: SearchIndex(documents), rows: DocumentRows(rowids), identity: identity,
      generation: change)
  }

  /// The row a document is, if it is one.
  private func rowid(ofDocument document: Int) throws -> Int? {
    document < rows.count ? try rows.rowid(of: document) : addedRows[document]
  }

  /// The best activities for a query: the index's hits, each looked up in the history and
  /// matched again against what it holds, so that a deleted, expired or changed activity is
  /// never returned; more hits are asked for while too few remain.
  func results(
    for query: SearchQuery, limit: Int, at date: Date, in history: ActivityHistory,
    _ database: Database
  ) throws -> [ActivitySearchResult] {
    let hasChanges = try database.schemaVersion >= 2
    let lookup = try database.statement(
      "SELECT record, \(hasChanges ? "change" : "0") FROM activities WHERE rowid = ?")
    var wanted = limit > Int.max - 8 ? limit : limit + 8
    while true {
      let hits = try index.search(query, limit: wanted, boosts: boosts)
      var candidates: [UserActivityRecord] = []
      for hit in hits {
        guard let rowid = try rowid(ofDocument: hit.document) else { continue }
        defer { lookup.reset() }
        try lookup.bind([.integer(rowid)])
        // A row deleted since, or changed since the build (its document is added at the end).
        guard try lookup.step(),
          hit.document >= rows.count || lookup.integer(1) <= generation
        else { continue }
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
      guard verified.count == candidates.count else { throw Inconsistent() }
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

/// The row of each document of an index's build: in memory, or read from its file as a search
/// needs them (a few a search, wherever they are in a file of a million).
///
/// The file is a 32-byte header — `ACTROWS1`, the history's identity, the change number of the
/// build and the number of documents, little-endian 64-bit integers — then each document's
/// `rowid` as one.
final class DocumentRows: Sendable {
  let identity: UInt64
  let generation: UInt64
  let count: Int
  private let storage: Storage

  private enum Storage: Sendable {
    case memory([Int])
    case file(path: String, descriptor: Int32)
  }

  private static let magic = Array("ACTROWS1".utf8)
  private static let headerLength = 32

  init(_ rowids: [Int]) {
    identity = 0
    generation = 0
    count = rowids.count
    storage = .memory(rowids)
  }

  /// Opens a rows file, checking its header and its length.
  init(contentsOf path: String) throws {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard descriptor >= 0 else { throw SearchIndexError.missing(path: path) }
    var header = [UInt8](repeating: 0, count: Self.headerLength)
    var status = stat()
    func field(_ index: Int) -> UInt64 {
      (0..<8).reduce(0) { $0 | UInt64(header[8 * index + $1]) << (8 * $1) }
    }
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
      pread(descriptor, &header, Self.headerLength, 0) == Self.headerLength,
      Array(header[0..<8]) == Self.magic, field(3) <= UInt64(Int32.max),
      Int(status.st_size) == Self.headerLength + 8 * Int(field(3))
    else {
      close(descriptor)
      throw SearchIndexError.notAnIndex(path: path)
    }
    identity = field(1)
    generation = field(2)
    count = Int(field(3))
    storage = .file(path: path, descriptor: descriptor)
  }

  deinit {
    if case .file(_, let descriptor) = storage { close(descriptor) }
  }

  /// The row of a document of the build.
  func rowid(of document: Int) throws -> Int {
    switch storage {
    case .memory(let rowids):
      return rowids[document]
    case .file(let path, let descriptor):
      var bytes = [UInt8](repeating: 0, count: 8)
      guard pread(descriptor, &bytes, 8, off_t(Self.headerLength + 8 * document)) == 8 else {
        throw SearchIndexError.damaged(path: path, reason: "a row cannot be read")
      }
      let value = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[$1]) << (8 * $1) }
      return Int(truncatingIfNeeded: value)
    }
  }

  /// Writes a rows file durably.
  static func write(_ rowids: [Int], identity: UInt64, generation: UInt64, to path: String) throws {
    var data = Data(capacity: headerLength + 8 * rowids.count)
    data.append(contentsOf: magic)
    let values =
      [identity, generation, UInt64(rowids.count)] + rowids.map { UInt64(bitPattern: Int64($0)) }
    for value in values {
      withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
    try DurableFile.write(data, to: path)
  }
}
