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

  /// An index with its generation, as opened or built.
  ///
  /// - Parameters:
  ///   - index: The index.
  ///   - generation: The catalog generation it shows.
  package init(index: SearchIndex, generation: Int) {
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

  package static func document(_ product: Product) -> SearchDocument {
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

  /// Brings the overlay up to date with a catalog database.
  ///
  /// - Returns: false when the index is too far behind to follow and must be opened again.
  package mutating func update(from database: any CatalogSource) throws -> Bool {
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
  package mutating func apply(_ changes: CatalogChanges) throws {
    let base = baseCount
    for position in changes.deletedPositions {
      // A product added since the file was built and deleted again leaves the file's alone.
      guard position >= 1, position <= base - deleted.count else { continue }
      let document = document(ofNumber: position)
      deleted.insert(document, at: deleted.partitioningIndex { $0 >= document })
      index.remove(at: document)
    }
    let survivors = base - deleted.count
    guard changes.count >= survivors else { throw CatalogCoreError.staleSearchIndex(.tooFarBehind) }
    for (position, product) in changes.changed {
      let document = document(ofNumber: position)
      guard document <= index.count else { throw CatalogCoreError.staleSearchIndex(.tooFarBehind) }
      index.update(Self.document(product), at: document)
    }
    guard index.count == base + changes.count - survivors else {
      throw CatalogCoreError.staleSearchIndex(.tooFarBehind)
    }
    generation = changes.generation
  }
}

/// Why an index file that is intact is not used (``CatalogCoreError/staleSearchIndex(_:)``).
package enum SearchIndexStale: String, Sendable, Equatable {
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
