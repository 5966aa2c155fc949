import CatalogModel
import Foundation

/// A value of a `products` column, as both engines store it.
enum ColumnValue: Equatable {
  case text(String)
  case integer(Int)
  case null
}

/// The steps of a write transaction on a catalog, each in its engine's own SQL; the logic of a
/// write — an edit merged with what was saved meanwhile, the numbering of a new product, the
/// change log a search index follows — is ``apply(_:)``'s, once for every engine. A third
/// engine gives these steps and ``ImportTransaction``'s, beside its reads (``CatalogStorage``),
/// its connection, its block counts and its schema (a `DatabaseMigrator` run under its lock).
///
/// Each step runs inside the transaction the engine opened with its write lock taken.
protocol CatalogTransaction {
  /// Takes the catalog's next generation, the one this transaction's changes are recorded at;
  /// writers of every process follow one another by it. An engine whose reply to `COMMIT` can
  /// be lost (a server) notes the transaction's identifier here too, so that whether it
  /// committed can be asked afterwards.
  func nextGeneration() throws -> Int
  /// A product as saved now, kept from other writers until the transaction ends; nil when the
  /// catalog has none with the identifier (or its row breaks the editor's rules).
  func lockedProduct(_ identifier: UUID) throws -> Product?
  /// Takes the next generation (``nextGeneration()``), then the products with identifiers as
  /// saved now, each kept from other writers (``lockedProduct(_:)``): by default one step after
  /// the other; an engine across a network asks for them in one round trip.
  ///
  /// - Parameter identifiers: The products the transaction edits.
  /// - Returns: The generation, and the products found.
  /// - Throws: What the engine throws.
  func nextGeneration(locking identifiers: [UUID]) throws -> (
    generation: Int, products: [UUID: Product]
  )
  /// Whether the catalog has a product with an identifier.
  func contains(_ identifier: UUID) throws -> Bool
  /// The largest position of a product; 0 for an empty catalog.
  func largestPosition() throws -> Int
  /// Inserts a product at a position, recorded at a generation.
  func insert(_ product: Product, position: Int, generation: Int) throws
  /// Sets some columns of a product's row (``Product/changedColumns(from:generation:)``).
  func update(_ identifier: UUID, setting columns: [(name: String, value: ColumnValue)]) throws
  /// A product's position, kept from other writers until the transaction ends; nil when the
  /// catalog has no such product.
  func lockedPosition(of identifier: UUID) throws -> Int?
  /// The list number of the product at a position.
  func number(ofPosition position: Int) throws -> Int?
  /// Removes a product's row.
  func deleteRow(_ identifier: UUID) throws
  /// Logs a deletion: the list number the product had, which a search index follows, and its
  /// identifier, which an import of an older file does not bring back.
  func logDeletion(number: Int, identifier: UUID, generation: Int) throws
  /// Counts a product added at a position in its block (``ListNumbering``).
  func countAdded(at position: Int) throws
  /// Counts a product removed from a position: nothing is renumbered.
  func countRemoved(at position: Int) throws
}

extension CatalogTransaction {
  func nextGeneration(locking identifiers: [UUID]) throws -> (
    generation: Int, products: [UUID: Product]
  ) {
    let generation = try nextGeneration()
    var products: [UUID: Product] = [:]
    for identifier in identifiers { products[identifier] = try lockedProduct(identifier) }
    return (generation, products)
  }

