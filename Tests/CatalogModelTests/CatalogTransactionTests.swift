import Foundation
import Testing

@testable import CatalogEngines
@testable import CatalogModel

/// The logic of a write, once for every engine, on an engine of products in memory: what a
/// third engine would give is its steps, and the merge, numbering and change log come with them.
@Suite struct CatalogTransactionTests {
  /// An engine in memory that logs its steps.
  class MemoryEngine: CatalogTransaction {
    var rows: [UUID: (position: Int, product: Product)] = [:]
    var generation = 0
    var deletions: [(number: Int, identifier: UUID, generation: Int)] = []
    var steps: [String] = []
    var updated: [[String]] = []

    init(_ products: [Product]) {
      for (offset, product) in products.enumerated() {
        rows[product.identifier] = (offset + 1, product)
      }
    }

    func nextGeneration() throws -> Int {
      generation += 1
      return generation
    }
    func lockedProduct(_ identifier: UUID) throws -> Product? { rows[identifier]?.product }
    func contains(_ identifier: UUID) throws -> Bool { rows[identifier] != nil }
    func largestPosition() throws -> Int { rows.values.map(\.position).max() ?? 0 }
    func insert(_ product: Product, position: Int, generation: Int) throws {
      rows[product.identifier] = (position, product)
      steps.append("insert \(position)")
    }
    func update(_ identifier: UUID, setting columns: [(name: String, value: ColumnValue)]) throws {
      updated.append(columns.map(\.name))
      guard var row = rows[identifier] else { return }
      for (name, value) in columns {
        if name == "price_cents", case .integer(let cents) = value {
          row.product.price = Price(cents: cents)
        }
        if name == "name", case .text(let text) = value { row.product.name = text }
      }
      rows[identifier] = row
    }
    func lockedPosition(of identifier: UUID) throws -> Int? { rows[identifier]?.position }
    func number(ofPosition position: Int) throws -> Int? {
      rows.values.filter { $0.position <= position }.count
    }
    func deleteRow(_ identifier: UUID) throws {
      rows[identifier] = nil
      steps.append("delete")
    }
    func logDeletion(number: Int, identifier: UUID, generation: Int) throws {
      deletions.append((number, identifier, generation))
      steps.append("log \(number)")
    }
    func countAdded(at position: Int) throws { steps.append("count +\(position)") }
    func countRemoved(at position: Int) throws { steps.append("count -\(position)") }
  }

  let products = (1...3).map {
    Product(
      identifier: UUID(), name: "P\($0)", imageName: "", year: 2000, price: Price(cents: $0 * 100))
  }

  @Test func anEditSetsOnlyTheFieldsItChangedAndKeepsAnotherWritersField() throws {
    let engine = MemoryEngine(products)
    let began = ProductFields(products[0])
    var edited = began
    edited.price = Price(cents: 999)
    // Another process renamed it meanwhile: the rename is kept, the price is the draft's.
    engine.rows[products[0].identifier]?.product.name = "Renamed"
    try engine.apply([
      .edit(ProductChange(identifier: products[0].identifier, base: began, edited: edited))
    ])
    #expect(engine.updated == [["price_cents", "changed"]])
    #expect(engine.rows[products[0].identifier]?.product.name == "Renamed")
    #expect(engine.rows[products[0].identifier]?.product.price == Price(cents: 999))
  }

  @Test func aFieldBothChangedIsAConflictAndNothingIsWritten() throws {
    let engine = MemoryEngine(products)
    let began = ProductFields(products[1])
    var edited = began
    edited.price = Price(cents: 1)
    engine.rows[products[1].identifier]?.product.price = Price(cents: 2)
    #expect(throws: CatalogError.self) {
      try engine.apply([
        .edit(ProductChange(identifier: products[1].identifier, base: began, edited: edited))
      ])
    }
    #expect(engine.updated.isEmpty)
  }

  @Test func anInsertGoesAfterTheLastAndADeletionIsLoggedByItsNumber() throws {
    let engine = MemoryEngine(products)
    let new = Product(
      identifier: UUID(), name: "New", imageName: "", year: 2001, price: Price(cents: 5))
    try engine.apply([
      .insert(new), .delete(products[1].identifier, name: products[1].name),
    ])
    #expect(engine.steps == ["insert 4", "count +4", "delete", "log 2", "count -2"])
    #expect(engine.deletions.map(\.generation) == [1])
  }

  @Test func aProductAlreadyThereOrGoneIsRefused() throws {
    let engine = MemoryEngine(products)
    #expect(throws: CatalogError.alreadyInCatalog(name: "P1")) {
      try engine.apply([.insert(products[0])])
    }
    #expect(throws: CatalogError.productRemoved(name: "Gone")) {
      try engine.apply([.delete(UUID(), name: "Gone")])
    }
  }

  @Test func aPositionBeyondAnyCatalogIsDamageNotAnOverflow() throws {
    let engine = MemoryEngine([])
    engine.rows[UUID()] = (
      Int.max,
      Product(identifier: UUID(), name: "X", imageName: "", year: 2000, price: Price(cents: 1))
    )
    #expect(throws: CatalogError.self) {
      try engine.apply([
        .insert(
          Product(identifier: UUID(), name: "Y", imageName: "", year: 2000, price: Price(cents: 1)))
      ])
    }
  }
}

