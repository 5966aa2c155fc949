import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import PostgreSQL
import TestSupport
import Testing

/// An import stopped by its progress callback (Ctrl-C, in the app) leaves the catalog as it was,
/// whether it stops between records, inside SQLite's statements, or after PostgreSQL's merge
/// and before its commit — on either engine.
@Suite struct ImportStoppingTests {
  private struct Stop: Error {}

  private func products(_ range: ClosedRange<Int>) -> [Product] {
    range.map { numberedProduct($0, year: 2000 + $0 % 20) }
  }

  /// A new, empty catalog of an engine; the directory keeps a SQLite one.
  private func emptyCatalog(_ engine: String, in temporary: TemporaryDirectory) throws
    -> any CatalogStorage
  {
    if engine == "postgres" {
      let server = try PostgresTestServer.shared
      return try PostgresCatalog(
        address: PostgresAddress(server.socketURL(database: try server.makeDatabase())))
    }
    let path = temporary.path + "/catalog.sqlite"
    try CatalogDatabase.create(at: path)
    return try CatalogDatabase(path: path)
  }

  @Test(arguments: ["sqlite", "postgres"], [1, 2])
  func aStoppedImportChangesNothing(engine: String, savingCall: Int) throws {
    let temporary = TemporaryDirectory()
    let database = try emptyCatalog(engine, in: temporary)
    let first = products(1...100)
    _ = try database.importProducts(first)
    let generation = database.generation
    var savingCalls = 0
    #expect(throws: Stop.self) {
      try database.importProducts(
        products(101...60_100), seeding: nil, options: .init(), madeIdentifiers: { [] },
        progress: { stage in
          guard case .saving = stage else { return }
          savingCalls += 1
          if savingCalls == savingCall { throw Stop() }
        })
    }
    // The second call comes from SQLite, in the middle of merging the records; from PostgreSQL,
    // once the merge is done and before the commit.
    #expect(savingCalls == savingCall)
    #expect(database.count == 100)
    #expect(database.generation == generation)
    #expect(database.products(numbers: 1...100).map(\.product) == first)
    try (database as? CatalogDatabase)?.verify()
    let summary = try database.importProducts(products(101...200))
    #expect(summary.inserted == 100)
  }
}
