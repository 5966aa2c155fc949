import CatalogModel
import PostgreSQL
import SystemSupport

extension PostgresCatalog {
  /// The schema version this program reads and writes (the `schema_version` row of `info`).
  package static var schemaVersion: Int { migrator(schema: "catalog").newestVersion }

  /// The session setting by which this program's own writes are told from other programs'.
  static let writerSetting = (name: "catalog.writer", value: "catalog")

  /// The session setting by which a write that keeps the count and the ends of the positions
  /// in `info` (since schema version 8) is told from an earlier version's, which changes the block
  /// counts without them.
  static let keptCountsSetting = (name: "catalog.counts", value: "kept")

  /// The settings of this program's sessions: its writes are told from others'
  /// (``writerSetting``, ``keptCountsSetting``), and no statement is compiled to machine code
  /// (PostgreSQL's JIT). Every statement here reads or writes a few rows, or streams a table in
  /// order: at millions of products the planner's estimates of the few-row reads pass the
  /// compiling threshold, and compiling them takes longer than running them.
  package static let sessionSettings = [
    writerSetting, keptCountsSetting, (name: "jit", value: "off"),
  ]

  /// The channel a handoff is announced on (`NOTIFY`), with its number.
  var handoffChannel: String { "catalog_handoffs_" + schema }

  /// A catalog's schema, each step what an earlier version lacked; a new catalog takes them all.
  ///
  /// - Parameter schema: The PostgreSQL schema holding the catalog's tables.
  /// - Returns: Its migrations.
  static func migrator(schema: String) -> DatabaseMigrator<PostgresConnection> {
    var migrator = DatabaseMigrator<PostgresConnection>()
    migrator.registerMigration("create products") { try $0.run(versionOne(schema)) }
    // Activities handed off between machines (Handoff), each kept a week.
    migrator.registerMigration("keep handoffs") {
      try $0.run(
        """
        CREATE TABLE \(schema).handoffs(
          id bigserial PRIMARY KEY, machine text NOT NULL, user_name text NOT NULL,
          activity text NOT NULL, published timestamptz NOT NULL DEFAULT now());
        CREATE INDEX handoffs_user ON \(schema).handoffs(user_name, id);
        """)
    }
    migrator.registerMigration("note other programs' changes") {
      try $0.run(versionThree(schema))
    }
    migrator.registerMigration("fold names as search does") {
      try refoldNames(in: schema, on: $0)
    }
    // The machine that last edited a row, which another machine's conflict names.
    migrator.registerMigration("note the machine of each edit") {
      try $0.run("ALTER TABLE \(schema).products ADD COLUMN IF NOT EXISTS changed_by text")
    }
    // The counts of products by groups of blocks (``ListNumbering``): finding a list number
    // sums about as many rows at ten million products as at a hundred thousand. Another
    // program's change to them is noted as one to the blocks is.
    migrator.registerMigration("count groups of blocks") {
      try $0.run(
        """
        CREATE TABLE IF NOT EXISTS \(schema).block_groups(grp bigint PRIMARY KEY, live bigint NOT NULL);
        DELETE FROM \(schema).block_groups;
        INSERT INTO \(schema).block_groups \(ListNumbering.groupCounts(of: "\(schema).blocks", from: "0"));
        DROP TRIGGER IF EXISTS block_groups_changed_elsewhere ON \(schema).block_groups;
        CREATE TRIGGER block_groups_changed_elsewhere
          AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(schema).block_groups
          FOR EACH STATEMENT EXECUTE FUNCTION \(schema).note_foreign_change();
        """)
    }
    // The writer is told in each trigger's `WHEN`, which the executor evaluates itself: a
    // session of this program never calls the function, so it never loads PL/pgSQL and
    // compiles the function — which every new process's first write waited for.
    migrator.registerMigration("tell this program's writes before the trigger function") {
      try $0.run(foreignChangeTriggers(schema))
    }
    // The number of products and the ends of their positions, kept in `info` as each write
    // changes them (as the SQLite file keeps its count): the state is then one table's rows,
    // which a new session's server plans and reads at once, where a sum of the groups and the
    // ends of the positions' index cost it more than the product the command reads.
    migrator.registerMigration("keep the count and the ends of the positions") {
      try $0.run(countedAgain(schema))
    }
    // A process of an earlier version still running changes the group counts without the kept
    // ones: its change is counted as another program's, and the next read counts everything
    // again. Counted again here once the trigger is made, which waits for such a write under
    // way: one that committed meanwhile is counted.
    migrator.registerMigration("count again after an earlier version's change") {
      try $0.run(
        """
        CREATE OR REPLACE FUNCTION \(schema).note_change_without_kept_counts() RETURNS trigger
          LANGUAGE plpgsql AS $$
        BEGIN
          UPDATE \(schema).info SET value = value + 1 WHERE key = 'foreign_changes';
          RETURN NULL;
        END $$;
        DROP TRIGGER IF EXISTS block_groups_counted_without_kept_counts ON \(schema).block_groups;
        CREATE TRIGGER block_groups_counted_without_kept_counts
          AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(schema).block_groups
          FOR EACH STATEMENT
          WHEN (current_setting('\(keptCountsSetting.name)', true) IS DISTINCT FROM '\(keptCountsSetting.value)')
          EXECUTE FUNCTION \(schema).note_change_without_kept_counts();
        \(countedAgain(schema))
        """)
    }
    return migrator
  }

