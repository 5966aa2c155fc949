import CatalogModel

/// How an import treats what the catalog already has.
package struct ImportOptions: Sendable, Hashable {
  /// What a record without an identifier does when the catalog has a product of its name.
  package enum DuplicateNames: String, Sendable, Hashable, CaseIterable {
    /// It updates the product of that name; records that share a name update as many
    /// products of that name, in order (the first record the first product in the list), and
    /// a different number of records and products refuses the import. The default: importing
    /// a sheet again changes what the first import added instead of adding it twice.
    case update
    /// It is added as a new product.
    case allow
    /// It refuses the import, counting such records.
    case refuse
  }

  /// Whether the file becomes the catalog: products it lacks are removed.
  package var replacing: Bool
  /// What a record without an identifier does when the catalog has a product of its name.
  package var duplicates: DuplicateNames
  /// Whether records of products deleted from the catalog bring them back; otherwise they are
  /// left out and counted.
  package var restoringDeleted: Bool

  /// Options for an import.
  ///
  /// - Parameters:
  ///   - replacing: Whether the file becomes the catalog.
  ///   - duplicates: What a record without an identifier does when its name is taken.
  ///   - restoringDeleted: Whether deleted products come back.
  package init(
    replacing: Bool = false, duplicates: DuplicateNames = .update, restoringDeleted: Bool = false
  ) {
    self.replacing = replacing
    self.duplicates = duplicates
    self.restoringDeleted = restoringDeleted
  }
}

extension ImportOptions.DuplicateNames {
  /// What refuses an import under this policy, for either engine: each a condition on a staged
  /// record `s` without an identifier, in SQL, and the error naming how many records meet it
  /// and one of their names. Under `update`, the records of a name the catalog has must be as
  /// many as its products of that name (``matching(products:staging:order:unidentified:)``).
  ///
  /// - Parameters:
  ///   - products: The catalog's table.
  ///   - staging: The table of the import's records.
  /// - Returns: The conditions, each with its error.
  func refusals(products: String, staging: String) -> [(
    condition: String, error: (Int, String) -> CatalogError
  )] {
    let sharing =
      "(SELECT count(*) FROM \(products) AS p WHERE p.folded_name = s.folded_name AND p.name = s.name)"
    let records =
      "(SELECT count(*) FROM \(staging) AS t WHERE t.folded_name = s.folded_name AND t.name = s.name)"
    switch self {
    case .allow:
      return []
    case .refuse:
      return [("\(sharing) > 0", { .duplicateRecords(count: $0, example: $1) })]
    case .update:
      return [
        // Fewer records than products of the name: which would they update?
        ("\(sharing) > \(records)", { .ambiguousRecords(count: $0, example: $1) }),
        // More: the rest would update the same products again.
        ("\(sharing) > 0 AND \(records) > \(sharing)", { .repeatedNames(count: $0, example: $1) }),
      ]
    }
  }

  /// Under `update`, the statement that gives each staged record without an identifier whose
  /// name the catalog has the identifier of its product: the k-th record of a name in the file
  /// takes the k-th product of that name in the list, so that a sheet imported again updates
  /// what it added the first time, one product for each record.
  ///
  /// - Parameters:
  ///   - products: The catalog's table.
  ///   - staging: The table of the import's records.
  ///   - order: The staging table's column of the records' order in the file.
  ///   - unidentified: The condition on `s` that it came without an identifier.
  /// - Returns: The SQL.
  static func matching(products: String, staging: String, order: String, unidentified: String)
    -> String
  {
    """
    UPDATE \(staging) AS s SET identifier = (SELECT p.identifier FROM \(products) AS p \
    WHERE p.folded_name = s.folded_name AND p.name = s.name \
    AND (SELECT count(*) FROM \(products) AS q WHERE q.folded_name = p.folded_name \
    AND q.name = p.name AND q.position < p.position) \
    = (SELECT count(*) FROM \(staging) AS t WHERE t.folded_name = s.folded_name \
    AND t.name = s.name AND t.\(order) < s.\(order))) \
    WHERE \(unidentified) AND EXISTS (SELECT 1 FROM \(products) AS p \
    WHERE p.folded_name = s.folded_name AND p.name = s.name)
    """
  }
}
