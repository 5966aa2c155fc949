import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import SearchIndex
import TestSupport
import Testing

@testable import CatalogApp
@testable import CatalogCore

/// The index file, with the catalog's changes since it was built laid over it, must answer as
/// an index built from the catalog now does.
@Suite struct CatalogSearchIndexTests {
  static let words = [
    "Red", "Rose", "Roses", "Mango", "Golden", "Gold", "Wild", "Cherry", "Cherries", "Tulip",
    "Lemon", "Melon", "Crème", "Brûlée", "Café", "K1f3", "K9a", "樱桃", "玫瑰", "さくら",
  ]

  static func product(_ generator: inout SeededGenerator) -> Product {
    func words(_ range: ClosedRange<Int>) -> [String] {
      (0..<Int.random(in: range, using: &generator)).map { _ in
        Self.words.randomElement(using: &generator) ?? "Rose"
      }
    }
    return Product(
      identifier: UUID(), name: words(1...3).joined(separator: " "), imageName: "", year: 2020,
      price: Price(cents: 100), keywords: words(0...2))
  }

  /// The identifiers and scores a search finds.
  static func found(_ search: ActivitySearch, _ query: String) throws -> [String] {
    try search.results(for: query, history: [], now: Date(), limit: 15).map {
      "\($0.product.identifier) \($0.score)"
    }
  }

  @Test(arguments: [1, 2, 3] as [UInt64])
  func theFileWithItsOverlayAgreesWithABuildFromScratch(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path, seedPath: bundledCatalogPath)
    let database = try #require(try store.load().database)
    _ = try database.importProducts((0..<300).map { _ in Self.product(&generator) })
    let path = store.searchIndexPath
    var live = try CatalogSearchIndex.open(path, database: database, note: { _ in })
    let built = try Data(contentsOf: URL(fileURLWithPath: path))
    // Another process changes the catalog.
    let other = try CatalogDatabase(path: store.databasePath)
    for round in 0..<40 {
      let count = other.count
      switch Int.random(in: 0..<4, using: &generator) {
      case 0:
        let product = try #require(
          other.product(number: Int.random(in: 1...count, using: &generator)))
        var fields = ProductFields(product)
        fields.name = Self.product(&generator).name
        try other.apply([
          .edit(
            ProductChange(
              identifier: product.identifier, base: ProductFields(product), edited: fields))
        ])
      case 1:
        try other.apply([.insert(Self.product(&generator))])
      default:
        // Near the front, the middle and the end; added products too.
        let number = [1, count / 2, count, Int.random(in: 1...count, using: &generator)][round % 4]
        let product = try #require(other.product(number: number))
        try other.apply([.delete(product.identifier, name: product.name)])
      }
      try database.refresh()
      let catalog = Catalog(source: database)
      // This process follows the changes; a new one opens the file; both use it as built.
      #expect(try live.update(from: database))
      let opened = try CatalogSearchIndex.open(path, database: database, note: { _ in })
      let reference = ActivitySearch(catalog: catalog)
      for query in ["rose", "gold", "cher", "melon red", "樱桃", "k1", "cafe", "goldn"] {
        let expected = try Self.found(reference, query)
        #expect(try Self.found(ActivitySearch(catalog: catalog, index: live), query) == expected)
        #expect(try Self.found(ActivitySearch(catalog: catalog, index: opened), query) == expected)
      }
      #expect(live.overlayCount > 0)
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == built)
  }

  @Test func aStaleOrForeignFileIsBuiltAgain() throws {
    var generator = SeededGenerator(seed: 9)
    let temporary = TemporaryDirectory()
    let store = CatalogStore(directoryPath: temporary.path + "/a", seedPath: bundledCatalogPath)
    let database = try #require(try store.load().database)
    _ = try CatalogSearchIndex.open(store.searchIndexPath, database: database, note: { _ in })
    // Another catalog's file.
    let otherStore = CatalogStore(
      directoryPath: temporary.path + "/b", seedPath: bundledCatalogPath)
    let otherDatabase = try #require(try otherStore.load().database)
    _ = try otherDatabase.importProducts([Self.product(&generator)])
    _ = try CatalogSearchIndex.open(
      otherStore.searchIndexPath, database: otherDatabase, note: { _ in })
    try FileManager.default.removeItem(atPath: store.searchIndexPath)
    try FileManager.default.copyItem(
      atPath: otherStore.searchIndexPath, toPath: store.searchIndexPath)
    let index = try CatalogSearchIndex.open(
      store.searchIndexPath, database: database, note: { _ in })
    #expect(index.index.count == 10)
    let reopened = try SearchIndex(contentsOf: store.searchIndexPath)
    #expect(reopened.origin?.source == database.identity)
    #expect(reopened.count == 10)
  }
}
