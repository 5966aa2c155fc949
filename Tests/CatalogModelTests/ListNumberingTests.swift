import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import SQLite
import TestSupport
import Testing

/// List numbers found from block counts, checked against a plain array of the products that
/// is renumbered the slow way.
@Suite struct ListNumberingTests {
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
