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

  /// Products asked for as the catalog opens come in its request, read at the generation of
  /// its state: reading them then asks nothing; one not in the catalog is asked.
  @Test func productsReadAheadComeWithTheState() throws {
    let products = (1...20).map { numberedProduct($0) }
    let address = try catalogOnNewDatabase(products: products)
    let absent = numberedProduct(21)
    let catalog = try PostgresCatalog(
      address: address,
      readingAhead: CatalogReadAhead(
        products: [products[2].identifier, products[17].identifier, absent.identifier]))
    #expect(catalog.roundTrips == 2)
    #expect(catalog.product(identifier: products[17].identifier) == products[17])
    #expect(catalog.product(identifier: products[2].identifier) == products[2])
    #expect(catalog.roundTrips == 2)
    #expect(catalog.product(identifier: absent.identifier) == nil)
    #expect(catalog.roundTrips == 3)
  }

  /// Products asked for by list number as the catalog opens (`catalog select 7`) come in its
  /// request too, where the positions run without a gap: reading them then asks nothing, and
  /// they are the products another connection finds at those numbers. A number past the end
  /// is asked nothing either (the count says it has no product). Where a deletion left a gap,
  /// none is kept from the request: each is asked, and found where the count puts it, once a
  /// request after the state's has checked the group counts that number them.
  @Test func productsReadAheadByNumberComeWithTheState() throws {
    let products = (1...20).map { numberedProduct($0) }
    let address = try catalogOnNewDatabase(products: products)
    // Positions that do not start at 1: a deletion at the front keeps them gapless.
    try PostgresCatalog(address: address).apply([
      .delete(products[0].identifier, name: products[0].name)
    ])
    let catalog = try PostgresCatalog(
      address: address,
      readingAhead: CatalogReadAhead(products: [products[9].identifier], numbers: [1, 7, 25]))
    #expect(catalog.roundTrips == 2)
    #expect(catalog.product(number: 7) == products[7])
    #expect(catalog.product(number: 1) == products[1])
    #expect(Catalog(source: catalog).product(number: 25) == nil)
    #expect(catalog.product(identifier: products[9].identifier) == products[9])
    #expect(catalog.roundTrips == 2)
    let other = try PostgresCatalog(address: address)
    #expect(other.product(number: 7) == catalog.product(number: 7))

    // A gap in the middle: number 7 is the product after the one deleted.
    try other.apply([.delete(products[4].identifier, name: products[4].name)])
    let gapped = try PostgresCatalog(
      address: address, readingAhead: CatalogReadAhead(numbers: [3, 7]))
    #expect(gapped.roundTrips == 3)
    #expect(gapped.product(number: 7) == products[8])
    #expect(gapped.product(number: 3) == products[3])
    #expect(gapped.roundTrips == 5)
  }

  /// A refresh reads the products the command about to run names with the state, in its
  /// round trip, as the launch does: after another connection's change, by number and by
  /// identifier, as that connection reads them.
  @Test func productsNamedAtARefreshComeWithTheState() throws {
    let products = (1...20).map { numberedProduct($0) }
    let address = try catalogOnNewDatabase(products: products)
    let catalog = try PostgresCatalog(address: address)
    let other = try PostgresCatalog(address: address)
    try other.apply([.delete(products[0].identifier, name: products[0].name)])
    let before = catalog.roundTrips
    #expect(
      try catalog.refresh(
        readingAhead: CatalogReadAhead(products: [products[12].identifier], numbers: [6])))
    #expect(catalog.product(number: 6) == products[6])
    #expect(catalog.product(identifier: products[12].identifier) == products[12])
    #expect(catalog.roundTrips == before + 1)
    #expect(other.product(number: 6) == catalog.product(number: 6))
  }

  /// A catalog's session compiles no statement to machine code: the server's estimates of
  /// its few-row reads at millions of products pass the compiling threshold, and compiling
  /// them would take longer than running them. Made as the session starts, like its other
  /// settings.
  @Test func aCatalogsSessionCompilesNoStatement() throws {
    let server = try PostgresTestServer.shared
    let address = try PostgresAddress(server.socketURL(database: try server.makeDatabase()))
    let session = try PostgresConnection(
      address, applicationName: "tests", settings: PostgresCatalog.sessionSettings)
    #expect(try session.execute("SHOW jit").text(0, 0) == "off")
    #expect(try session.execute("SHOW catalog.writer").text(0, 0) == "catalog")
    #expect(session.roundTrips == 3)
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

  /// The work a save does while its first request waits on the server (the scene files) runs
  /// once, within that round trip, before the edit commits; what it throws rolls the edit back.
  @Test func workWhileWritingRunsOnceBeforeTheCommitAndItsFailureCommitsNothing() throws {
    let products = (1...4).map { numberedProduct($0) }
    let address = try catalogOnNewDatabase(products: products)
    let catalog = try PostgresCatalog(address: address)
    let other = try PostgresCatalog(address: address)
    func priced(_ cents: Int) -> CatalogChange {
      var edited = ProductFields(products[1])
      edited.price = Price(cents: cents)
      return .edit(
        ProductChange(
          identifier: products[1].identifier, base: ProductFields(products[1]), edited: edited))
    }
    struct Refused: Error {}
    #expect(throws: Refused.self) { try catalog.apply([priced(1_234)]) { throw Refused() } }
    #expect(try !other.refresh())
    #expect(other.product(number: 2)?.price == products[1].price)

    var runs = 0
    var seenMeanwhile: Price?
    let before = catalog.roundTrips
    try catalog.apply([priced(4_321)]) {
      runs += 1
      _ = try? other.refresh()
      seenMeanwhile = other.product(number: 2)?.price
    }
    #expect(runs == 1)
    #expect(seenMeanwhile == products[1].price)
    #expect(catalog.roundTrips == before + 2)
    #expect(try other.refresh())
    #expect(other.product(number: 2)?.price == Price(cents: 4_321))
  }

  /// A saved edit takes two round trips: `BEGIN` with the generation and the product as
  /// saved, then the update with `COMMIT` and the state after it; the product as saved is then
  /// known without asking. An edit another connection made meanwhile to another field is kept,
  /// and one to the same field refused.
  @Test func aSavedEditTakesTwoRoundTrips() throws {
    let products = (1...20).map { numberedProduct($0) }
    let address = try catalogOnNewDatabase(products: products)
    let catalog = try PostgresCatalog(address: address)
    let other = try PostgresCatalog(address: address)
    func edit(_ product: Product, _ change: (inout ProductFields) -> Void) -> CatalogChange {
      var edited = ProductFields(product)
      change(&edited)
      return .edit(
        ProductChange(identifier: product.identifier, base: ProductFields(product), edited: edited))
    }
    let before = catalog.roundTrips
    try catalog.apply([edit(products[3]) { $0.price = Price(cents: 4_242) }])
    #expect(catalog.roundTrips == before + 2)
    #expect(catalog.generation == other.generation + 1)
    #expect(try other.refresh())
    #expect(other.product(number: 4)?.price == Price(cents: 4_242))
    try other.apply([edit(products[3]) { $0.year = 1999 }])
    try catalog.apply([edit(products[3]) { $0.name = "Renamed" }])
    let trips = catalog.roundTrips
    let saved = try #require(catalog.product(identifier: products[3].identifier))
    #expect(catalog.roundTrips == trips)
    #expect(saved.name == "Renamed" && saved.year == 1999 && saved.price == Price(cents: 4_242))
    #expect(try other.refresh())
    #expect(other.product(identifier: products[3].identifier) == saved)
    #expect(throws: CatalogError.self) {
      try other.apply([edit(products[3]) { $0.name = "Other" }])
    }
    // The refusal rolled back: the connection goes on.
    try other.apply([edit(products[5]) { $0.price = Price(cents: 1) }])
    #expect(try catalog.refresh())
    #expect(catalog.product(number: 6)?.price == Price(cents: 1))
    #expect(catalog.count == 20)
  }

  /// A write asks the server whether it committed after a lost reply (`txid_status`), rather
  /// than noting an identifier in the schema's `commits` table, where earlier versions note
  /// theirs: a new session's write plans and writes nothing there, and leaves the table as
  /// earlier versions keep it.
  @Test func aWriteNotesNothingInTheCommitsTable() throws {
    let products = (1...4).map { numberedProduct($0) }
    let address = try catalogOnNewDatabase(products: products)
    let catalog = try PostgresCatalog(address: address)
    let connection = try PostgresConnection(address, applicationName: "test")
    let earlier = UUID()
    try connection.execute(
      "INSERT INTO catalog.commits VALUES ($1, now() - interval '8 days')", [earlier.uuidString])
    for round in 0..<64 {
      let product = try #require(catalog.product(number: round % 4 + 1))
      var edited = ProductFields(product)
      edited.price = Price(cents: round + 1)
      try catalog.apply([
        .edit(
          ProductChange(
            identifier: product.identifier, base: ProductFields(product), edited: edited))
      ])
    }
    let notes = try connection.execute("SELECT id FROM catalog.commits")
    #expect(notes.count == 1 && notes.text(0, 0) == earlier.uuidString.lowercased())
  }

  /// The products of a search's results, scattered over the list, come in one request, each
  /// at its number; a number past the end has none.
  @Test func productsAtScatteredNumbersComeInOneRequest() throws {
    let products = (1...3_000).map { numberedProduct($0) }
    let address = try catalogOnNewDatabase(products: products)
    let catalog = try PostgresCatalog(address: address)
    try catalog.apply(
      [1, 1_500, 2_047].map { .delete(products[$0].identifier, name: products[$0].name) })
    var model = products
    for index in [2_047, 1_500, 1] { model.remove(at: index) }
    let before = catalog.roundTrips
    let numbers = [1, 2, 1_024, 1_025, 1_500, 2_046, 2_997]
    let found = catalog.products(atNumbers: numbers + [2_998, 5_000])
    #expect(catalog.roundTrips == before + 1)
    #expect(found.count == numbers.count)
    for number in numbers { #expect(found[number] == model[number - 1]) }
    // Read at this generation: asked again, from what was read.
    #expect(catalog.products(atNumbers: [2, 1_025]) == [2: model[1], 1_025: model[1_024]])
    #expect(catalog.roundTrips == before + 1)
  }

  /// Deleting and adding in one transaction, the numbers and the count follow.
  @Test func additionsAndDeletionsSentAheadKeepTheNumbers() throws {
    let products = (1...20).map { numberedProduct($0) }
    let address = try catalogOnNewDatabase(products: products)
    let catalog = try PostgresCatalog(address: address)
    let added = numberedProduct(21)
    try catalog.apply([
      .delete(products[0].identifier, name: products[0].name), .insert(added),
      .delete(products[10].identifier, name: products[10].name),
    ])
    #expect(catalog.count == 19)
    #expect(catalog.product(number: 1) == products[1])
    #expect(catalog.product(number: 19) == added)
    #expect(catalog.number(of: products[11].identifier) == 10)
    // A refused change in the middle leaves nothing of the others.
    #expect(throws: CatalogError.self) {
      try catalog.apply([.delete(products[2].identifier, name: ""), .insert(added)])
    }
    #expect(try catalog.refresh() == false)
    #expect(catalog.product(number: 1) == products[1])
  }

  /// A large import leaves the planner the statistics of the columns whose ranges the app
  /// reads (the products changed since a search index was built, through their index, not
  /// every row), and the text columns, most of an analysis's time, to autovacuum.
  @Test func aLargeImportLeavesThePlannerWhatItsRangesRead() throws {
    let address = try catalogOnNewDatabase(products: (1...20_000).map { numberedProduct($0) })
    let catalog = try PostgresCatalog(address: address)
    let generation = catalog.generation
    try catalog.apply([.insert(numberedProduct(20_001))])
    let session = try PostgresConnection(address, applicationName: "tests")
    let plan = try session.execute(
      "EXPLAIN SELECT identifier FROM \(catalog.schema).products WHERE changed > $1",
      [String(generation)])
    let lines = (0..<plan.count).compactMap { plan.text($0, 0) }
    #expect(lines.first?.contains("Index") == true, "\(lines)")
    let analyzed = try session.execute(
      "SELECT attname FROM pg_stats WHERE schemaname = $1 AND tablename = 'products' ORDER BY attname",
      [catalog.schema])
    #expect(
      (0..<analyzed.count).compactMap { analyzed.text($0, 0) } == ["changed", "position", "year"])
  }
}