  /// Applies changes: each edit to its product as saved now, so that what other processes
  /// saved meanwhile is kept and a field both changed is a conflict; a new product after the
  /// last; a deletion logged and counted, renumbering nothing.
  ///
  /// - Parameter changes: The changes, in order.
  /// - Returns: The generation the changes are recorded at, and the products edited or added
  ///   as the changes left them (not those they deleted).
  /// - Throws: ``CatalogError`` (a conflict, a product another process removed or added), or
  ///   what a step throws; the engine then rolls the transaction back.
  @discardableResult
  func apply(_ changes: [CatalogChange]) throws -> (generation: Int, written: [UUID: Product]) {
    let edited = changes.compactMap { change -> UUID? in
      guard case .edit(let edit) = change else { return nil }
      return edit.identifier
    }
    let (generation, read) = try nextGeneration(locking: edited)
    var locked = read
    var written: [UUID: Product] = [:]
    for change in changes {
      switch change {
      case .edit(let edit):
        // As an earlier change of these left it; one added by them is read now.
        guard let current = try locked[edit.identifier] ?? lockedProduct(edit.identifier) else {
          throw CatalogError.productRemoved(name: edit.edited.name)
        }
        let product = try edit.applied(to: current)
        try update(
          product.identifier, setting: product.changedColumns(from: current, generation: generation)
        )
        locked[product.identifier] = product
        written[product.identifier] = product
      case .insert(let product):
        guard try !contains(product.identifier) else {
          throw CatalogError.alreadyInCatalog(name: product.name)
        }
        let position = try nextPosition()
        try insert(product, position: position, generation: generation)
        try countAdded(at: position)
        written[product.identifier] = product
      case .delete(let identifier, let name):
        guard let position = try lockedPosition(of: identifier),
          let number = try number(ofPosition: position)
        else { throw CatalogError.productRemoved(name: name) }
        try deleteRow(identifier)
        locked[identifier] = nil
        written[identifier] = nil
        try logDeletion(number: number, identifier: identifier, generation: generation)
        try countRemoved(at: position)
      }
    }
    return (generation, written)
  }

  /// The position one past the largest, for a new product.
  ///
  /// - Throws: ``CatalogError/damaged(_:)`` when the largest is beyond any catalog.
  func nextPosition() throws -> Int {
    let largest = try largestPosition()
    guard largest >= 0, largest < ListNumbering.largestPosition else {
      throw CatalogError.damaged("a product's position, \(largest), is out of range")
    }
    return largest + 1
  }
}

extension Product {
  /// The columns of a product's row that differ from what a row holding another version of it
  /// holds, and the generation that changed it. A column set is rewritten in its indexes even
  /// to the same value: a price changed alone leaves the indexes of names and years as they
  /// were.
  ///
  /// - Parameters:
  ///   - current: The product as the row holds it.
  ///   - generation: The generation of the change.
  /// - Returns: The columns to set, `changed` last.
  func changedColumns(from current: Product, generation: Int) -> [(
    name: String, value: ColumnValue
  )] {
    var columns: [(name: String, value: ColumnValue)] = []
    if name != current.name {
      columns.append(("name", .text(name)))
      columns.append(("folded_name", .text(name.folded)))
    }
    if imageName != current.imageName { columns.append(("image_name", .text(imageName))) }
    if year != current.year { columns.append(("year", .integer(year))) }
    if price != current.price { columns.append(("price_cents", .integer(price.cents))) }
    if keywords != current.keywords {
      columns.append(
        ("keywords", .text(keywords.joined(separator: SkippedRows.keywordSeparator))))
    }
    if imageDirectory != current.imageDirectory {
      columns.append(("image_directory", imageDirectory.map(ColumnValue.text) ?? .null))
    }
    columns.append(("changed", .integer(generation)))
    return columns
  }
}

