import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import SQLite
import StateRestoration
import SystemSupport
import TestSupport
import Testing

@Suite struct CatalogStoreTests {
  let seed = bundledCatalogPath

  private func edit(_ product: Product, _ change: (inout ProductFields) -> Void) -> CatalogChange {
    var fields = ProductFields(product)
    change(&fields)
    return .edit(
      ProductChange(identifier: product.identifier, base: ProductFields(product), edited: fields))
  }

  private func allProducts(_ catalog: Catalog) -> [Product] {
    var products: [Product] = []
    catalog.forEachProduct { products.append($0) }
    return products
  }

  @Test func theFirstLoadSeedsAPrivateDatabaseAndLeavesTheSeedUntouched() throws {
    let temporary = TemporaryDirectory()
    let before = try Data(contentsOf: URL(fileURLWithPath: seed))
    let store = CatalogStore(directoryPath: temporary.path + "/data", seedPath: seed)
    let loaded = try store.load()
    #expect(loaded.readOnlyReason == nil)
    #expect(loaded.warnings.isEmpty)
    #expect(allProducts(loaded.catalog) == bundledProducts)
    let attributes = try FileManager.default.attributesOfItem(atPath: store.databasePath)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect(try Data(contentsOf: URL(fileURLWithPath: seed)) == before)
    // A second load opens the same database; it is not seeded twice.
    #expect(try store.load().catalog.count == 10)
  }

