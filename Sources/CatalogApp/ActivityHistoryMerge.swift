import ActivityIndex
import CatalogCore
import Foundation
import StateRestoration
import Synchronization
import SystemSupport

/// The activity history as it really is: `activities.sqlite`, plus the activities scene files
/// keep until their next batch goes into it (``PendingActivity``, ``CommandSave``) and the
/// activity each advertises (which a process killed before an earlier version's history write
/// left there alone).
package enum ActivityHistoryMerge {
  /// The newest activity of each key that is newer than the history knows it.
  ///
  /// - Parameters:
  ///   - activities: Activities from scene files.
  ///   - lastActive: When the history last knew a key (saved or forgotten); nil when never.
  /// - Returns: The activities, oldest first.
  package static func newer(
    _ activities: [PendingActivity], than lastActive: (String) -> Date?
  ) -> [PendingActivity] {
    var newer: [String: PendingActivity] = [:]
    for activity in activities {
      guard activity.lastActiveDate > lastActive(activity.historyKey) ?? .distantPast,
        activity.lastActiveDate > newer[activity.historyKey]?.lastActiveDate ?? .distantPast
      else { continue }
      newer[activity.historyKey] = activity
    }
    return newer.values.sorted { $0.lastActiveDate < $1.lastActiveDate }
  }

  /// The history's entries with what only the scene files hold (``SceneFileActivities``):
  /// what a search ranks by.
  ///
  /// - Parameters:
  ///   - activities: What the scene files keep for the history.
  ///   - entries: The history's entries.
  ///   - history: The history's database, asked when it last knew each scene activity's key,
  ///     deletions included (a forgotten activity stays forgotten); when it cannot answer, the
  ///     entries alone.
  /// - Returns: The entries, newer scene activities replacing older entries.
  package static func merged(
    _ activities: [PendingActivity], with entries: [ActivityHistory.Entry],
    history: ActivityHistory
  ) -> [ActivityHistory.Entry] {
    guard !activities.isEmpty,
      let lastKnown = try? history.lastKnownDates(historyKeys: activities.map(\.historyKey))
    else { return entries }
    // What the database knew of these keys, deletions included: a forgotten activity stays
    // forgotten. One read for all of them.
    var known = lastKnown
    for entry in entries {
      let date = entry.lastActiveDate ?? .distantPast
      if date > known[entry.historyKey] ?? .distantPast { known[entry.historyKey] = date }
    }
    let newer = newer(activities, than: { known[$0] })
    let replaced = Set(newer.map(\.historyKey))
    return newer.map(entry(of:)) + entries.filter { !replaced.contains($0.historyKey) }
  }

  /// A pending activity as a history entry: the app's activities that are saved for search
  /// show a product, whose identifier is their history key and target.
  private static func entry(of activity: PendingActivity) -> ActivityHistory.Entry {
    ActivityHistory.Entry(
      historyKey: activity.historyKey, activityType: ProductActivity.type,
      targetContentIdentifier: activity.historyKey, lastActiveDate: activity.lastActiveDate,
      expirationDate: nil)
  }
}

/// What the scene files of a state directory keep for the activity history
/// (`SceneFile.unsavedActivities`), read without writing anything. A file is read again only
/// when it changed (another inode, size or modification time) or changed too recently for its
/// time to tell two changes apart: a REPL searches many times, and its scene files change one
/// at a time. A file that cannot be read is left out (the launch that restores its scene sets
/// it aside).
package final class SceneFileActivities: Sendable {
  /// The state directory.
  private let directory: StateDirectory
  /// Each file's activities, by file name, with the file's identity and last change when read.
  private let files = Mutex<[String: (stamp: [Int64], activities: [PendingActivity])]>([:])

  /// Creates the reader of a state directory's scene files.
  ///
  /// - Parameter directory: The state directory.
  package init(in directory: StateDirectory) {
    self.directory = directory
  }

  /// The activities every scene file keeps now.
  ///
  /// - Returns: The activities, file by file.
  package func read() -> [PendingActivity] {
    files.withLock { files in
      var current: [String: (stamp: [Int64], activities: [PendingActivity])] = [:]
      for name in SessionFile.sceneNamesOnDisk(in: directory) {
        let path = SceneFile.path(for: name)
        var status = stat()
        guard lstat(directory.path(of: path), &status) == 0 else { continue }
        let stamp = [
          Int64(bitPattern: UInt64(status.st_dev)), Int64(bitPattern: UInt64(status.st_ino)),
          Int64(status.st_size), Int64(status.st_mtim.tv_sec), Int64(status.st_mtim.tv_nsec),
        ]
        // A file's time has the file system's granularity: one changed in the last seconds may
        // change again within the same tick, the same size, with its old inode number.
        let settled = Int64(time(nil)) - Int64(status.st_mtim.tv_sec) > 2
        if settled, let known = files[name.rawValue], known.stamp == stamp {
          current[name.rawValue] = known
        } else {
          let file = (try? SceneFile.read(name, in: directory)) ?? nil
          current[name.rawValue] = (stamp, file?.unsavedActivities ?? [])
        }
      }
      files = current
      return current.keys.sorted().flatMap { current[$0]?.activities ?? [] }
    }
  }
}
