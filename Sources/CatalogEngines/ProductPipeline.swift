import CatalogModel
import Dispatch
import Foundation
import Synchronization
import SystemSupport

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
    let reading: @Sendable () -> Void = { [self] in
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
    // Without a thread of its own, the products are read here, one after another.
    guard detachThread(reading) else { return try forEachProduct(body) }
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
private final class Handoff: Sendable {
  /// Thrown in the reading thread when the taker stopped.
  struct Stopped: Error {}

  private struct State {
    var batches: [[Product]] = []
    var failure: (any Error)?
    var stopped = false
  }
  private let state = Mutex(State())
  /// The places free for a batch.
  private let room: DispatchSemaphore
  /// One signal for each batch handed over, and one for the end of the reading.
  private let arrivals = DispatchSemaphore(value: 0)
  /// Signalled when the reading is over.
  private let ended = DispatchSemaphore(value: 0)

  init(capacity: Int) {
    // Made at 0 and given its places by signals: a semaphore freed below the value it was made
    // with stops the program, and a stopped reading leaves places unreturned.
    room = DispatchSemaphore(value: 0)
    for _ in 0..<capacity { room.signal() }
  }

  /// Hands a batch over, waiting while `capacity` wait already; false when the taker stopped.
  func put(_ batch: [Product]) -> Bool {
    room.wait()
    let handed = state.withLock { state in
      guard !state.stopped else { return false }
      state.batches.append(batch)
      return true
    }
    if handed { arrivals.signal() } else { room.signal() }
    return handed
  }

  /// The reading is over, with the error that ended it, if any.
  func finish(_ error: (any Error)?) {
    state.withLock { $0.failure = error }
    arrivals.signal()
    ended.signal()
  }

  /// The next batch; nil when the reading is over.
  ///
  /// - Throws: What ended the reading, once every batch before it was taken.
  func take() throws -> [Product]? {
    arrivals.wait()
    let (batch, failure) = state.withLock { state -> ([Product]?, (any Error)?) in
      state.batches.isEmpty ? (nil, state.failure) : (state.batches.removeFirst(), nil)
    }
    if let batch {
      room.signal()
      return batch
    }
    // The end stays signalled for a take after it.
    arrivals.signal()
    if let failure { throw failure }
    return nil
  }

  /// Stops the reading and waits until it is over: no batch is taken after this.
  func stop() {
    state.withLock { state in
      state.stopped = true
      state.batches.removeAll()
    }
    // A reader waiting for room wakes, and finds the taker gone.
    room.signal()
    ended.wait()
    ended.signal()
  }
}