/// The steps of an import's merge, each in its engine's own SQL, once the records are staged
/// (in a temporary table, numbered in the file's order); the logic of the merge — which
/// records update, which are new, what a replacing import removes, what is counted again — is
/// ``mergeStaged(read:generation:seeding:options:madeIdentifiers:)``'s, once for every engine.
protocol ImportTransaction: CatalogTransaction {
  /// Readies the staged records for the lookups of the merge (indexes, statistics).
  func prepareStaged() throws
  /// Gives records that came without an identifier the identifier of the one product of the
  /// same name, or refuses them, as a policy says (``ImportOptions/DuplicateNames``).
  func matchByName(_ made: [UUID], _ policy: ImportOptions.DuplicateNames) throws
  /// Throws ``CatalogError/repeatedIdentifier(_:record:name:)`` naming the later record of an
  /// identifier the staged records repeat.
  func failIfRepeated() throws
  /// Leaves out the staged records of products deleted from the catalog, which an older file
  /// still has; when restoring, keeps them, and the deletion log forgets them.
  ///
  /// - Returns: How many were left out.
  func leaveOutDeleted(restoring: Bool) throws -> Int
  /// Writes the staged records that differ from the products of their identifiers.
  ///
  /// - Returns: How many products changed.
  func updateChanged() throws -> Int
  /// How many staged records the catalog has a product of.
  func countMatched() throws -> Int
  /// Removes the products no staged record has, logged as deleted at a generation.
  ///
  /// - Returns: How many went.
  func removeUnstaged(generation: Int) throws -> Int
  /// Gives the catalog a new identity, so that every search index is built again.
  func renewIdentity() throws
  /// The number of products.
  func productCount() throws -> Int
  /// Appends the staged records the catalog has no product of, in the file's order, after a
  /// position.
  ///
  /// - Parameters:
  ///   - position: The largest position now.
  ///   - rebuildingIndexes: Whether so many are new that the indexes are better built again
  ///     once than a row at a time.
  ///   - matched: How many staged records the catalog has.
  /// - Throws: What the engine throws; a repeated identifier fails the transaction.
  func appendNew(after position: Int, rebuildingIndexes: Bool, matched: Int) throws
  /// Counts the products again in every block from the one holding a position.
  func recountBlocks(from position: Int) throws
  /// Notes that the catalog was given its first products, and from what.
  func markSeeded(_ seeding: CatalogSeeding) throws
}

extension ImportTransaction {
  /// Merges staged records into the catalog: existing identifiers updated in place where they
  /// differ (an unchanged product keeps its generation, so no search index has anything to
  /// follow for it), new ones appended in the file's order; a replacing import removes what
  /// the file lacks, logged as deleted so that an older file does not bring it back.
  ///
  /// - Parameters:
  ///   - read: How many records were staged.
  ///   - generation: The import's generation.
  ///   - seeding: Whether the import seeds a new catalog, and from what.
  ///   - options: The import's policies.
  ///   - madeIdentifiers: The identifiers made for records that had none.
  /// - Returns: What was inserted, updated, left unchanged, left out and removed.
  /// - Throws: ``CatalogError``, or what a step throws; the engine then rolls back.
  func mergeStaged(
    read: Int, generation: Int, seeding: CatalogSeeding?, options: ImportOptions,
    madeIdentifiers: () -> [UUID]
  ) throws -> CatalogImportSummary {
    try prepareStaged()
    try matchByName(madeIdentifiers(), options.duplicates)
    try failIfRepeated()
    var summary = CatalogImportSummary()
    summary.skippedDeleted = try leaveOutDeleted(restoring: options.restoringDeleted)
    summary.updated = try updateChanged()
    let matched = try countMatched()
    summary.unchanged = matched - summary.updated
    summary.inserted = read - summary.skippedDeleted - matched
    var recountFrom: Int?
    if options.replacing {
      summary.removed = try removeUnstaged(generation: generation)
      if summary.removed > 0 {
        recountFrom = 1
        try renewIdentity()
      }
    }
    if summary.inserted > 0 {
      let existing = try nextPosition() - 1
      try appendNew(
        after: existing, rebuildingIndexes: summary.inserted > (try productCount()),
        matched: matched)
      recountFrom = min(recountFrom ?? (existing + 1), existing + 1)
    }
    if let recountFrom { try recountBlocks(from: recountFrom) }
    if let seeding { try markSeeded(seeding) }
    return summary
  }
}
