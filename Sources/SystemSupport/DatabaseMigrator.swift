/// A database's schema as an ordered list of named migrations, each what brings the schema
/// from the one before: the shape every database of the package takes, SQLite file or
/// PostgreSQL schema. A migration's version is its place in the list, from 1; the database
/// records the version of the last one applied, and a database of version 0 is a new one,
/// which takes them all.
///
/// The engine runs ``migrate(_:from:recording:)`` inside its own write transaction, under its
/// own lock, after reading the version there: several processes opening one database at once
/// apply each migration once.
///
/// ```swift
/// var migrator = DatabaseMigrator<Database>()
/// migrator.registerMigration("create activities") { try $0.execute(schema) }
/// migrator.registerMigration("number changes") { try $0.execute(changeNumbers) }
/// ```
package struct DatabaseMigrator<Connection>: Sendable {
  /// One step of the schema.
  package struct Migration: Sendable {
    /// What it does, for people reading the list.
    package let name: String
    /// The schema version it brings the database to.
    package let version: Int
    /// Applies it.
    package let migrate: @Sendable (Connection) throws -> Void
  }

  /// The migrations, in order.
  package private(set) var migrations: [Migration] = []

  /// Creates an empty list.
  package init() {}

  /// The version the last migration brings a database to: the version this program writes.
  package var newestVersion: Int { migrations.count }

  /// Adds a migration after the others.
  ///
  /// - Parameters:
  ///   - name: What it does; unique in the list.
  ///   - migrate: Applies it, on a connection inside the migrating transaction.
  package mutating func registerMigration(
    _ name: String, migrate: @escaping @Sendable (Connection) throws -> Void
  ) {
    migrations.append(Migration(name: name, version: migrations.count + 1, migrate: migrate))
  }

  /// Applies the migrations newer than a database's version, in order, recording the version
  /// after each.
  ///
  /// - Parameters:
  ///   - connection: The database, inside a write transaction.
  ///   - version: The version it records; 0 for a new one.
  ///   - recording: Records a version in the database.
  /// - Throws: What a migration or the recording throws; the transaction is then to be rolled
  ///   back.
  package func migrate(
    _ connection: Connection, from version: Int, recording: (Int) throws -> Void
  ) throws {
    for migration in migrations where migration.version > version {
      try migration.migrate(connection)
      try recording(migration.version)
    }
  }
}
