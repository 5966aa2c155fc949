/// How an import treats what the catalog already has.
package struct ImportOptions: Sendable, Hashable {
  /// What a record without an identifier does when the catalog has a product of its name.
  package enum DuplicateNames: String, Sendable, Hashable, CaseIterable {
    /// It updates the one product of that name; several products of the name, or several
    /// records of it, refuse the import. The default: importing a sheet again changes what
    /// the first import added instead of adding it twice.
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
  /// and one of their names. Under `update`, a record then takes the identifier of the one
  /// product of its name (`sharing = 1`).
  ///
  /// - Parameters:
  ///   - products: The catalog's table.
  ///   - staging: The table of the import's records.
  /// - Returns: The conditions, each with its error, and the SQL counting the catalog's products
  ///   of a staged record's name.
  func refusals(products: String, staging: String) -> (
    refusals: [(condition: String, error: (Int, String) -> CatalogError)], sharing: String
  ) {
    let sharing =
      "(SELECT count(*) FROM \(products) AS p WHERE p.folded_name = s.folded_name AND p.name = s.name)"
    switch self {
    case .allow:
      return ([], sharing)
    case .refuse:
      return ([("\(sharing) > 0", { .duplicateRecords(count: $0, example: $1) })], sharing)
    case .update:
      return (
        [
          ("\(sharing) > 1", { .ambiguousRecords(count: $0, example: $1) }),
          // Two records of one name would both update its product.
          (
            "\(sharing) = 1 AND (SELECT count(*) FROM \(staging) AS t WHERE t.folded_name = s.folded_name AND t.name = s.name) > 1",
            { .repeatedNames(count: $0, example: $1) }
          ),
        ], sharing
      )
    }
  }
}
