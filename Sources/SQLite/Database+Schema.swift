#if canImport(Glibc)
  import Glibc
#endif

/// One numbered step of a database's schema: what brings it from the version before to this
/// one. The database's version is SQLite's `PRAGMA user_version`.
package struct Migration: Sendable {
  /// The version the step brings the schema to.
  package var version: Int
  /// The statements of the step.
  package var sql: String

  /// Creates a step.
  ///
  /// - Parameters:
  ///   - version: The version it brings the schema to.
  ///   - sql: Its statements.
  package init(to version: Int, _ sql: String) {
    self.version = version
    self.sql = sql
  }
}

extension Database {
  /// The schema's version, `PRAGMA user_version`; 0 for a new file.
  package var schemaVersion: Int {
    get throws { try integer("PRAGMA user_version") ?? 0 }
  }

  /// Brings the schema to the newest version of its steps, in one write transaction: each step
  /// newer than the file runs in order, and the version is recorded after it. The version is
  /// read again inside the write lock, so that several processes opening the file at once run
  /// each step once.
  ///
  /// - Parameter migrations: The steps, in any order.
  /// - Returns: The version the file had.
  /// - Throws: ``SQLiteError``; the file is then as it was.
  @discardableResult
  package func migrate(_ migrations: [Migration]) throws -> Int {
    try writeTransaction {
      let found = try schemaVersion
      for step in migrations.sorted(by: { $0.version < $1.version }) where step.version > found {
        try execute(step.sql)
        try execute("PRAGMA user_version = \(step.version)")
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
