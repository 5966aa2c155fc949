import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import SystemSupport
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

  /// Every scene file's list, read again only for a file that changed: one changed in place,
  /// its size and time kept, is read from memory once it has settled.
  @Test func sceneFilesAreReadAgainOnlyWhenTheyChange() throws {
    let folder = TemporaryDirectory()
    let directory = try StateDirectory(creating: folder.path)
    var file = SceneFile(name: .main, storage: SceneStorageValues())
    file.pendingActivities = [entry(1, at: 10)]
    try directory.save(file, to: SceneFile.path(for: .main))
    let path = directory.path(of: SceneFile.path(for: .main))
    // Settled: changed a minute ago.
    var times = [
      timeval(tv_sec: time(nil) - 60, tv_usec: 0), timeval(tv_sec: time(nil) - 60, tv_usec: 0),
    ]
    #expect(utimes(path, &times) == 0)
    let reader = SceneFileActivities(in: directory)
    #expect(reader.read() == [entry(1, at: 10)])
    // The same bytes' length, another product, the old time: taken for the file read before.
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let other = text.replacingOccurrences(
      of: bundledProducts[1].identifier.canonicalText,
      with: bundledProducts[2].identifier.canonicalText)
    #expect(other != text && other.utf8.count == text.utf8.count)
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.write(contentsOf: Data(other.utf8))
    try handle.close()
    #expect(utimes(path, &times) == 0)
    #expect(reader.read() == [entry(1, at: 10)])
    // Changed now: read again.
    #expect(utimes(path, nil) == 0)
    #expect(reader.read() == [entry(2, at: 10)])
    #expect(SceneFileActivities(in: directory).read() == [entry(2, at: 10)])
  }
}
