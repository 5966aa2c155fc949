import Foundation
import Synchronization
import Testing

@testable import SystemSupport

/// Work on a thread of its own: its result for every waiter, and a start the caller chooses.
@Suite struct BackgroundWorkTests {
  @Test func everyWaiterGetsTheResult() async {
    let work = BackgroundWork { 6 * 7 }
    let results = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<4 { group.addTask { work.wait() } }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results == [42, 42, 42, 42])
  }

  /// Made under a lock and started after it, the work runs once, and not before it starts.
  @Test func workMadeToStartLaterRunsOnceWhenStarted() throws {
    final class Runs: Sendable { let count = Atomic(0) }
    let runs = Runs()
    let work = BackgroundWork.startingLater { runs.count.add(1, ordering: .relaxed).newValue }
    Thread.sleep(forTimeInterval: 0.02)
    #expect(runs.count.load(ordering: .relaxed) == 0)
    work.start()
    work.start()
    #expect(work.wait() == 1)
    #expect(runs.count.load(ordering: .relaxed) == 1)
  }
}