  /// The SQL that sets the kept count and ends of the positions (`info`'s `count`,
  /// `first_position` and `last_position`, added where missing) from the group counts and the
  /// positions' index: after the blocks were counted again.
  ///
  /// - Parameter schema: The schema holding the catalog's tables.
  /// - Returns: One statement.
  static func countedAgain(_ schema: String) -> String {
    """
    INSERT INTO \(schema).info VALUES
        ('count', (SELECT coalesce(sum(live), 0) FROM \(schema).block_groups)),
        ('first_position', (SELECT coalesce(min(position), 1) FROM \(schema).products)),
        ('last_position', (SELECT coalesce(max(position), 0) FROM \(schema).products))
      ON CONFLICT (key) DO UPDATE SET value = excluded.value;
    """
  }

  /// The triggers that count another program's changes to the products and the block counts
  /// (``versionThree(_:)``), called only for a session without ``writerSetting``.
  private static func foreignChangeTriggers(_ schema: String) -> String {
    ["products", "blocks", "block_groups"].map { table in
      """
      DROP TRIGGER IF EXISTS \(table)_changed_elsewhere ON \(schema).\(table);
      CREATE TRIGGER \(table)_changed_elsewhere
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(schema).\(table)
        FOR EACH STATEMENT
        WHEN (current_setting('\(writerSetting.name)', true) IS DISTINCT FROM '\(writerSetting.value)')
        EXECUTE FUNCTION \(schema).note_foreign_change();
      """
    }.joined(separator: "\n")
  }

  /// The schema's tables. `folded_name` sorts by code point (`COLLATE "C"`), as SQLite's, so
  /// that prefix ranges mean the same on both engines.
  private static func versionOne(_ schema: String) -> String {
    """
    CREATE TABLE \(schema).info(key text PRIMARY KEY, value bigint NOT NULL);
    INSERT INTO \(schema).info VALUES ('schema_version', 0), ('generation', 0), ('seeded', 0),
      ('identity', \(Int64.random(in: 1...Int64.max)));
    CREATE TABLE \(schema).products(
      identifier text PRIMARY KEY,
      position bigint NOT NULL UNIQUE,
      name text NOT NULL,
      folded_name text COLLATE "C" NOT NULL,
      image_name text NOT NULL,
      year bigint NOT NULL,
      price_cents bigint NOT NULL CHECK (price_cents BETWEEN 0 AND 100000000),
      keywords text NOT NULL,
      changed bigint NOT NULL,
      image_directory text);
    \(secondaryIndexes(schema))
    CREATE TABLE \(schema).blocks(block bigint PRIMARY KEY, live bigint NOT NULL);
    CREATE TABLE \(schema).deletions(
      id bigserial PRIMARY KEY, generation bigint NOT NULL, position bigint NOT NULL,
      identifier text);
    CREATE INDEX deletions_generation ON \(schema).deletions(generation);
    CREATE INDEX deletions_identifier ON \(schema).deletions(identifier)
      WHERE identifier IS NOT NULL;
    """
  }

  /// The indexes besides the keys: by folded name, by year, and by the generation that last
  /// changed a row.
  static func secondaryIndexes(_ schema: String) -> String {
    """
    CREATE INDEX products_folded_name ON \(schema).products(folded_name);
    CREATE INDEX products_year ON \(schema).products(year, position);
    CREATE INDEX products_changed ON \(schema).products(changed);
    """
  }

