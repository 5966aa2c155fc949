import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import TestSupport
import Testing

@testable import CatalogApp
@testable import CatalogCore

/// What the scene files keep that the activity history may not hold, and what of it is newer.
@Suite struct ActivityHistoryMergeTests {
  func entry(_ index: Int, at seconds: Double) -> PendingActivity {
    PendingActivity(
      historyKey: bundledProducts[index].identifier.canonicalText,
      lastActiveDate: Date(timeIntervalSinceReferenceDate: seconds))
  }

  @Test func onlyTheNewestOfAKeyNewerThanTheHistoryIsKept() {
    let known = [entry(8, at: 100), entry(6, at: 100)]
    let candidates = [
      entry(8, at: 50),  // older than the history's: nothing to do
      entry(6, at: 200), entry(6, at: 300),  // newer: the newest of the two
      entry(2, at: 150),
    ]
    let lastActive = Dictionary(
      uniqueKeysWithValues: known.map { ($0.historyKey, $0.lastActiveDate) })
    let newer = ActivityHistoryMerge.newer(candidates, than: { lastActive[$0] })
    #expect(newer == [entry(2, at: 150), entry(6, at: 300)])
  }

  /// A file's pending list, and the activity it advertises when that became current eligible
  /// for search (an earlier version's file holds that one alone), each key once.
  @Test func aSceneFileKeepsItsListAndItsDatedSearchableActivity() {
    var file = SceneFile(name: .main, storage: SceneStorageValues())
    file.pendingActivities = [entry(1, at: 10)]
    file.activity = ProductActivity.show(bundledProducts[2])
    #expect(file.unsavedActivities == [entry(1, at: 10)], "never current")
    file.activity?.lastActiveDate = Date(timeIntervalSinceReferenceDate: 20)
    #expect(file.unsavedActivities == [entry(1, at: 10), entry(2, at: 20)])
    file.pendingActivities.append(entry(2, at: 20))
    #expect(file.unsavedActivities == [entry(1, at: 10), entry(2, at: 20)], "once")
    file.pendingActivities = [entry(1, at: 10)]
    var dropped = ProductActivity.dropped(bundledProducts[0])
    dropped.lastActiveDate = Date(timeIntervalSinceReferenceDate: 500)
    file.activity = dropped
    #expect(file.unsavedActivities == [entry(1, at: 10)], "not for search")
  }
}
