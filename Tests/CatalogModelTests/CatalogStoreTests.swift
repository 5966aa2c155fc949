import CatalogModel
import Foundation
import StateRestoration
import TestSupport
import Testing

@Suite struct CatalogStoreTests {
  let seed = bundledCatalogPath

  @Test func theFirstLoadCopiesTheSeedAndLeavesItUntouched() throws {
    let temporary = TemporaryDirectory()
    let before = try Data(contentsOf: URL(fileURLWithPath: seed))
    let store = CatalogStore(directoryPath: temporary.path + "/data", seedPath: seed)
    let loaded = try store.load()
    #expect(loaded.readOnlyReason == nil)
    #expect(loaded.catalog.products.count == 10)
    let copy = try #require(try DurableFile.read(store.filePath, limit: 1 << 20))
    #expect(try CatalogFile.parse(copy, path: store.filePath).formatVersion == 1)
    #expect(try Data(contentsOf: URL(fileURLWithPath: seed)) == before)
  }

  @Test func editsFromTwoStoresOnTheSameFileAreBothKept() throws {
    let temporary = TemporaryDirectory()
    let first = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let second = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let catalog = try first.load().catalog
    _ = try second.load()
    let ginger = catalog.products[0]
    let mango = catalog.products[6]
    var renamed = ProductFields(ginger)
    renamed.name = "Ginger Root"
    var repriced = ProductFields(mango)
    repriced.price = Price(cents: 799)
    _ = try first.save([
      ProductChange(identifier: ginger.identifier, base: ProductFields(ginger), edited: renamed)
    ])
    // Saved from a stale in-memory catalog.
    let merged = try second.save([
      ProductChange(identifier: mango.identifier, base: ProductFields(mango), edited: repriced)
    ])
    #expect(merged.products[0].name == "Ginger Root")
    #expect(merged.products[6].price == Price(cents: 799))
    let reloaded = try first.load().catalog
    #expect(reloaded == merged)
  }

  @Test(arguments: [
    "{\"formatVersion\": 1, \"products\": [{\"name\": 3}]}", "garbage",
    "{\"formatVersion\": 7, \"products\": []}",
  ])
  func anUnreadableCatalogIsNeverOverwrittenAndEditsAreRefused(_ contents: String) throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    try DurableFile.write(Data(contents.utf8), to: store.filePath)
    let loaded = try store.load()
    #expect(loaded.readOnlyReason != nil)
    #expect(loaded.warnings.first?.contains("edits are refused") == true)
    #expect(loaded.catalog.products.count == 10)  // the bundled catalog
    let product = loaded.catalog.products[0]
    #expect(throws: CatalogError.self) {
      try store.save([
        ProductChange(
          identifier: product.identifier, base: nil, edited: ProductFields(product))
      ])
    }
    #expect(try DurableFile.read(store.filePath, limit: 1 << 20) == Data(contents.utf8))
  }

  @Test func anotherProcesssChangeToTheSameFieldIsRefusedWithBothValues() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    let cherries = try store.load().catalog.products[8]
    var theirs = ProductFields(cherries)
    theirs.price = Price(cents: 500)
    var yours = ProductFields(cherries)
    yours.price = Price(cents: 1200)
    _ = try store.save([
      ProductChange(identifier: cherries.identifier, base: ProductFields(cherries), edited: theirs)
    ])
    let before = try DurableFile.read(store.filePath, limit: 1 << 20)
    let change = ProductChange(
      identifier: cherries.identifier, base: ProductFields(cherries), edited: yours)
    #expect(
      throws: CatalogError.editConflict(
        product: "Cherries", field: "price", theirs: "$5.00", yours: "$12.00",
        keepTheirs: "price 5.00")
    ) {
      try store.save([change])
    }
    #expect(try DurableFile.read(store.filePath, limit: 1 << 20) == before)
    var forced = change
    forced.overridesConflicts = true
    #expect(try store.save([forced])[cherries.identifier]?.price == Price(cents: 1200))
  }

  @Test func productsBreakingTheEditorsRulesAreLeftOutButKept() throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    var products = bundledProducts
    products[1].name = String(repeating: "n", count: 1_000_000)
    products[3].name = "Bad\u{1B}[2J"
    products[5].year = 1492
    try DurableFile.write(
      try CatalogFile(products: products).encoded(), to: store.filePath)
    let loaded = try store.load()
    #expect(loaded.readOnlyReason == nil)
    #expect(loaded.catalog.products.count == 7)
    #expect(loaded.catalog.products.allSatisfy { $0.ruleViolation == nil })
    #expect(loaded.warnings.count == 1)
    let warning = try #require(loaded.warnings.first)
    #expect(warning.contains("3 products that break the editor's rules"))
    #expect(warning.contains("record 2: the name has 1000000 characters; the limit is 100"))
    #expect(warning.contains("record 4: the name contains the control character U+001B"))
    #expect(warning.contains("record 6: the year 1492 is not from 1900 to 2100"))
    // An edit saves the file with the products left out still in it.
    let mango = loaded.catalog.products.first { $0.name == "Mango" }
    let product = try #require(mango)
    var edited = ProductFields(product)
    edited.year = 2020
    _ = try store.save([
      ProductChange(identifier: product.identifier, base: ProductFields(product), edited: edited)
    ])
    let data = try #require(try DurableFile.read(store.filePath, limit: 1 << 24))
    let saved = try CatalogFile.parse(data, path: store.filePath).products
    #expect(saved.count == 10)
    #expect(saved[1].name.count == 1_000_000)
  }

  @Test(arguments: ["[]", "{\"formatVersion\": 1, \"products\": []}"])
  func anEmptyCatalogIsReportedAndLookupsDoNotCrash(_ contents: String) throws {
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: seed)
    try DurableFile.write(Data(contents.utf8), to: store.filePath)
    let loaded = try store.load()
    #expect(loaded.catalog.products.isEmpty)
    #expect(loaded.warnings == ["the catalog '\(store.filePath)' has no products"])
    for reference in ["1", "0", "-1", "cher", "FA542E3D-0C80-496D-A665-15E84FD7B5C7"] {
      #expect(throws: CatalogError.self) { try loaded.catalog.product(matching: reference) }
    }
    #expect(
      throws: CatalogError.numberOutOfRange(1, count: 0)
    ) { try loaded.catalog.product(matching: "1") }
  }
}
