import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import PostgreSQL
import SQLite
import TestSupport
import Testing

/// List numbers found from block counts, checked against a plain array of the products that
/// is renumbered the slow way.
@Suite struct ListNumberingTests {
  /// A new database on the tests' PostgreSQL server.
  private func newDatabase() throws -> PostgresAddress {
    let server = try PostgresTestServer.shared
    return try PostgresAddress(server.socketURL(database: try server.makeDatabase()))
  }

  private func product(_ index: Int) -> Product {
    numberedProduct(index, year: 1990 + index % 7)
  }

  private func newDatabase(_ temporary: TemporaryDirectory) throws -> CatalogDatabase {
    let path = temporary.path + "/catalog.sqlite"
    try CatalogDatabase.create(at: path)
    return try CatalogDatabase(path: path)
  }

  /// Every way of reading a number agrees with the array, across block boundaries and in
  /// blocks full and partly emptied.
  private func expectAgrees(
    _ database: CatalogDatabase, with model: [Product],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    #expect(database.count == model.count, sourceLocation: sourceLocation)
    var all: [Product] = []
    database.forEachNumberedProduct { number, product in
      #expect(number == all.count + 1, sourceLocation: sourceLocation)
      all.append(product)
    }
    #expect(all == model, sourceLocation: sourceLocation)
    var generator = SeededGenerator(seed: UInt64(model.count))
    for _ in 0..<40 where !model.isEmpty {
      let first = Int.random(in: 1...model.count, using: &generator)
      let last = min(model.count, first + Int.random(in: 0...40, using: &generator))
      let page = database.products(numbers: first...last)
      #expect(page.map(\.number) == Array(first...last), sourceLocation: sourceLocation)
      #expect(
        page.map(\.product) == Array(model[(first - 1)..<last]), sourceLocation: sourceLocation)
      #expect(
        database.number(of: model[first - 1].identifier) == first, sourceLocation: sourceLocation)
    }
    let numbers = database.numbers(of: model.map(\.identifier))
    #expect(numbers.count == model.count, sourceLocation: sourceLocation)
    for (offset, product) in model.enumerated() where numbers[product.identifier] != offset + 1 {
      Issue.record(
        "\(product.name) is numbered \(numbers[product.identifier] ?? 0), not \(offset + 1)",
        sourceLocation: sourceLocation)
      break
    }
    #expect(database.product(number: model.count + 1) == nil, sourceLocation: sourceLocation)
    #expect(database.product(number: 0) == nil, sourceLocation: sourceLocation)
    let year = 1993
    let ofYear = model.enumerated().filter { $0.element.year == year }
    let page = database.products(year: year, offset: 5, limit: 20)
    #expect(
      page.map(\.number) == ofYear.dropFirst(5).prefix(20).map { $0.offset + 1 },
      sourceLocation: sourceLocation)
    try database.verify()
  }

  @Test func deletionsAnywhereRenumberNothingYetNumbersStayDense() throws {
    let temporary = TemporaryDirectory()
    let database = try newDatabase(temporary)
    var model = (1...5_000).map(product)
    _ = try database.importProducts(model)
    try expectAgrees(database, with: model)
    var generator = SeededGenerator(seed: 21)
    // The front, the end, a whole block, and scattered products: in one transaction each.
    for round in 0..<4 {
      let chosen: [Int] =
        switch round {
        case 0: [0]
        case 1: [model.count - 1]
        case 2: Array(1_100..<2_200)
        default: (0..<300).map { _ in Int.random(in: 0..<model.count, using: &generator) }
        }
      let doomed = Set(chosen.map { model[$0].identifier })
      try database.apply(
        model.filter { doomed.contains($0.identifier) }.map {
          .delete($0.identifier, name: $0.name)
        })
      model.removeAll { doomed.contains($0.identifier) }
      try expectAgrees(database, with: model)
    }
    // Added after the gaps, by the editor and by an import.
    let added = product(9_001)
    try database.apply([.insert(added)])
    model.append(added)
    let imported = (9_002...11_000).map(product)
    _ = try database.importProducts(imported)
    model += imported
    try expectAgrees(database, with: model)
  }

  /// A database opened on positions without a gap keeps the ends it read as it opened (and
  /// as it refreshes), and numbers from them; another connection's change, which raises the
  /// generation, is numbered anew, refreshed or not: at the front, and in the middle (a gap).
  @Test func numbersFromTheOpeningReadGiveWayToAnotherConnectionsChange() throws {
    let temporary = TemporaryDirectory()
    var model = (1...3_000).map(product)
    _ = try newDatabase(temporary).importProducts(model)
    let path = temporary.path + "/catalog.sqlite"
    let reader = try CatalogDatabase(path: path)
    #expect(reader.product(number: 2_000) == model[1_999])
    let writer = try CatalogDatabase(path: path)
    for doomed in [model[0], model[1_500]] {
      try writer.apply([.delete(doomed.identifier, name: doomed.name)])
      model.removeAll { $0.identifier == doomed.identifier }
      #expect(reader.product(number: 1) == model[0])
      #expect(reader.product(number: 2_000) == model[1_999])
      #expect(try reader.refresh(readingAhead: CatalogReadAhead()))
      try expectAgrees(reader, with: model)
    }
  }

  /// Moves the products' positions apart, as years of additions and deletions leave them:
  /// the product at position `p` to `(p - 1) · spacing + 1`, with every block and group
  /// counted again and the generation raised, as the program itself counts them.
  static func spread(_ path: String, spacing: Int) throws {
    try Database(path: path, mode: .readWrite).execute(
      """
      BEGIN IMMEDIATE;
      UPDATE products SET position = -position;
      UPDATE products SET position = (-position - 1) * \(spacing) + 1;
      DELETE FROM blocks;
      INSERT INTO blocks SELECT (position - 1) >> 10, count(*) FROM products GROUP BY 1;
      DELETE FROM block_groups;
      INSERT INTO block_groups SELECT block >> 6, sum(live) FROM blocks GROUP BY 1;
      UPDATE catalog_info SET value = value + 1 WHERE key = 'generation';
      COMMIT;
      """)
  }

  /// Over positions spread across many groups of blocks (65,536 positions each): numbers read,
  /// paged and found agree with the array, after deletions in several groups and additions
  /// after the last.
  @Test func numbersAgreeAcrossGroupsOfBlocks() throws {
    let temporary = TemporaryDirectory()
    let database = try newDatabase(temporary)
    var model = (1...2_000).map(product)
    _ = try database.importProducts(model)
    try Self.spread(temporary.path + "/catalog.sqlite", spacing: 211)
    try expectAgrees(database, with: model)
    // One from every group, and every product of one block.
    let doomed = Set(
      stride(from: 0, to: model.count, by: 311).map { model[$0].identifier }
        + model[620..<625].map(\.identifier))
    try database.apply(
      model.filter { doomed.contains($0.identifier) }.map { .delete($0.identifier, name: $0.name) }
    )
    model.removeAll { doomed.contains($0.identifier) }
    try expectAgrees(database, with: model)
    let added = (2_001...2_100).map(product)
    try database.apply(added.prefix(1).map { .insert($0) })
    _ = try database.importProducts(Array(added.dropFirst()))
    model += added
    try expectAgrees(database, with: model)
    // Another connection, which read the counts before, sees the change at once.
    let other = try CatalogDatabase(path: temporary.path + "/catalog.sqlite")
    #expect(other.product(number: 1_000) == model[999])
    try database.apply([.delete(model[10].identifier, name: model[10].name)])
    model.remove(at: 10)
    #expect(other.product(number: 1_000) == model[999])
    #expect(other.number(of: model[1_500].identifier) == 1_501)
  }

  /// The same on PostgreSQL, whose numbers are summed by the server: positions spread across
  /// groups by another program (which the next refresh counts again), then deletions in
  /// several groups by this one.
  @Test func numbersAgreeAcrossGroupsOfBlocksOnPostgreSQL() throws {
    let address = try newDatabase()
    var model = (1...1_000).map(product)
    _ = try PostgresCatalog(address: address).importProducts(model)
    try PostgresConnection(address, applicationName: "test").run(
      """
      BEGIN;
      UPDATE catalog.products SET position = -position;
      UPDATE catalog.products SET position = (-position - 1) * 401 + 1;
      UPDATE catalog.info SET value = value + 1 WHERE key = 'generation';
      COMMIT;
      """)
    let catalog = try PostgresCatalog(address: address)
    func expectNumbers(sourceLocation: SourceLocation = #_sourceLocation) {
      #expect(catalog.count == model.count, sourceLocation: sourceLocation)
      for first in [1, 2, 160, 161, 163, 327, 500, model.count - 3] {
        let page = catalog.products(numbers: first...(first + 3))
        #expect(
          page.map(\.product) == Array(model[(first - 1)..<min(model.count, first + 3)]),
          sourceLocation: sourceLocation)
      }
      let numbers = catalog.numbers(of: model.map(\.identifier))
      #expect(
        model.enumerated().allSatisfy { numbers[$0.element.identifier] == $0.offset + 1 },
        sourceLocation: sourceLocation)
    }
    expectNumbers()
    let doomed = Set(stride(from: 0, to: model.count, by: 97).map { model[$0].identifier })
    try catalog.apply(
      model.filter { doomed.contains($0.identifier) }.map { .delete($0.identifier, name: $0.name) }
    )
    model.removeAll { doomed.contains($0.identifier) }
    expectNumbers()
    let added = (1_001...1_010).map(product)
    try catalog.apply(added.map { .insert($0) })
    model += added
    try catalog.refresh()
    expectNumbers()
  }

  /// On PostgreSQL, a product in a full block is numbered, and found by its number, from the
  /// counts alone, one in a block a deletion emptied in part by counting into its block: both
  /// agree with the array, with full blocks before and after a partial one.
  @Test func numbersAgreeInFullAndPartBlocksOnPostgreSQL() throws {
    let address = try newDatabase()
    // Blocks 0 to 2 full, block 3 in part.
    var model = (1...3_500).map(product)
    _ = try PostgresCatalog(address: address).importProducts(model)
    let catalog = try PostgresCatalog(address: address)
    func expectNumbers(sourceLocation: SourceLocation = #_sourceLocation) {
      let numbers = catalog.numbers(of: model.map(\.identifier))
      #expect(
        model.enumerated().allSatisfy { numbers[$0.element.identifier] == $0.offset + 1 },
        sourceLocation: sourceLocation)
      let asked = [1, 1_024, 1_025, 1_030, 1_500, 2_048, 2_049, 3_072, 3_073, model.count]
      let found = catalog.products(atNumbers: asked)
      #expect(
        asked.allSatisfy { found[$0] == model[$0 - 1] }, sourceLocation: sourceLocation)
      for first in [1_020, 2_046, 3_070] {
        #expect(
          catalog.products(numbers: first...(first + 5)).map(\.product)
            == Array(model[(first - 1)..<(first + 5)]), sourceLocation: sourceLocation)
      }
    }
    expectNumbers()
    // Block 1 loses two products: blocks 0 and 2 stay full around it.
    let doomed = [model[1_030], model[1_500]]
    try catalog.apply(doomed.map { .delete($0.identifier, name: $0.name) })
    model.removeAll { [doomed[0].identifier, doomed[1].identifier].contains($0.identifier) }
    expectNumbers()
  }

  /// On PostgreSQL, the count and the ends of the positions `info` keeps, which the state is
  /// read from, follow every write — the first and the last product deleted, one between, one
  /// added, an import appended, every product deleted and one added again — and a catalog
  /// made before they were kept gets them when it is opened.
  @Test func theKeptCountAndEndsFollowEveryWriteOnPostgreSQL() throws {
    let address = try newDatabase()
    var model = (1...300).map(product)
    let catalog = try PostgresCatalog(address: address)
    _ = try catalog.importProducts(model)
    let connection = try PostgresConnection(address, applicationName: "test")
    func expectKept(sourceLocation: SourceLocation = #_sourceLocation) throws {
      let kept = try connection.execute(
        """
        SELECT (SELECT value FROM catalog.info WHERE key = 'count'),
          (SELECT value FROM catalog.info WHERE key = 'first_position'),
          (SELECT value FROM catalog.info WHERE key = 'last_position'),
          count(*), coalesce(min(position), 1), coalesce(max(position), 0)
        FROM catalog.products
        """)
      #expect(kept.integer(0, 0) == kept.integer(0, 3), "count", sourceLocation: sourceLocation)
      #expect(kept.integer(0, 1) == kept.integer(0, 4), "first", sourceLocation: sourceLocation)
      #expect(kept.integer(0, 2) == kept.integer(0, 5), "last", sourceLocation: sourceLocation)
      try catalog.refresh()
      #expect(catalog.count == model.count, sourceLocation: sourceLocation)
      // A new session reads the first and the last product by number from the kept ends.
      let fresh = try PostgresCatalog(
        address: address,
        readingAhead: CatalogReadAhead(numbers: [1, model.count]))
      #expect(fresh.count == model.count, sourceLocation: sourceLocation)
      #expect(fresh.product(number: 1) == model.first, sourceLocation: sourceLocation)
      #expect(fresh.product(number: model.count) == model.last, sourceLocation: sourceLocation)
    }
    try expectKept()
    for end in [0, -1, 150] {
      let doomed = model.remove(at: end < 0 ? model.count - 1 : end)
      try catalog.apply([.delete(doomed.identifier, name: doomed.name)])
      try expectKept()
    }
    let added = product(301)
    try catalog.apply([.insert(added)])
    model.append(added)
    try expectKept()
    let appended = (302...310).map(product)
    _ = try catalog.importProducts(appended)
    model += appended
    try expectKept()
    try catalog.apply(model.map { .delete($0.identifier, name: $0.name) })
    model.removeAll()
    try expectKept()
    let again = product(311)
    try catalog.apply([.insert(again)])
    model.append(again)
    try expectKept()
    // As schema version 7 left a catalog: no kept count or ends.
    try connection.run(
      """
      DELETE FROM catalog.info WHERE key IN ('count', 'first_position', 'last_position');
      UPDATE catalog.info SET value = 7 WHERE key = 'schema_version';
      """)
    _ = try PostgresCatalog(address: address)
    try expectKept()
  }

  /// On PostgreSQL, a product an earlier version adds — counted in its block and group, as
  /// that version's writes do, but not in the count `info` keeps — is counted again at the next
  /// read, as another program's change is.
  @Test func anEarlierVersionsAdditionIsCountedAgainOnPostgreSQL() throws {
    let address = try newDatabase()
    let model = (1...300).map(product)
    let catalog = try PostgresCatalog(address: address)
    _ = try catalog.importProducts(model)
    let added = product(301)
    // An earlier version's session: this program's writer, without the kept counts.
    let earlier = try PostgresConnection(
      address, applicationName: "test", settings: [PostgresCatalog.sessionSettings[0]])
    try earlier.transaction {
      try earlier.execute(
        "UPDATE catalog.info SET value = value + 1 WHERE key = 'generation'")
      try earlier.execute(
        """
        INSERT INTO catalog.products(identifier, position, name, folded_name, image_name, year,
          price_cents, keywords, changed)
        VALUES ($1, 301, $2, $3, $4, $5, 100, '', 0)
        """,
        [
          added.identifier.canonicalText, added.name, added.name.folded, added.imageName,
          String(added.year),
        ])
      try earlier.execute(
        "INSERT INTO catalog.blocks VALUES (0, 1) ON CONFLICT (block) DO UPDATE SET live = blocks.live + 1"
      )
      try earlier.execute(
        "UPDATE catalog.block_groups SET live = live + 1 WHERE grp = 0")
    }
    try catalog.refresh()
    #expect(catalog.count == 301)
    #expect(catalog.product(number: 301)?.identifier == added.identifier)
    let fresh = try PostgresCatalog(address: address)
    #expect(fresh.count == 301)
  }

  /// On PostgreSQL, group counts that do not add up to the kept count of products — left by a
  /// program that writes as this one and keeps no counts — are damage where the positions have
  /// a gap and list numbers come from the counts: a launch and a refresh say so, rather than
  /// show an empty list or number a product as another.
  @Test func groupCountsThatDoNotAddUpAreDamageOnPostgreSQL() throws {
    let address = try newDatabase()
    let model = (1...300).map(product)
    let catalog = try PostgresCatalog(address: address)
    _ = try catalog.importProducts(model)
    try catalog.apply([.delete(model[150].identifier, name: model[150].name)])
    try catalog.refresh()
    #expect(catalog.product(number: 151)?.identifier == model[151].identifier)
    let writer = try PostgresConnection(
      address, applicationName: "test", settings: PostgresCatalog.sessionSettings)
    for live in [-1, 1 << 62, 300] {
      try writer.run(
        """
        UPDATE catalog.block_groups SET live = \(live) WHERE grp = 0;
        UPDATE catalog.info SET value = value + 1 WHERE key = 'generation';
        """)
      #expect(throws: CatalogError.self) { try catalog.refresh() }
      #expect(throws: CatalogError.self) { try PostgresCatalog(address: address) }
    }
    try writer.run(
      """
      UPDATE catalog.block_groups SET live = 299 WHERE grp = 0;
      UPDATE catalog.info SET value = value + 1 WHERE key = 'generation';
      """)
    try catalog.refresh()
    #expect(try PostgresCatalog(address: address).product(number: 151)?.name == model[151].name)
  }

  /// On PostgreSQL, a page, products at numbers and products' numbers of a catalog whose
  /// positions run without a gap are read from positions, only while the catalog is at the
  /// generation its state was read at: another process's deletion is seen at once, before this
  /// one refreshes.
  @Test func aGaplessCatalogsPagesFollowAnotherProcessesDeletionOnPostgreSQL() throws {
    let address = try newDatabase()
    var model = (1...1_500).map(product)
    _ = try PostgresCatalog(address: address).importProducts(model)
    let catalog = try PostgresCatalog(address: address)
    #expect(catalog.products(numbers: 5...7).map(\.product) == Array(model[4..<7]))
    #expect(catalog.products(numbers: 1_499...1_501).map(\.product) == Array(model[1_498...]))
    let other = try PostgresCatalog(address: address)
    try other.apply([.delete(model[0].identifier, name: model[0].name)])
    model.removeFirst()
    // Numbers not read before: from the rows as they are now, not from the first position.
    #expect(catalog.products(numbers: 10...12).map(\.product) == Array(model[9..<12]))
    #expect(catalog.product(number: 1_400) == model[1_399])
    #expect(catalog.products(atNumbers: [20, 700]) == [20: model[19], 700: model[699]])
    #expect(catalog.number(of: model[800].identifier) == 801)
    try catalog.refresh()
    #expect(catalog.products(numbers: 1...3).map(\.product) == Array(model[0..<3]))
    #expect(catalog.product(number: 1_500) == nil)
    #expect(catalog.products(atNumbers: [1, 1_499, 1_500]) == [1: model[0], 1_499: model[1_498]])
    #expect(
      catalog.numbers(of: [model[0].identifier, model[1_498].identifier]) == [
        model[0].identifier: 1, model[1_498].identifier: 1_499,
      ])
  }

  /// Numbers are found through block counts kept in memory: another process's deletions and
  /// additions are seen at once, before this one refreshes its count.
  @Test func numbersFollowAnotherProcessesChangesAtOnce() throws {
    let temporary = TemporaryDirectory()
    let database = try newDatabase(temporary)
    var model = (1...3_000).map(product)
    _ = try database.importProducts(model)
    try expectAgrees(database, with: model)
    let other = try CatalogDatabase(path: temporary.path + "/catalog.sqlite")
    for doomed in [model[0], model[1_500], model[2_999]] {
      try other.apply([.delete(doomed.identifier, name: doomed.name)])
      model.removeAll { $0.identifier == doomed.identifier }
      for number in [1, 1_024, 1_025, 1_500, model.count] {
        #expect(database.product(number: number) == model[number - 1])
        #expect(database.number(of: model[number - 1].identifier) == number)
      }
      #expect(
        database.products(numbers: 1_499...1_502).map(\.product) == Array(model[1_498..<1_502]))
    }
    let added = product(3_001)
    try other.apply([.insert(added)])
    model.append(added)
    #expect(database.product(number: model.count) == added)
    try database.refresh()
    try expectAgrees(database, with: model)
  }

  /// Where the positions run without a gap (an import, deletions only at the ends), a number
  /// is found from the positions alone: none of the block or group counts is read, so a
  /// lookup reads as little at ten million products as at a thousand. Shown by emptying the
  /// counts behind the program's back: the numbers stay right.
  @Test func aGaplessCatalogsNumbersReadNoCounts() throws {
    let temporary = TemporaryDirectory()
    let database = try newDatabase(temporary)
    var model = (1...3_000).map(product)
    _ = try database.importProducts(model)
    try database.apply([.delete(model[0].identifier, name: model[0].name)])
    model.removeFirst()
    try Database(path: temporary.path + "/catalog.sqlite", mode: .readWrite).execute(
      """
      UPDATE blocks SET live = 0; UPDATE block_groups SET live = 0;
      UPDATE catalog_info SET value = value + 1 WHERE key = 'generation';
      """)
    for number in [1, 1_024, 1_025, 2_999] {
      #expect(database.product(number: number) == model[number - 1])
      #expect(database.number(of: model[number - 1].identifier) == number)
    }
    #expect(database.products(numbers: 1_023...1_026).map(\.product) == Array(model[1_022..<1_026]))
    #expect(database.product(number: 3_000) == nil)
    #expect(database.products(year: 1993, offset: 0, limit: 3).map(\.number) == [2, 9, 16])
  }

  @Test func theSearchIndexLogSaysTheNumberEachDeletedProductHad() throws {
    let temporary = TemporaryDirectory()
    let database = try newDatabase(temporary)
    let model = (1...3_000).map(product)
    _ = try database.importProducts(model)
    let generation = database.generation
    try database.apply([
      .delete(model[2_500].identifier, name: ""), .delete(model[10].identifier, name: ""),
      .delete(model[2_998].identifier, name: ""),
    ])
    var edited = ProductFields(model[2_000])
    edited.year = 2001
    try database.apply([
      .edit(
        ProductChange(
          identifier: model[2_000].identifier, base: ProductFields(model[2_000]), edited: edited))
    ])
    let changes = try #require(try database.changes(after: generation, limit: 100))
    // Each as it was when deleted: the third after two others went.
    #expect(changes.deletedPositions == [2_501, 11, 2_997])
    #expect(changes.changed.map(\.position) == [2_000])
    #expect(changes.count == 2_997)
  }

  @Test func aReplacingImportKeepsTheOrderOfWhatStays() throws {
    let temporary = TemporaryDirectory()
    let database = try newDatabase(temporary)
    let model = (1...2_500).map(product)
    _ = try database.importProducts(model)
    let kept = model.enumerated().filter { $0.offset % 3 != 0 }.map(\.element)
    let summary = try database.importProducts(kept, options: ImportOptions(replacing: true))
    #expect(summary.removed == 834)
    try expectAgrees(database, with: kept)
  }
}