  /// `commits`, where earlier versions of this program, which may share the server, note an
  /// identifier of each write transaction (kept a week), by which a write whose `COMMIT` reply
  /// was lost is found to have committed or not (this version asks the server, `txid_status`);
  /// and a change to the products or the block counts made by another
  /// program (any session without ``writerSetting``) is counted in `foreign_changes`, by
  /// statement-level triggers (since told from this program's writes before the function is
  /// called: ``foreignChangeTriggers(_:)``); the next read of the state counts the blocks again
  /// (``repairedIfChangedElsewhere(_:)``).
  /// Counted once on upgrade, for what other programs did before.
  private static func versionThree(_ schema: String) -> String {
    """
    INSERT INTO \(schema).info VALUES ('foreign_changes', 1) ON CONFLICT (key) DO NOTHING;
    CREATE FUNCTION \(schema).note_foreign_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('\(writerSetting.name)', true) IS DISTINCT FROM '\(writerSetting.value)' THEN
        UPDATE \(schema).info SET value = value + 1 WHERE key = 'foreign_changes';
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER products_changed_elsewhere
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(schema).products
      FOR EACH STATEMENT EXECUTE FUNCTION \(schema).note_foreign_change();
    CREATE TRIGGER blocks_changed_elsewhere
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(schema).blocks
      FOR EACH STATEMENT EXECUTE FUNCTION \(schema).note_foreign_change();
    CREATE TABLE \(schema).commits(id uuid PRIMARY KEY, at timestamptz NOT NULL DEFAULT now());
    CREATE INDEX commits_at ON \(schema).commits(at);
    """
  }

  /// Names folded as search folds them (compatibility forms too: `Ĳ` is `ij`), by the
  /// program's own folding; only a name beyond printable ASCII can fold otherwise than before,
  /// and only one that does is written.
  private static func refoldNames(in schema: String, on connection: PostgresConnection) throws {
    // A page of names at a time, by identifier: however large the catalog, not all at once.
    var after = ""
    while true {
      let names = try connection.execute(
        """
        SELECT identifier, name, folded_name FROM \(schema).products
        WHERE name ~ '[^ -~]' AND identifier > $1 ORDER BY identifier LIMIT 10000
        """, [after])
      for row in 0..<names.count {
        guard let identifier = names.text(row, 0), let name = names.text(row, 1) else { continue }
        after = identifier
        guard name.folded != names.text(row, 2) else { continue }
        try connection.execute(
          "UPDATE \(schema).products SET folded_name = $1 WHERE identifier = $2",
          [name.folded, identifier])
      }
      guard names.count == 10000 else { return }
    }
  }

  /// Creates or upgrades the schema, once, under a lock every process of every machine takes.
  func migrate(on connection: PostgresConnection) throws {
    let found = try existingVersion(on: connection)
    if found > Self.schemaVersion {
      throw CatalogError.newerSchema(found: found, supported: Self.schemaVersion)
    }
    guard found < Self.schemaVersion else { return }
    try connection.transaction {
      try connection.execute(
        "SELECT pg_advisory_xact_lock(hashtext($1))", ["catalog schema " + schema])
      // Another process may have made it while this one waited.
      let now = try existingVersion(on: connection)
      if now > Self.schemaVersion {
        throw CatalogError.newerSchema(found: now, supported: Self.schemaVersion)
      }
      if now == 0 { try connection.run("CREATE SCHEMA IF NOT EXISTS \(schema)") }
      try Self.migrator(schema: schema).migrate(connection, from: now) { version in
        try connection.execute(
          "UPDATE \(schema).info SET value = $1 WHERE key = 'schema_version'", [String(version)])
      }
    }
  }

  /// The schema version in the database; 0 when there is no catalog yet.
  ///
  /// Whether the catalog exists is read from the system catalogs as of this statement, not
  /// through the session's cache of names (`to_regclass`): in the migration's transaction,
  /// after waiting for another process that made the catalog, the cache may still say what it
  /// found before, as the server reads the invalidations it was sent only as a transaction
  /// starts or a table is locked.
  private func existingVersion(on connection: PostgresConnection) throws -> Int {
    let exists = try connection.execute(
      """
      SELECT EXISTS (SELECT FROM pg_catalog.pg_class c
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = 'info')
      """, [schema])
    guard exists.text(0, 0) == "t" else { return 0 }
    return try connection.execute(
      "SELECT value FROM \(schema).info WHERE key = 'schema_version'"
    ).integer ?? 0
  }
}