/// The logic of an import's merge, once for every engine, on an engine in memory.
@Suite struct ImportTransactionTests {
  final class MemoryImport: CatalogTransactionTests.MemoryEngine, ImportTransaction {
    var staged: [Product] = []
    var identity = 1
    var recounted: [Int] = []
    var seeded: CatalogSeeding?
    var appendedAfter: Int?

    func prepareStaged() throws {}
    func matchByName(_ made: [UUID], _ policy: ImportOptions.DuplicateNames) throws {}
    func failIfRepeated() throws {}
    func leaveOutDeleted(restoring: Bool) throws -> Int { 0 }
    func updateChanged() throws -> Int {
      var changed = 0
      for product in staged {
        guard let row = rows[product.identifier], row.product != product else { continue }
        rows[product.identifier] = (row.position, product)
        changed += 1
      }
      return changed
    }
    func countMatched() throws -> Int { staged.count { rows[$0.identifier] != nil } }
    func removeUnstaged(generation: Int) throws -> Int {
      let kept = Set(staged.map(\.identifier))
      let removed = rows.keys.filter { !kept.contains($0) }
      for identifier in removed { rows[identifier] = nil }
      return removed.count
    }
    func renewIdentity() throws { identity += 1 }
    func productCount() throws -> Int { rows.count }
    func appendNew(after position: Int, rebuildingIndexes: Bool, matched: Int) throws {
      appendedAfter = position
      var next = position
      for product in staged where rows[product.identifier] == nil {
        next += 1
        rows[product.identifier] = (next, product)
      }
    }
    func recountBlocks(from position: Int) throws { recounted.append(position) }
    func markSeeded(_ seeding: CatalogSeeding) throws { seeded = seeding }
  }

  let products = (1...3).map {
    Product(
      identifier: UUID(), name: "P\($0)", imageName: "", year: 2000, price: Price(cents: $0 * 100))
  }

  @Test func anImportUpdatesWhatDiffersAndAppendsWhatIsNew() throws {
    let engine = MemoryImport(products)
    var changed = products[0]
    changed.price = Price(cents: 1)
    let new = Product(
      identifier: UUID(), name: "New", imageName: "", year: 2001, price: Price(cents: 5))
    engine.staged = [changed, products[1], new]
    let summary = try engine.mergeStaged(
      read: 3, generation: 1, seeding: .bundled, options: ImportOptions(), madeIdentifiers: { [] })
    #expect(summary.updated == 1 && summary.unchanged == 1 && summary.inserted == 1)
    #expect(summary.removed == 0)
    #expect(engine.appendedAfter == 3)
    #expect(engine.rows[new.identifier]?.position == 4)
    #expect(engine.recounted == [4])
    #expect(engine.identity == 1)
    #expect(engine.seeded == .bundled)
  }

  @Test func aReplacingImportRemovesWhatTheFileLacksAndRenewsTheIdentity() throws {
    let engine = MemoryImport(products)
    engine.staged = [products[2]]
    var options = ImportOptions()
    options.replacing = true
    let summary = try engine.mergeStaged(
      read: 1, generation: 1, seeding: nil, options: options, madeIdentifiers: { [] })
    #expect(summary.removed == 2 && summary.unchanged == 1 && summary.inserted == 0)
    #expect(engine.recounted == [1])
    #expect(engine.identity == 2)
    #expect(engine.appendedAfter == nil)
    #expect(engine.seeded == nil)
  }
}
