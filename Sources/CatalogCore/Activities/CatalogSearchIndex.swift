import CatalogModel
import Foundation
import SearchIndex
import StateRestoration

/// The catalog's search index: the file `search.index` beside the catalog database, mapped,
/// with what changed in the catalog since it was built laid over it; or, for a catalog in
/// memory, an index built in memory.
///
/// Documents are numbered as the products were when the file was built. Since then, products
/// may have been edited (searched from the overlay under their old numbers), deleted (removed
/// from the results; later products moved up one place in the list) or added (at the end, so
/// numbered after every document of the file). ``number(ofDocument:)`` and
/// ``document(ofNumber:)`` translate between documents and list numbers.
package struct CatalogSearchIndex: Sendable {
  /// An overlay with more documents than this is worth a new file, built in the background:
  /// each search scores the overlay's documents one by one (0.3 to 1.6 microseconds each,
  /// `catalog-bench search --overlay N`).
  package static let rebuildThreshold = 1_000
  /// An overlay with more documents than this is slower to read than the file is to build
  /// again, which is done at once.
  package static let overlayLimit = 50_000

  /// The index, with the overlay.
  package private(set) var index: SearchIndex
  /// The catalog generation the index and its overlay show.
  package private(set) var generation: Int
  /// The file's documents that were deleted since, in increasing order.
  private var deleted: [Int] = []

  /// How many documents the index's file (or build) has.
  private let baseCount: Int
  /// The catalog generation the file (or build) was made from.
  private let baseGeneration: Int

  /// The number of documents changed since the index was built.
  package var overlayCount: Int { index.overlayCount }

  /// Whether the overlay is large enough that the file should be built again.
  package var needsRebuild: Bool { overlayCount > Self.rebuildThreshold }

  private init(index: SearchIndex, generation: Int) {
    self.index = index
    self.generation = generation
    baseCount = index.count
    baseGeneration = generation
  }

  /// Builds an index in memory from every product of a catalog.
  ///
  /// - Parameter catalog: The catalog.
  package init(building catalog: Catalog) {
    var documents: [SearchDocument] = []
    documents.reserveCapacity(catalog.count)
    catalog.forEachProduct { documents.append(Self.document($0)) }
    self.init(index: SearchIndex(documents), generation: catalog.generation)
  }

  static func document(_ product: Product) -> SearchDocument {
    SearchDocument(title: product.name, keywords: product.keywords)
  }

  // MARK: - Numbers

  /// The list number of a document, or nil for a deleted one.
  package func number(ofDocument document: Int) -> Int? {
    let base = baseCount
    if document >= base { return base - deleted.count + (document - base) + 1 }
    let before = deleted.partitioningIndex { $0 >= document }
    if before < deleted.count, deleted[before] == document { return nil }
    return document - before + 1
  }

  /// The document that holds a list number's product.
  package func document(ofNumber number: Int) -> Int {
    let survivors = baseCount - deleted.count
    if number > survivors { return baseCount + (number - survivors - 1) }
    // The number-th document the deletions left, counting from 1: past the deletions that
    // leave fewer survivors before them than it (`deleted[i] - i` survivors precede
    // `deleted[i]`), found by binary search, as a search looks up every boosted product.
    let wanted = number - 1
    var low = 0
    var high = deleted.count
    while low < high {
      let middle = (low + high) / 2
      if deleted[middle] - middle <= wanted { low = middle + 1 } else { high = middle }
    }
    return wanted + low
  }

  // MARK: - The file

  /// Opens the index file of a catalog database and lays the changes made since it was built
  /// over it; builds and writes it again when it is missing, damaged, from another catalog,
  /// newer than the catalog, or further behind than ``overlayLimit``.
  ///
  /// - Parameters:
  ///   - path: The index file.
  ///   - database: The catalog database.
  ///   - note: Called with a line to show when the index is built at once, which takes long.
  /// - Returns: The index.
  /// - Throws: ``CatalogDatabaseError`` when the catalog cannot be read.
  package static func open(
    _ path: String, database: CatalogDatabase, note: (String) -> Void
  ) throws -> CatalogSearchIndex {
    let reason: String?
    do {
      let file = try SearchIndex(contentsOf: path)
      guard let origin = file.origin, let identity = database.identity, origin.source == identity
      else { throw SearchIndexStale.otherCatalog }
      guard let changes = try database.changes(after: Int(origin.generation), limit: overlayLimit)
      else { throw SearchIndexStale.tooFarBehind }
      guard changes.generation >= origin.generation else { throw SearchIndexStale.newer }
      var index = CatalogSearchIndex(index: file, generation: Int(origin.generation))
      try index.apply(changes)
      return index
    } catch SearchIndexError.missing {
      reason = nil
    } catch let error as SearchIndexError {
      reason = error.description
    } catch let stale as SearchIndexStale {
      reason = "the search index '\(path)' \(stale.rawValue)"
    }
    // A bad file is always worth a word; a first build only when it takes a while.
    if let reason {
      note("\(reason); building it again")
    } else if database.count >= 10_000 {
      note("building the search index for \(database.count.formatted()) products…")
    }
    return try build(path, database: database)
  }

  /// How a build writes its file.
  package enum Writing: Sendable {
    /// Unless another process is writing it now; a file that cannot be written is left out
    /// (it is a cache: search works from memory).
    case ifFree
    /// Waiting for another process writing it, and failing when it cannot be written.
    case always
  }

  /// The lock a process holds while it builds and writes the index file.
  private static func lockPath(_ path: String) -> String { path + ".lock" }

  /// Whether another process is building the index file now.
  package static func isBeingBuilt(_ path: String) -> Bool {
    guard FileManager.default.fileExists(atPath: lockPath(path)) else { return false }
    do {
      _ = try FileLock.acquire(lockPath(path))
      return false
    } catch StateRestorationError.locked {
      return true
    } catch {
      return false
    }
  }

  /// Builds the index from one snapshot of the catalog and writes it to its file.
  ///
  /// - Parameters:
  ///   - path: The index file.
  ///   - database: The catalog database.
  ///   - writing: Whether a file that cannot be written is an error.
  ///   - progress: Called every 10,000 products with how many are indexed of how many; what it
  ///     throws stops the build, which leaves the file as it was.
  /// - Returns: The index, as built.
  /// - Throws: ``CatalogDatabaseError`` when the catalog cannot be read; with `.always`,
  ///   ``SearchIndexError`` or ``StateRestorationError`` when the file cannot be written; or
  ///   what `progress` throws.
  @discardableResult
  package static func build(
    _ path: String, database: CatalogDatabase, writing: Writing = .ifFree,
    progress: (_ indexed: Int, _ total: Int) throws -> Void = { _, _ in }
  ) throws -> CatalogSearchIndex {
    // Taken first, so that a process waiting for it then builds from a later snapshot.
    switch writing {
    case .always:
      return try build(
        path, database: database, holding: FileLock.acquireWaiting(lockPath(path)), strict: true,
        progress: progress)
    case .ifFree:
      return try build(
        path, database: database, holding: try? FileLock.acquire(lockPath(path)), strict: false,
        progress: progress)
    }
  }

  /// Builds the index, and writes it when this process holds the file's lock; a failure to
  /// write is thrown only when `strict`.
  private static func build(
    _ path: String, database: CatalogDatabase, holding lock: FileLock?, strict: Bool,
    progress: (Int, Int) throws -> Void = { _, _ in }
  ) throws -> CatalogSearchIndex {
    if let lock,
      let built = try buildFile(path, database: database, strict: strict, progress: progress)
    {
      withExtendedLifetime(lock) {}
      return built
    }
    var documents: [SearchDocument] = []
    var generation = 0
    var total = 0
    // A product left out (it breaks the editor's rules) is a document that matches nothing, so
    // that every later document keeps its product's number.
    let nothing = SearchDocument(title: "", keywords: [])
    try database.forEachProduct(start: { now, count in
      (generation, total) = (now, count)
      documents.reserveCapacity(count)
    }) { number, product in
      while documents.count < number - 1 { documents.append(nothing) }
      documents.append(document(product))
    }
    while documents.count < total { documents.append(nothing) }
    let index = SearchIndex(documents)
    if let lock, let identity = database.identity {
      let origin = SearchIndex.Origin(source: identity, generation: UInt64(generation))
      if strict {
        try index.write(to: path, origin: origin)
      } else {
        try? index.write(to: path, origin: origin)
      }
      withExtendedLifetime(lock) {}
    }
    return CatalogSearchIndex(index: index, generation: generation)
  }

  /// Builds the index file a slice of products at a time, in bounded memory whatever the
  /// catalog's size (`SearchIndexFileBuilder`, its slices beside the file), and opens it.
  ///
  /// - Returns: The index; nil when the file could not be written and `strict` is false (the
  ///   caller then builds it in memory).
  private static func buildFile(
    _ path: String, database: CatalogDatabase, strict: Bool, progress: (Int, Int) throws -> Void
  ) throws -> CatalogSearchIndex? {
    guard let identity = database.identity else { return nil }
    let directory = (path as NSString).deletingLastPathComponent
    var builder = SearchIndexFileBuilder(
      temporaryDirectory: directory.isEmpty ? "." : directory, sliceSize: sliceSize)
    defer { builder.removeSlices() }
    var generation = 0
    var total = 0
    // A product left out (it breaks the editor's rules) is a document that matches nothing, so
    // that every later document keeps its product's number.
    let nothing = SearchDocument(title: "", keywords: [])
    do {
      try database.forEachProduct(start: { now, count in (generation, total) = (now, count) }) {
        number, product in
        while builder.count < number - 1 { try builder.add(nothing) }
        try builder.add(document(product))
        if number % 10_000 == 0 { try progress(number, total) }
      }
      while builder.count < total { try builder.add(nothing) }
      try builder.write(
        to: path, origin: SearchIndex.Origin(source: identity, generation: UInt64(generation)))
      return CatalogSearchIndex(index: try SearchIndex(contentsOf: path), generation: generation)
    } catch let error as SearchIndexError {
      if strict { throw error }
      return nil
    }
  }

  /// How many products a build indexes in memory at a time: about 170 MB at most.
  static let sliceSize = 500_000

  /// Brings the overlay up to date with a catalog database.
  ///
  /// - Returns: false when the index is too far behind to follow and must be opened again.
  package mutating func update(from database: CatalogDatabase) throws -> Bool {
    guard database.generation != generation else { return true }
    guard let changes = try database.changes(after: baseGeneration, limit: Self.overlayLimit)
    else { return false }
    var file = index
    file.removeOverlay()
    var updated = CatalogSearchIndex(index: file, generation: baseGeneration)
    do {
      try updated.apply(changes)
    } catch {
      return false
    }
    self = updated
    return true
  }

  /// Lays changes over the file's index: deletions in the order they were made, then every
  /// product added or edited at its place now.
  private mutating func apply(_ changes: CatalogDatabase.Changes) throws {
    let base = baseCount
    for position in changes.deletedPositions {
      // A product added since the file was built and deleted again leaves the file's alone.
      guard position >= 1, position <= base - deleted.count else { continue }
      let document = document(ofNumber: position)
      deleted.insert(document, at: deleted.partitioningIndex { $0 >= document })
      index.remove(at: document)
    }
    let survivors = base - deleted.count
    guard changes.count >= survivors else { throw SearchIndexStale.tooFarBehind }
    for (position, product) in changes.changed {
      let document = document(ofNumber: position)
      guard document <= index.count else { throw SearchIndexStale.tooFarBehind }
      index.update(Self.document(product), at: document)
    }
    guard index.count == base + changes.count - survivors else {
      throw SearchIndexStale.tooFarBehind
    }
    generation = changes.generation
  }
}

/// Why an index file that is intact is not used.
enum SearchIndexStale: String, Error {
  case otherCatalog = "was built from another catalog"
  case newer = "is newer than the catalog"
  case tooFarBehind = "is too far behind the catalog"
}

extension Array {
  /// The index of the first element for which a predicate, false and then true along the
  /// array, is true.
  func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if belongs(self[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
  }
}
