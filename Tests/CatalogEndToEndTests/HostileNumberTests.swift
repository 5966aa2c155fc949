import Foundation
import PostgreSQL
import SQLite
import TestSupport
import Testing

/// Every integer the catalog keeps, set by another program to a value the app never writes,
/// then every kind of command: the app may refuse the catalog as damaged or show the number,
/// but no arithmetic on a number it read may trap (SIGILL), on either engine.
@Suite(.serialized) struct HostileNumberTests {
  /// A change to one integer of the catalog, as SQL for each engine (`$VALUE` stands for the
  /// number).
  struct Change: Sendable, CustomTestStringConvertible {
    var sqlite: String
    var postgres: String
    var testDescription: String { sqlite }
  }

  static let changes: [Change] = [
    Change(
      sqlite: "UPDATE products SET position = $VALUE WHERE position = 5",
      postgres: "UPDATE catalog.products SET position = $VALUE WHERE position = 5"),
    Change(
      sqlite: "UPDATE products SET year = $VALUE WHERE position = 9",
      postgres: "UPDATE catalog.products SET year = $VALUE WHERE position = 9"),
    Change(
      sqlite: "UPDATE products SET price_cents = $VALUE WHERE position = 9",
      postgres:
        "ALTER TABLE catalog.products DROP CONSTRAINT IF EXISTS products_price_cents_check; UPDATE catalog.products SET price_cents = $VALUE WHERE position = 9"
    ),
    Change(
      sqlite: "UPDATE products SET changed = $VALUE WHERE position = 2",
      postgres: "UPDATE catalog.products SET changed = $VALUE WHERE position = 2"),
    Change(
      sqlite: "UPDATE catalog_info SET value = $VALUE WHERE key = 'generation'",
      postgres: "UPDATE catalog.info SET value = $VALUE WHERE key = 'generation'"),
    Change(
      sqlite: "UPDATE catalog_info SET value = $VALUE WHERE key = 'count'",
      postgres: "UPDATE catalog.info SET value = $VALUE WHERE key = 'seeded'"),
    Change(
      sqlite: "UPDATE block_groups SET live = $VALUE WHERE grp = 0",
      postgres: "UPDATE catalog.info SET value = $VALUE WHERE key = 'count'"),
    Change(
      sqlite: "UPDATE products SET position = $VALUE WHERE position = 1",
      postgres: "UPDATE catalog.info SET value = $VALUE WHERE key = 'last_position'"),
    Change(
      sqlite: "UPDATE products SET position = $VALUE WHERE position = 12",
      postgres: "UPDATE catalog.info SET value = $VALUE WHERE key = 'first_position'"),
    Change(
      sqlite: "UPDATE catalog_info SET value = $VALUE WHERE key = 'identity'",
      postgres: "UPDATE catalog.info SET value = $VALUE WHERE key = 'schema_version'"),
    Change(
      sqlite: "UPDATE blocks SET live = $VALUE WHERE block = 0",
      postgres: "UPDATE catalog.blocks SET live = $VALUE WHERE block = 0"),
    Change(
      sqlite: "UPDATE blocks SET block = $VALUE WHERE block = 0",
      postgres: "UPDATE catalog.blocks SET block = $VALUE WHERE block = 0"),
    Change(
      sqlite: "INSERT INTO deletions(generation, position) VALUES ($VALUE, $VALUE)",
      postgres:
        "INSERT INTO catalog.deletions(generation, position) VALUES ($VALUE, $VALUE)"),
  ]

  static let values: [Int64] = [-1, .min, .max, 1 << 62]

  static let cases: [(CatalogEngine, Change)] = CatalogEngine.allCases.flatMap { engine in
    changes.map { (engine, $0) }
  }

  /// Whether a run ended by itself, not by a signal such as SIGILL (a trapped overflow).
  private func endedNormally(_ result: CatalogSandbox.Result) -> Bool {
    result.status == 0 || result.status == 1
  }

  @Test(arguments: cases)
  func noNumberTheCatalogHoldsMakesACommandTrap(_ engine: CatalogEngine, _ change: Change)
    throws
  {
    for value in Self.values {
      let sandbox = try CatalogSandbox(engine)
      #expect(try sandbox.run(["list"]).status == 0)
      let sql = (engine == .sqlite ? change.sqlite : change.postgres)
        .replacingOccurrences(of: "$VALUE", with: String(value))
      try sandbox.executeInCatalog(sql)
      let runs: [CatalogSandbox.Result] = [
        try sandbox.run(
          input:
            "list\nlist 2\nselect 1\nselect 5\nyear 2015\nsearch rose\nselect cher\nedit\nprice 1.00\ndone\nadd Foo\nlist --all\nactivities\n"
        ),
        try sandbox.run(["search", "rose"]),
        try sandbox.run(["export"]),
        try sandbox.run(["export", "--format", "csv"]),
        try sandbox.run(["reindex"]),
        try sandbox.run(["state", "--json"]),
      ]
      for result in runs {
        #expect(
          endedNormally(result), "\(value): status \(result.status): \(result.errors.suffix(600))")
      }
    }
  }
}

extension CatalogSandbox {
  /// Runs SQL in the sandbox's catalog behind the app's back, as another program might:
  /// SQLite's CHECK constraints are not enforced, so that any number can be written.
  func executeInCatalog(_ sql: String) throws {
    if let catalogURL {
      let connection = try PostgresConnection(
        PostgresAddress(catalogURL), applicationName: "catalog-tests")
      try connection.run(sql)
      return
    }
    let database = try Database(path: databasePath, mode: .readWrite)
    try database.execute("PRAGMA ignore_check_constraints = ON")
    try database.execute(sql)
  }
}
