import CatalogCore
import CatalogEngines
import CatalogModel
import Foundation
import SearchIndex
import StateRestoration
import SystemSupport

// The catalog's search index file: opened with the changes since laid over it, built and
// written (under a lock, a slice at a time), or found being built by another process.
extension CatalogSearchIndex {

  /// Opens the index file of a catalog database and lays the changes made since it was built
  /// over it; builds and writes it again when it is missing, damaged, from another catalog,
  /// newer than the catalog, or further behind than ``overlayLimit``.
  ///
  /// - Parameters:
  ///   - path: The index file.
  ///   - database: The catalog database.
  ///   - note: Called with a line to show when the index is built at once, which takes long.
  /// - Returns: The index.
  /// - Throws: ``CatalogError`` when the catalog cannot be read.
  package static func open(
    _ path: String, database: any CatalogStorage, note: (String) -> Void
  ) throws -> CatalogSearchIndex {
    let reason: String?
    do {
      let file = try SearchIndex(contentsOf: path)
      guard let origin = file.origin, let identity = database.identity, origin.source == identity
      else { throw CatalogCoreError.staleSearchIndex(.otherCatalog) }
      // A generation past any the catalog can reach is one it has not reached.
      guard let generation = Int(exactly: origin.generation) else {
        throw CatalogCoreError.staleSearchIndex(.newer)
      }
      guard let changes = try database.changes(after: generation, limit: overlayLimit)
      else { throw CatalogCoreError.staleSearchIndex(.tooFarBehind) }
      guard changes.generation >= generation else {
        throw CatalogCoreError.staleSearchIndex(.newer)
      }
      var index = CatalogSearchIndex(index: file, generation: generation)
      try index.apply(changes)
      return index
    } catch SearchIndexError.missing {
      reason = nil
    } catch let error as SearchIndexError {
      reason = error.description
    } catch CatalogCoreError.staleSearchIndex(let stale) {
      reason = "the search index '\(path)' \(stale.rawValue)"
    }
    // A bad file is always worth a word; a first build only when it takes a while.
    if let reason {
      note("\(reason); building it again")
    } else if database.count >= 10_000 {
      note("building the search index for \(database.count.grouped) products…")
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
    } catch SystemError.locked {
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
  /// - Throws: ``CatalogError`` when the catalog cannot be read; with `.always`,
  ///   ``SearchIndexError`` or ``StateRestorationError`` when the file cannot be written; or
  ///   what `progress` throws.
  @discardableResult
  package static func build(
    _ path: String, database: any CatalogStorage, writing: Writing = .ifFree,
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
    _ path: String, database: any CatalogStorage, holding lock: FileLock?, strict: Bool,
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
      let origin = SearchIndex.Origin(source: identity, generation: UInt64(clamping: generation))
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
    _ path: String, database: any CatalogStorage, strict: Bool, progress: (Int, Int) throws -> Void
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
        to: path,
        origin: SearchIndex.Origin(source: identity, generation: UInt64(clamping: generation)))
      return CatalogSearchIndex(index: try SearchIndex(contentsOf: path), generation: generation)
    } catch let error as SearchIndexError {
      if strict { throw error }
      return nil
    }
  }

  /// How many products a build indexes in memory at a time, which bounds its memory whatever
  /// the catalog's size.
  static let sliceSize = 500_000
}
