import CatalogTestSupport
import Foundation
import Synchronization
import Testing

@testable import CatalogEngines
@testable import CatalogModel

/// Products read on a thread of their own reach the body in order; a bad record is thrown
/// after every product before it; a body that stops ends the reading.
@Suite struct ProductPipelineTests {
  /// Products numbered from 1, with an error in place of one of them; counts what it made.
  struct Numbered: ProductSequence {
    let count: Int
    var failing: Int?
    let made = Counter()

    final class Counter: Sendable {
      private let value = Mutex(0)
      func add() { value.withLock { $0 += 1 } }
      var count: Int { value.withLock { $0 } }
    }

    struct Bad: Error, Equatable { let number: Int }

    func forEachProduct(_ body: (Product) throws -> Void) throws {
      for number in 1...count {
        if number == failing { throw Bad(number: number) }
        made.add()
        try body(numberedProduct(number))
      }
    }
  }

  @Test(arguments: [1, 999, 1_000, 1_001, 25_000])
  func productsArriveInOrder(count: Int) throws {
    var cents: [Int] = []
    try Numbered(count: count).forEachProductReadAhead(batchSize: 1_000, ahead: 2) {
      cents.append($0.price.cents)
    }
    #expect(cents == Array(1...count))
  }

  @Test(arguments: [1, 1_000, 1_001, 7_777])
  func aBadRecordComesAfterEveryProductBeforeIt(failing: Int) {
    var seen = 0
    #expect(throws: Numbered.Bad(number: failing)) {
      try Numbered(count: 10_000, failing: failing).forEachProductReadAhead(
        batchSize: 1_000, ahead: 2
      ) { _ in seen += 1 }
    }
    #expect(seen == failing - 1)
  }

  @Test func aBodyThatStopsEndsTheReading() {
    struct Enough: Error {}
    let products = Numbered(count: 1_000_000)
    #expect(throws: Enough.self) {
      try products.forEachProductReadAhead(batchSize: 100, ahead: 2) { product in
        if product.price.cents == 150 { throw Enough() }
      }
    }
    // Over when it returns: no more is made after, and never much more than was taken.
    let made = products.made.count
    #expect(made <= 150 + 100 * 4)
    Thread.sleep(forTimeInterval: 0.05)
    #expect(products.made.count == made)
  }

  /// A body that stops while the reading is ahead by every batch it may hold: the batches
  /// dropped unread leave the queue as it can be freed, and nothing stops the program.
  @Test func aBodyThatStopsWhileTheQueueIsFullEndsCleanly() {
    struct Enough: Error {}
    for _ in 0..<5 {
      let products = Numbered(count: 100_000)
      #expect(throws: Enough.self) {
        try products.forEachProductReadAhead(batchSize: 10, ahead: 4) { _ in
          // The reading fills the queue meanwhile.
          Thread.sleep(forTimeInterval: 0.02)
          throw Enough()
        }
      }
      #expect(products.made.count <= 10 * 7)
    }
  }
}
