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
/// engine writes these steps and its connection, nothing else.
///
/// Each step runs inside the transaction the engine opened with its write lock taken.
protocol CatalogTransaction {
  /// Takes the catalog's next generation, the one this transaction's changes are recorded at;
  /// writers of every process follow one another by it.
  func nextGeneration() throws -> Int
  /// A product as saved now, kept from other writers until the transaction ends; nil when the
  /// catalog has none with the identifier (or its row breaks the editor's rules).
  func lockedProduct(_ identifier: UUID) throws -> Product?
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
  /// Applies changes: each edit to its product as saved now, so that what other processes
  /// saved meanwhile is kept and a field both changed is a conflict; a new product after the
  /// last; a deletion logged and counted, renumbering nothing.
  ///
  /// - Parameter changes: The changes, in order.
  /// - Throws: ``CatalogError`` (a conflict, a product another process removed or added), or
  ///   what a step throws; the engine then rolls the transaction back.
  func apply(_ changes: [CatalogChange]) throws {
    let generation = try nextGeneration()
    for change in changes {
      switch change {
      case .edit(let edit):
        guard let current = try lockedProduct(edit.identifier) else {
          throw CatalogError.productRemoved(name: edit.edited.name)
        }
        let product = try edit.applied(to: current)
        try update(
          product.identifier, setting: product.changedColumns(from: current, generation: generation)
        )
      case .insert(let product):
        guard try !contains(product.identifier) else {
          throw CatalogError.alreadyInCatalog(name: product.name)
        }
        let position = try nextPosition()
        try insert(product, position: position, generation: generation)
        try countAdded(at: position)
      case .delete(let identifier, let name):
        guard let position = try lockedPosition(of: identifier),
          let number = try number(ofPosition: position)
        else { throw CatalogError.productRemoved(name: name) }
        try deleteRow(identifier)
        try logDeletion(number: number, identifier: identifier, generation: generation)
        try countRemoved(at: position)
      }
    }
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
