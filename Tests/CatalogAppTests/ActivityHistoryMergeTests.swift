import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import TestSupport
import Testing

@testable import CatalogApp
@testable import CatalogCore

/// What a launch merges into the activity history from the scene files a crash left.
@Suite struct ActivityHistoryMergeTests {
  @Test func onlyNewerDatedSearchableActivitiesAreRecovered() {
    func show(_ index: Int, at seconds: Double?) -> UserActivityRecord {
      var record = ProductActivity.show(bundledProducts[index])
      record.lastActiveDate = seconds.map { Date(timeIntervalSinceReferenceDate: $0) }
      return record
    }
    let history = [show(8, at: 100), show(6, at: 100)]
    var dropped = ProductActivity.dropped(bundledProducts[0])
    dropped.lastActiveDate = Date(timeIntervalSinceReferenceDate: 500)
    let candidates = [
      show(8, at: 50),  // older than the history's: nothing to do
      show(6, at: 200), show(6, at: 300),  // newer: the newest of the two
      show(1, at: nil),  // never became current
      dropped,  // not for search
      show(2, at: 150),
    ]
    let newer = ActivityHistoryMerge.newer(candidates, than: history)
    #expect(newer.map(\.title) == ["Show Orchid product", "Show Mango product"])
    #expect(newer.last?.lastActiveDate == Date(timeIntervalSinceReferenceDate: 300))
  }
}
