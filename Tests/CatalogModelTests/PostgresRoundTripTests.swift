import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import PostgreSQL
import TestSupport
import Testing

/// What a command costs on a server is mostly its round trips: counted here, not timed.
@Suite struct PostgresRoundTripTests {
  private func catalogOnNewDatabase(products: [Product]) throws -> PostgresAddress {
    let server = try PostgresTestServer.shared
    let address = try PostgresAddress(server.socketURL(database: try server.makeDatabase()))
    _ = try PostgresCatalog(address: address).importProducts(products)
    return address
  }

  /// A catalog made before opens with one request after connecting: its state and schema
  /// version together, the session's settings made as it started.
  @Test func openingACatalogTakesOneRequest() throws {
    let address = try catalogOnNewDatabase(products: (1...20).map { numberedProduct($0) })
    let catalog = try PostgresCatalog(address: address)
    #expect(catalog.roundTrips == 2)
    #expect(catalog.count == 20)
  }

  /// What was read at the generation the last refresh found is not asked again; a change
  /// (here another connection's) is seen at the next refresh.
  @Test func aProductReadAtAGenerationIsReadOnce() throws {
    let products = (1...20).map { numberedProduct($0) }
    let address = try catalogOnNewDatabase(products: products)
    let catalog = try PostgresCatalog(address: address)
    let before = catalog.roundTrips
    #expect(catalog.product(identifier: products[4].identifier) == products[4])
    #expect(catalog.product(identifier: products[4].identifier) == products[4])
    #expect(catalog.product(number: 5) == products[4])
    #expect(catalog.product(number: 5) == products[4])
    #expect(catalog.number(of: products[4].identifier) == 5)
    #expect(catalog.roundTrips == before + 2)
    let other = try PostgresCatalog(address: address)
    try other.apply([.delete(products[0].identifier, name: products[0].name)])
    #expect(try catalog.refresh())
    #expect(catalog.product(number: 5) == products[5])
    #expect(catalog.number(of: products[4].identifier) == 4)
  }
}
