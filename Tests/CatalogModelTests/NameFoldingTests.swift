import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import PostgreSQL
import SQLite
import TestSupport
import Testing

/// Names folded as search folds them, on either engine, and folded again when a catalog of an
/// earlier version, which folded them otherwise, is opened for writing.
@Suite struct NameFoldingTests {
  /// Names whose folding changed, and what a user types for each.
  static let names = [
    ("Ĳssel Tulip", "ijssel tulip"), ("Straße Rose", "strasse rose"),
    ("Ⓐlpine Aster", "alpine aster"), ("Rose x²", "rose x2"), ("ǅemal Lily", "dzemal lily"),
    ("ﬁg Tree", "fig tree"), ("Crème Rose", "creme rose"),
  ]

  static var products: [Product] {
    names.enumerated().map { number, name in
      Product(
        identifier: UUID(), name: name.0, imageName: "Cherries", year: 2000,
        price: Price(cents: number + 1))
    }
  }

  /// The folding of the earlier versions: Foundation's, without compatibility forms.
  static func earlierFolding(_ name: String) -> String {
    name.folding(
      options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
  }

  func expectFound(in catalog: any CatalogSource, _ comment: Comment) {
    for (name, typed) in Self.names {
      #expect(
        catalog.products(foldedName: typed.folded, exact: true, limit: 2).map(\.name) == [name],
        comment)
      #expect(
        catalog.products(foldedName: name.folded, exact: true, limit: 2).map(\.name) == [name],
        comment)
    }
  }

  @Test func aSQLiteCatalogOfTheEarlierFoldingIsFoldedAgain() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/catalog.sqlite"
    try CatalogDatabase.create(at: path)
    _ = try CatalogDatabase(path: path).importProducts(Self.products)
    expectFound(in: try CatalogDatabase(path: path), "new")
    do {
      let database = try Database(path: path, mode: .readWrite)
      for (name, _) in Self.names {
        try database.run(
          "UPDATE products SET folded_name = ? WHERE name = ?", .text(Self.earlierFolding(name)),
          .text(name))
      }
      try database.execute("PRAGMA user_version = 5")
    }
    expectFound(in: try CatalogDatabase(path: path), "upgraded")
    let version = try Database(path: path, mode: .readOnly).integer("PRAGMA user_version")
    #expect(version == CatalogDatabase.schemaVersion)
  }

  @Test func aPostgreSQLCatalogOfTheEarlierFoldingIsFoldedAgain() throws {
    let server = try PostgresTestServer.shared
    let address = try PostgresAddress(server.socketURL(database: try server.makeDatabase()))
    _ = try PostgresCatalog(address: address).importProducts(Self.products)
    expectFound(in: try PostgresCatalog(address: address), "new")
    let connection = try PostgresConnection(address, applicationName: "test")
    for (name, _) in Self.names {
      try connection.execute(
        "UPDATE catalog.products SET folded_name = $1 WHERE name = $2",
        [Self.earlierFolding(name), name])
    }
    try connection.execute("UPDATE catalog.info SET value = 3 WHERE key = 'schema_version'")
    expectFound(in: try PostgresCatalog(address: address), "upgraded")
  }
}
