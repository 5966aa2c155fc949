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
