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
    var ginger = catalog.products[0]
    ginger.name = "Ginger Root"
    var mango = catalog.products[6]
    mango.price = Price(cents: 799)
    _ = try first.save(ginger)
    let merged = try second.save(mango)  // saved from a stale in-memory catalog
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
    #expect(loaded.warning?.contains("edits are refused") == true)
    #expect(loaded.catalog.products.count == 10)  // the bundled catalog
    #expect(throws: CatalogError.self) { try store.save(loaded.catalog.products[0]) }
    #expect(try DurableFile.read(store.filePath, limit: 1 << 20) == Data(contents.utf8))
  }
}
