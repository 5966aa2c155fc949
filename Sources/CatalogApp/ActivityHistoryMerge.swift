import ActivityIndex
import CatalogCore
import Foundation
import StateRestoration
import SystemSupport

/// The activity history as it really is: `activities.sqlite`, plus the activities scene files
/// keep until their next batch goes into it (``PendingActivity``, ``CommandSave``) and the
/// activity each advertises (which a process killed before an earlier version's history write
/// left there alone).
package enum ActivityHistoryMerge {
  /// What every scene file in a state directory keeps for the history
  /// (`SceneFile.unsavedActivities`), read without writing anything; a file that cannot be
  /// read is left out (the launch that restores its scene sets it aside).
  ///
  /// - Parameter directory: The state directory.
  /// - Returns: The activities.
  package static func sceneFileActivities(in directory: StateDirectory) -> [PendingActivity] {
    SessionFile.sceneNamesOnDisk(in: directory).flatMap { name in
      ((try? SceneFile.read(name, in: directory)) ?? nil)?.unsavedActivities ?? []
    }
  }

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

  /// The history's entries with what only the scene files hold, read without writing anything
  /// (``sceneFileActivities(in:)``): what a search ranks by.
  ///
  /// - Parameters:
  ///   - directory: The state directory.
  ///   - entries: The history's entries.
  ///   - history: The history's database, asked when it last knew each scene activity's key,
  ///     deletions included (a forgotten activity stays forgotten); when it cannot answer, the
  ///     entries alone.
  /// - Returns: The entries, newer scene activities replacing older entries.
  package static func merged(
    in directory: StateDirectory, with entries: [ActivityHistory.Entry],
    history: ActivityHistory
  ) -> [ActivityHistory.Entry] {
    let activities = sceneFileActivities(in: directory)
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