  /// A first import builds its database unseen, without the write-ahead log, and puts it in
  /// place whole: in WAL mode, intact, with the products; a refused file leaves no database.
  @Test func aFirstImportBuildsTheDatabaseWholeAndInWALMode() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path + "/data", seedPath: seed)
    let file = temporary.path + "/p.csv"
    try Data("name,imageName,year,price\nKiwi,,2020,1\nLime,,2021,2\n".utf8).write(
      to: URL(fileURLWithPath: file))
    let result = try store.importFile(ProductFile(path: file))
    #expect(result.summary.inserted == 2)
    let database = try Database(path: store.databasePath, mode: .readOnly)
    for (pragma, expected) in [("journal_mode", "wal"), ("integrity_check", "ok")] {
      let statement = try database.statement("PRAGMA \(pragma)")
      defer { statement.reset() }
      #expect(try statement.step())
      #expect(statement.text(0) == expected)
    }
    #expect(try store.load().catalog.count == 2)
    // Nothing of the file's making is left beside it.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: temporary.path + "/data").filter {
        $0.hasPrefix(".")
      } == [])

    let other = CatalogStore(directoryPath: temporary.path + "/other", seedPath: seed)
    try Data("name,imageName,year,price\nKiwi,,2020,1\nLime,,1800,2\n".utf8).write(
      to: URL(fileURLWithPath: file))
    #expect(throws: CatalogError.self) { try other.importFile(ProductFile(path: file)) }
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: temporary.path + "/other").filter {
        $0.hasPrefix("catalog.sqlite")
      } == [])
  }

  @Test func editsFromTwoConnectionsAreBothKept() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let first = try #require(try store.load().database)
    let second = try #require(try store.load().database)
    let ginger = try #require(first.product(number: 1))
    let mango = try #require(first.product(number: 7))
    try first.apply([edit(ginger) { $0.name = "Ginger Root" }])
    // The second connection's edit began before the first was saved.
    try second.apply([edit(mango) { $0.price = Price(cents: 799) }])
    let reloaded = try #require(try store.load().database)
    #expect(reloaded.product(number: 1)?.name == "Ginger Root")
    #expect(reloaded.product(number: 7)?.price == Price(cents: 799))
    #expect(second.product(number: 1)?.name == "Ginger Root")
  }

  /// The work a save does before it writes (the scene files) runs once, before the
  /// transaction; what it throws leaves the file as it was.
  @Test func workBeforeWritingRunsOnceAndItsFailureWritesNothing() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let catalog = try #require(try store.load().database)
    let mango = try #require(catalog.product(number: 7))
    struct Refused: Error {}
    #expect(throws: Refused.self) {
      try catalog.apply([edit(mango) { $0.price = Price(cents: 1) }]) { throw Refused() }
    }
    #expect(try #require(try store.load().database).product(number: 7)?.price == mango.price)
    var runs = 0
    try catalog.apply([edit(mango) { $0.price = Price(cents: 799) }]) { runs += 1 }
    #expect(runs == 1)
    #expect(try #require(try store.load().database).product(number: 7)?.price == Price(cents: 799))
  }

  @Test func anotherProcesssChangeToTheSameFieldIsRefusedWithBothValues() throws {
    let temporary = TemporaryDirectory()
    let database = try #require(
      try CatalogStore(directoryPath: temporary.path, seedPath: seed).load().database)
    let cherries = try #require(database.product(number: 9))
    try database.apply([edit(cherries) { $0.price = Price(cents: 500) }])
    let yours = edit(cherries) { $0.price = Price(cents: 1200) }
    #expect(
      throws: CatalogError.editConflict(
        product: "Cherries", field: "price", theirs: "$5.00", yours: "$12.00",
        keepTheirs: "price 5.00")
    ) {
      try database.apply([yours])
    }
    #expect(database.product(number: 9)?.price == Price(cents: 500))
    guard case .edit(var forced) = yours else { return }
    forced.overridesConflicts = true
    try database.apply([.edit(forced)])
    #expect(database.product(number: 9)?.price == Price(cents: 1200))
  }

  /// A database that is not one, is cut short, or is of a newer schema is never written to:
  /// the bundled catalog is shown and edits are refused.
  @Test(arguments: ["garbage", "empty", "truncated", "newer", "not a catalog"])
  func anUnusableDatabaseIsNeverOverwritten(_ damage: String) throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    _ = try store.load()
    let path = store.databasePath
    switch damage {
    case "garbage":
      try Data(String(repeating: "not a database ", count: 1000).utf8).write(
        to: URL(fileURLWithPath: path))
    case "empty":
      try Data().write(to: URL(fileURLWithPath: path))
    case "truncated":
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
    case "newer":
      try Database(path: path, mode: .readWrite).execute("PRAGMA user_version = 9")
    default:
      try FileManager.default.removeItem(atPath: path)
      try Database(path: path, mode: .create).execute("CREATE TABLE t(x)")
    }
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let loaded = try store.load()
    #expect(loaded.database == nil)
    #expect(loaded.readOnlyReason != nil)
    #expect(loaded.warnings.last?.contains("edits are refused until the file is fixed") == true)
    #expect(allProducts(loaded.catalog) == bundledProducts)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    if damage == "newer" {
      #expect(
        loaded.readOnlyReason
          == "its schema version 9 is newer than this program's \(CatalogDatabase.schemaVersion)")
    }
  }

  @Test func damageFoundAfterOpeningIsCheckedAndNeverWrittenOver() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    _ = try store.load()
    let path = store.databasePath
    var data = try Data(contentsOf: URL(fileURLWithPath: path))
    // The header and the schema page stay; every other page is garbage.
    data.replaceSubrange(4096..<data.count, with: Data(repeating: 0xA5, count: data.count - 4096))
    try data.write(to: URL(fileURLWithPath: path))
    let loaded = try store.load()
    #expect(loaded.database == nil)
    let reason = try #require(loaded.readOnlyReason)
    #expect(reason.contains("malformed"), "\(reason)")
    #expect(reason.contains("quick_check"), "\(reason)")
    #expect(loaded.catalog.count == 10)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == data)
  }

  @Test func anEarlierProductsFileIsMigratedOnceAndKept() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    var products = bundledProducts
    products[1].name = String(repeating: "n", count: 1000)
    products[3].name = "Bad\u{1B}[2J"
    products[6].price = Price(cents: 777)
    let contents = try CatalogFile(products: products).encoded()
    try DurableFile.write(contents, to: temporary.path + "/products.json")
    let loaded = try store.load()
    #expect(loaded.readOnlyReason == nil)
    #expect(loaded.catalog.count == 8)
    #expect(try loaded.catalog.product(matching: "mango").price == Price(cents: 777))
    let warnings = loaded.warnings.joined(separator: "\n")
    #expect(warnings.contains("imported 8 products from"))
    #expect(warnings.contains("left out 2 that break the editor's rules"))
    #expect(warnings.contains("record 2: the name has 1000 characters"))
    #expect(!FileManager.default.fileExists(atPath: temporary.path + "/products.json"))
    let kept = try Data(
      contentsOf: URL(fileURLWithPath: temporary.path + "/products.json.imported"))
    #expect(kept == contents)
    // Imported once: the next launch neither imports again nor warns.
    let again = try store.load()
    #expect(again.warnings.isEmpty)
    #expect(again.catalog.count == 8)
  }

  @Test func aMigrationInterruptedBeforeTheRenameIsFinishedNotRepeated() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let legacy = temporary.path + "/products.json"
    try DurableFile.write(try CatalogFile(products: bundledProducts).encoded(), to: legacy)
    _ = try store.load()
    // As if the process died after the import committed and before the rename.
    try FileManager.default.moveItem(atPath: legacy + ".imported", toPath: legacy)
    let loaded = try store.load()
    #expect(loaded.catalog.count == 10)
    #expect(!FileManager.default.fileExists(atPath: legacy))
    #expect(FileManager.default.fileExists(atPath: legacy + ".imported"))
  }

  @Test func anUnreadableProductsFileIsKeptAndTheBundledCatalogShown() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let legacy = temporary.path + "/products.json"
    try DurableFile.write(Data("{\"formatVersion\": 7, \"products\": []}".utf8), to: legacy)
    let loaded = try store.load()
    #expect(loaded.readOnlyReason != nil)
    #expect(loaded.catalog.count == 10)
    #expect(FileManager.default.fileExists(atPath: legacy))
  }

  @Test(arguments: ["[]", "{\"formatVersion\": 1, \"products\": []}"])
  func anEmptyCatalogIsReportedAndLookupsDoNotCrash(_ contents: String) throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    try DurableFile.write(Data(contents.utf8), to: temporary.path + "/products.json")
    let loaded = try store.load()
    #expect(loaded.catalog.isEmpty)
    #expect(loaded.warnings.last == "the catalog '\(store.databasePath)' has no products")
    for reference in ["1", "0", "-1", "cher", "FA542E3D-0C80-496D-A665-15E84FD7B5C7"] {
      #expect(throws: CatalogError.self) { try loaded.catalog.product(matching: reference) }
    }
    #expect(throws: CatalogError.numberOutOfRange(1, count: 0)) {
      try loaded.catalog.product(matching: "1")
    }
  }

  /// An export or an index build reads one snapshot, page after page, whatever other
  /// processes save meanwhile.
  @Test func readingEveryProductSeesOneSnapshot() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let reader = try #require(try store.load().database)
    let products = (1...2_500).map { numberedProduct($0) }
    _ = try reader.importProducts(products)
    let writer = try #require(try store.load().database)
    var seen: [UUID] = []
    try reader.forEachProduct { product in
      if seen.isEmpty {
        let first = try #require(writer.product(number: 1))
        try writer.apply([.delete(first.identifier, name: first.name)])
      }
      seen.append(product.identifier)
    }
    #expect(seen.count == 2_510)
    #expect(Set(seen).count == 2_510)
    try reader.refresh()
    #expect(reader.count == 2_509)
  }

  /// An edit writes only the fields it changed; whichever they are, the product reads back as
  /// edited, and so do the lookups by name and by year, which read the indexes.
  @Test func everyCombinationOfEditedFieldsReadsBack() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let database = try #require(try store.load().database)
    for combination in 0..<16 {
      let product = try #require(database.product(number: 1 + combination % 10))
      let change = edit(product) { fields in
        if combination & 1 != 0 { fields.name = "Edited \(combination) Rose" }
        if combination & 2 != 0 { fields.year = 1990 + combination }
        if combination & 4 != 0 { fields.price = Price(cents: 100 + combination) }
        if combination & 8 != 0 { fields.imageName = "Edited\(combination)" }
      }
      guard case .edit(let productChange) = change else { return }
      let expected = try productChange.applied(to: product)
      let generation = database.generation
      try database.apply([change])
      #expect(database.product(identifier: product.identifier) == expected)
      #expect(database.generation == generation + 1)
      #expect(
        database.products(foldedName: expected.name.folded, exact: true, limit: 5).contains(
          expected))
      #expect(
        database.products(year: expected.year, offset: 0, limit: 100).contains {
          $0.product == expected
        })
    }
  }

  /// A refresh between commands reads the counts again only when a commit came since: its
  /// own, another connection's of this process, or another program's; and it sees each.
  @Test func aRefreshSeesEveryCommitSinceTheLast() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let database = try #require(try store.load().database)
    let other = try #require(try store.load().database)
    #expect(try database.refresh() == false)
    let generation = database.generation
    let first = try #require(database.product(number: 1))
    try database.apply([.delete(first.identifier, name: first.name)])
    #expect(database.count == 9)
    #expect(database.generation != generation)
    #expect(try database.refresh() == false)
    #expect(try other.refresh() == true)
    #expect(other.count == 9)
    try other.apply([.insert(numberedProduct(1))])
    #expect(try database.refresh() == true)
    #expect(database.count == 10)
    #expect(try database.refresh() == false)
    // Another connection's commit, then this one's own with no refresh between: the state read
    // in its write covers both, and holds until a later commit.
    try other.apply([.insert(numberedProduct(2))])
    let before = other.generation
    try database.apply([.insert(numberedProduct(3))])
    #expect(database.count == 12)
    #expect(database.generation == before + 1)
    #expect(try database.refresh() == false)
    #expect(try other.refresh() == true)
    #expect(other.count == 12)
    // Another program, through SQLite alone: the generation moves, and the count with it.
    try Database(path: store.databasePath, mode: .readWrite).execute(
      "UPDATE catalog_info SET value = value + 1 WHERE key = 'generation'")
    #expect(try database.refresh() == true)
    #expect(try database.refresh() == false)
  }

  /// What turns a version-7 database back into a version-6 one (no group counts).
  static let versionSix = """
    DROP TABLE block_groups; PRAGMA user_version = 6;
    """

  /// What turns a version-7 database back into a version-4 one (its count is the blocks').
  static let versionFour = """
    DROP TABLE block_groups; DELETE FROM catalog_info WHERE key = 'count'; PRAGMA user_version = 4;
    """

  /// What turns a version-7 database back into a version-3 one (its positions are dense).
  static let versionThree = """
    DROP TABLE block_groups; DELETE FROM catalog_info WHERE key = 'count';
    DROP TABLE blocks; DROP INDEX deletions_identifier; ALTER TABLE deletions DROP COLUMN identifier;
    DROP INDEX products_position; CREATE INDEX products_position ON products(position);
    PRAGMA user_version = 3;
    """

  /// Version 3 numbered the list by dense positions, renumbered at every deletion: read as it
  /// is when opened for reading only, given block counts when opened for writing, after which
  /// a deletion renumbers nothing and the numbers stay those the user saw.
  @Test func aVersionThreeDatabaseGainsBlockCountsAndKeepsItsNumbers() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let before = try #require(try store.load().database).products(numbers: 1...10)
    try Database(path: store.databasePath, mode: .readWrite).execute(Self.versionThree)
    let reader = try CatalogDatabase(path: store.databasePath, readOnly: true)
    #expect(reader.count == 10)
    #expect(reader.products(numbers: 1...10).map(\.product) == before.map(\.product))
    #expect(
      try Database(path: store.databasePath, mode: .readOnly).integer("PRAGMA user_version") == 3)
    // The upgrade is announced, with the number of products, before it starts; once.
    var told: [Int] = []
    let writer = try CatalogDatabase(path: store.databasePath, willUpgrade: { told.append($0) })
    #expect(told == [10])
    _ = try CatalogDatabase(path: store.databasePath, willUpgrade: { told.append($0) })
    #expect(told == [10])
    #expect(writer.products(numbers: 1...10).map(\.product) == before.map(\.product))
    try writer.apply([.delete(before[2].product.identifier, name: before[2].product.name)])
    #expect(writer.count == 9)
    #expect(writer.product(number: 3) == before[3].product)
    #expect(writer.number(of: before[9].product.identifier) == 9)
    try writer.verify()
    #expect(
      try Database(path: store.databasePath, mode: .readOnly).integer("PRAGMA user_version")
        == CatalogDatabase.schemaVersion)
  }

  /// Version 6 kept no group counts: opened for reading only, its groups are summed from its
  /// blocks; opened for writing, it gains them, which every change then keeps and the
  /// whole-file check compares with the blocks.
  @Test func aVersionSixDatabaseGainsGroupCounts() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let loaded = try #require(try store.load().database)
    _ = try loaded.importProducts((1...300).map { numberedProduct($0) })
    try ListNumberingTests.spread(store.databasePath, spacing: 1_000)
    let before = loaded.products(numbers: 1...310)
    #expect(before.count == 310)
    try Database(path: store.databasePath, mode: .readWrite).execute(Self.versionSix)
    let reader = try CatalogDatabase(path: store.databasePath, readOnly: true)
    #expect(reader.products(numbers: 1...310).map(\.product) == before.map(\.product))
    #expect(reader.number(of: before[250].product.identifier) == 251)
    #expect(reader.numbers(of: before.map(\.product.identifier)).count == 310)
    let writer = try CatalogDatabase(path: store.databasePath)
    #expect(
      try Database(path: store.databasePath, mode: .readOnly).integer(
        "SELECT count(*) FROM block_groups") == 5)
    try writer.apply([.delete(before[100].product.identifier, name: "")])
    #expect(writer.product(number: 250) == before[250].product)
    try writer.verify()
    try Database(path: store.databasePath, mode: .readWrite).execute(
      "UPDATE block_groups SET live = live + 1 WHERE grp = 1")
    #expect(throws: CatalogError.self) { try CatalogDatabase(path: store.databasePath).verify() }
  }

  /// Version 4 summed every block to count the products: read so when opened for reading only,
  /// given a kept count when opened for writing, which every change then keeps, and which the
  /// whole-file check compares with the blocks.
  @Test func aVersionFourDatabaseGainsAKeptCount() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    _ = try store.load()
    try Database(path: store.databasePath, mode: .readWrite).execute(Self.versionFour)
    func kept() throws -> Int? {
      try Database(path: store.databasePath, mode: .readOnly).integer(
        "SELECT value FROM catalog_info WHERE key = 'count'")
    }
    #expect(try CatalogDatabase(path: store.databasePath, readOnly: true).count == 10)
    #expect(try kept() == nil)
    let writer = try CatalogDatabase(path: store.databasePath)
    #expect(try kept() == 10)
    let first = try #require(writer.product(number: 1))
    try writer.apply([.delete(first.identifier, name: first.name), .insert(numberedProduct(1))])
    try writer.apply([.insert(numberedProduct(2)), .insert(numberedProduct(3))])
    #expect(writer.count == 12)
    #expect(try kept() == 12)
    _ = try writer.importProducts((4...1_500).map { numberedProduct($0) })
    #expect(try kept() == 1_509)
    #expect(try CatalogDatabase(path: store.databasePath).count == 1_509)
    try writer.verify()
    try Database(path: store.databasePath, mode: .readWrite).execute(
      "UPDATE catalog_info SET value = 7 WHERE key = 'count'")
    #expect(throws: CatalogError.self) { try CatalogDatabase(path: store.databasePath).verify() }
  }

  /// Version 1 lacked the deletion log, the index of changes and the identity: opening for
  /// writing adds them, and opening for reading only leaves the file alone.
  @Test func aVersionOneDatabaseIsUpgradedWhenOpenedForWriting() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    _ = try store.load()
    do {
      let database = try Database(path: store.databasePath, mode: .readWrite)
      try database.execute(
        Self.versionThree
          + "DROP TABLE deletions; DROP INDEX products_changed; DELETE FROM catalog_info WHERE key = 'identity'; ALTER TABLE products DROP COLUMN image_directory; PRAGMA user_version = 1"
      )
    }
    let reader = try CatalogDatabase(path: store.databasePath, readOnly: true)
    #expect(reader.identity == nil)
    #expect(reader.count == 10)
    let writer = try CatalogDatabase(path: store.databasePath)
    let identity = try #require(writer.identity)
    let ginger = try #require(writer.product(number: 1))
    try writer.apply([.delete(ginger.identifier, name: ginger.name)])
    let changes = try #require(try writer.changes(after: 0, limit: 100))
    #expect(changes.deletedPositions == [1])
    #expect(changes.count == 9)
    #expect(try CatalogDatabase(path: store.databasePath).identity == identity)
  }

  /// Version 2 lacked the directory of relative image paths: read as none when opened for
  /// reading only, added when opened for writing, and then kept with each product.
  @Test func aVersionTwoDatabaseGainsImageDirectories() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    _ = try store.load()
    try Database(path: store.databasePath, mode: .readWrite).execute(
      Self.versionThree
        + "ALTER TABLE products DROP COLUMN image_directory; PRAGMA user_version = 2")
    let reader = try CatalogDatabase(path: store.databasePath, readOnly: true)
    #expect(reader.count == 10)
    #expect(reader.product(number: 1)?.imageDirectory == nil)
    #expect(try #require(try reader.changes(after: 0, limit: 100)).changed.count == 10)
    let writer = try CatalogDatabase(path: store.databasePath)
    let plum = Product(
      identifier: UUID(), name: "Plum", imageName: "pictures/plum.png", year: 2020,
      price: Price(cents: 150), imageDirectory: "/srv/shop")
    try writer.apply([.insert(plum)])
    #expect(writer.product(identifier: plum.identifier) == plum)
    #expect(writer.product(identifier: plum.identifier)?.imagePath == "/srv/shop/pictures/plum.png")
    #expect(
      try Database(path: store.databasePath, mode: .readOnly).integer("PRAGMA user_version")
        == CatalogDatabase.schemaVersion)
    // An edit of another field keeps the picture's directory; a new picture from the editor,
    // absolute, drops it.
    try writer.apply([edit(plum) { $0.year = 2021 }])
    #expect(writer.product(identifier: plum.identifier)?.imageDirectory == "/srv/shop")
    let renamed = try #require(writer.product(identifier: plum.identifier))
    try writer.apply([edit(renamed) { $0.imageName = "/home/me/plum.jpg" }])
    let edited = try #require(writer.product(identifier: plum.identifier))
    #expect(edited.imageDirectory == nil)
    #expect(edited.imagePath == "/home/me/plum.jpg")
  }

  @Test func addingAndDeletingKeepListNumbersDense() throws {
    let temporary = TemporaryDirectory()
    let database = try #require(
      try CatalogStore(directoryPath: temporary.path, seedPath: seed).load().database)
    let kiwi = Product(
      identifier: UUID(), name: "Kiwi", imageName: "", year: 2020, price: Price(cents: 150))
    try database.apply([.insert(kiwi)])
    #expect(database.count == 11)
    #expect(database.product(number: 11) == kiwi)
    #expect(throws: CatalogError.alreadyInCatalog(name: "Kiwi")) {
      try database.apply([.insert(kiwi)])
    }
    let ginger = try #require(database.product(number: 1))
    try database.apply([.delete(ginger.identifier, name: ginger.name)])
    #expect(database.count == 10)
    #expect(database.product(identifier: ginger.identifier) == nil)
    #expect(database.product(number: 1)?.name == "Gladiolus")
    #expect(database.number(of: kiwi.identifier) == 10)
    #expect(throws: CatalogError.productRemoved(name: "Ginger")) {
      try database.apply([.delete(ginger.identifier, name: ginger.name)])
    }
  }
}

@Suite struct CatalogReadFailureTests {
  /// A database damaged while it is open: reads answer as if products were missing, and the
  /// failure is kept, once, for the app to report.
  @Test func aReadFailureIsKeptForTheAppToReport() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: bundledCatalogPath)
    let database = try #require(try store.load().database)
    let products = (1...3_000).map { numberedProduct($0) }
    _ = try database.importProducts(products)
    // A connection open before the damage, which has read none of the products' pages.
    let reader = try CatalogDatabase(path: store.databasePath)
    #expect(reader.takeReadFailure() == nil)
    // Another program writes over every page but the first while the app runs.
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: store.databasePath))
    let size = try handle.seekToEnd()
    try handle.seek(toOffset: 4096)
    try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 4096))
    try handle.close()
    #expect(reader.product(number: 2_500) == nil)
    let failure = try #require(reader.takeReadFailure()?.reason)
    #expect(failure.contains("malformed") || failure.contains("not a database"), "\(failure)")
    #expect(reader.takeReadFailure() == nil)
  }
}
