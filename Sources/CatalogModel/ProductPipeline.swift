import Foundation

extension ProductSequence {
  /// Calls a body with each product in order, as ``forEachProduct(_:)`` does, while the
  /// products are read on a thread of their own, up to `ahead` batches ahead: an import parses
  /// and checks its records beside SQLite's storing them, on two cores at once.
  ///
  /// What the reading throws is thrown here once every product before it has been through the
  /// body; what the body throws stops the reading, which is over when this returns.
  ///
  /// - Parameters:
  ///   - batchSize: How many products are handed over at a time.
  ///   - ahead: How many batches the reading may get ahead of the body.
  ///   - body: What to do with each product, on the caller's thread.
  /// - Throws: What the reading or the body throws.
  func forEachProductReadAhead(
    batchSize: Int = 1_000, ahead: Int = 8, _ body: (Product) throws -> Void
  ) throws {
    let handoff = Handoff(capacity: max(1, ahead))
    let reading = Thread { [self] in
      var batch: [Product] = []
      batch.reserveCapacity(batchSize)
      do {
        try forEachProduct { product in
          batch.append(product)
          guard batch.count >= batchSize else { return }
          guard handoff.put(batch) else { throw Handoff.Stopped() }
          batch.removeAll(keepingCapacity: true)
        }
        if !batch.isEmpty { _ = handoff.put(batch) }
        handoff.finish(nil)
      } catch {
        // The products read before a bad record go first.
        if !(error is Handoff.Stopped) && !batch.isEmpty { _ = handoff.put(batch) }
        handoff.finish(error)
      }
    }
    reading.start()
    do {
      while let batch = try handoff.take() {
        for product in batch { try body(product) }
      }
    } catch {
      handoff.stop()
      throw error
    }
  }
}

/// Batches of products handed from the thread that reads them to the one that stores them.
private final class Handoff: @unchecked Sendable {
  /// Thrown in the reading thread when the taker stopped.
  struct Stopped: Error {}

  private let condition = NSCondition()
  private let capacity: Int
  // Guarded by `condition`.
  private var batches: [[Product]] = []
  private var finished = false
  private var failure: (any Error)?
  private var stopped = false

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// Hands a batch over, waiting while `capacity` wait already; false when the taker stopped.
  func put(_ batch: [Product]) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while batches.count >= capacity && !stopped { condition.wait() }
    guard !stopped else { return false }
    batches.append(batch)
    condition.broadcast()
    return true
  }

  /// The reading is over, with the error that ended it, if any.
  func finish(_ error: (any Error)?) {
    condition.lock()
    defer { condition.unlock() }
    finished = true
    failure = error
    condition.broadcast()
  }

  /// The next batch; nil when the reading is over.
  ///
  /// - Throws: What ended the reading, once every batch before it was taken.
  func take() throws -> [Product]? {
    condition.lock()
    defer { condition.unlock() }
    while batches.isEmpty && !finished { condition.wait() }
    if !batches.isEmpty {
      condition.broadcast()
      return batches.removeFirst()
    }
    if let failure { throw failure }
    return nil
  }

  /// Stops the reading and waits until it is over: no batch is taken after this.
  func stop() {
    condition.lock()
    defer { condition.unlock() }
    stopped = true
    batches.removeAll()
    condition.broadcast()
    while !finished { condition.wait() }
  }
}
