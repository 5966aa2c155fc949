import CatalogModel
import SQLite
import SystemSupport

extension CatalogDatabase {
  /// The schema version this program reads and writes (`PRAGMA user_version`); what is
  /// missing is added when an older database is opened for writing.
  package static let schemaVersion = migrator.newestVersion

  /// The catalog's schema, each step what an earlier version lacked; a new file takes them all.
  static let migrator: DatabaseMigrator<Database> = {
    var migrator = DatabaseMigrator<Database>()
    migrator.registerMigration("create products") { try $0.execute(versionOne) }
    // A deletion log (the position each had, and the generation that removed it), an index
    // of rows by the generation that last changed them, and a random identity, so that a
    // search index built from the catalog can follow its changes.
    migrator.registerMigration("log deletions") {
      try $0.execute(
        """
        CREATE TABLE deletions(generation INTEGER NOT NULL, position INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS products_changed ON products(changed);
        INSERT INTO catalog_info VALUES ('identity', \(Int64.random(in: 1...Int64.max)));
        """)
    }
    // The directory a relative image path is relative to.
    migrator.registerMigration("add image directories") {
      try $0.execute("ALTER TABLE products ADD COLUMN image_directory TEXT")
    }
    // The counts of products by blocks of positions that make a deletion renumber nothing
    // (``ListNumbering``), and the identifiers of deleted products.
    migrator.registerMigration("count blocks") {
      try $0.execute(
        """
        CREATE TABLE blocks(block INTEGER PRIMARY KEY, live INTEGER NOT NULL);
        INSERT INTO blocks SELECT \(ListNumbering.block(of: "position")), count(*) FROM products GROUP BY 1;
        ALTER TABLE deletions ADD COLUMN identifier TEXT;
        CREATE INDEX deletions_identifier ON deletions(identifier) WHERE identifier IS NOT NULL;
        DROP INDEX products_position;
        CREATE UNIQUE INDEX products_position ON products(position);
        """)
    }
    // The number of products, kept in `catalog_info` by every change of the block counts, so
    // that a launch reads one row rather than sums every block.
    migrator.registerMigration("keep the count") {
      try $0.execute(
        "INSERT INTO catalog_info VALUES ('count', (SELECT coalesce(sum(live), 0) FROM blocks))")
    }
    // Names folded as search folds them (compatibility forms too: `Ĳ` is `ij`), by the
    // program's own folding (``foldFunction``, defined on the connection that migrates); only a
    // name beyond printable ASCII can fold otherwise than before.
    migrator.registerMigration("fold names as search does") {
      try $0.execute(
        """
        UPDATE products SET folded_name = \(foldFunction)(name)
          WHERE name GLOB '*[^ -~]*' AND folded_name IS NOT \(foldFunction)(name)
        """)
    }
    // The counts of products by groups of blocks (``ListNumbering``), so that finding a list
    // number reads about as much at ten million products as at a hundred thousand.
    migrator.registerMigration("count groups of blocks") {
      try $0.execute(
        """
        CREATE TABLE IF NOT EXISTS block_groups(grp INTEGER PRIMARY KEY, live INTEGER NOT NULL);
        DELETE FROM block_groups;
        INSERT INTO block_groups \(ListNumbering.groupCounts(from: "0"));
        """)
    }
    return migrator
  }()

  /// Brings a database to this program's schema, in one write transaction.
  static func migrate(_ database: Database) throws {
    try database.defineFunction(foldFunction) { $0.folded }
    try database.migrate(with: migrator)
  }

  /// The SQL function a migration folds names with.
  static let foldFunction = "catalog_fold"

  /// The first version: the products and the catalog's information.
  private static let versionOne = """
    CREATE TABLE products(
      identifier TEXT NOT NULL,
      position INTEGER NOT NULL,
      name TEXT NOT NULL,
      folded_name TEXT NOT NULL,
      image_name TEXT NOT NULL,
      year INTEGER NOT NULL,
      price_cents INTEGER NOT NULL CHECK (price_cents BETWEEN 0 AND 100000000),
      keywords TEXT NOT NULL,
      changed INTEGER NOT NULL
    );
    \(createIndexes)
    CREATE TABLE catalog_info(key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
    INSERT INTO catalog_info VALUES ('generation', 0), ('seeded', 0), ('migrated', 0);
    """
}
