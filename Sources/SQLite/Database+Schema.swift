import SystemSupport

#if canImport(Glibc)
  import Glibc
#endif

extension Database {
  /// The schema's version, `PRAGMA user_version`; 0 for a new file.
  package var schemaVersion: Int {
    get throws { try integer("PRAGMA user_version") ?? 0 }
  }

  /// Brings the schema to the newest version of a migrator, in one write transaction, the
  /// version recorded as `PRAGMA user_version`. The version is read inside the write lock, so
  /// that several processes opening the file at once apply each migration once.
  ///
  /// - Parameter migrator: The schema's migrations.
  /// - Returns: The version the file had.
  /// - Throws: ``SQLiteError``, or what a migration throws; the file is then as it was.
  @discardableResult
  package func migrate(with migrator: DatabaseMigrator<Database>) throws -> Int {
    try writeTransaction {
      let found = try schemaVersion
      try migrator.migrate(self, from: found) { version in
        try execute("PRAGMA user_version = \(version)")
      }
      return found
    }
  }

  /// Puts the database in write-ahead-log mode, waiting while another connection holds the
  /// file (a process creating it at the same time, say) for up to five seconds.
  ///
  /// - Throws: ``SQLiteError`` when it cannot.
  package func enableWriteAheadLog() throws {
    var attempts = 0
    while true {
      do {
        try execute("PRAGMA journal_mode = WAL")
        return
      } catch let error as SQLiteError where error.isBusy && attempts < 500 {
        attempts += 1
        usleep(10_000)
      }
    }
  }
}
