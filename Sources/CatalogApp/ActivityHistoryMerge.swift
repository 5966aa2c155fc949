import ActivityIndex
import CatalogCore
import Foundation
import StateRestoration
import SystemSupport

/// The activity history as it really is: `activities.sqlite`, plus activities that became
/// current but reached only their scene's file (a process killed before its background history
/// write finished).
package enum ActivityHistoryMerge {
  /// The dated activities, eligible for search, newer than the history's entry with the same
  /// key; the newest of each key.
  ///
  /// - Parameters:
  ///   - activities: Activities from scene files.
  ///   - records: The history's entries.
  /// - Returns: The activities to add, oldest first.
  package static func newer(_ activities: [UserActivityRecord], than records: [UserActivityRecord])
    -> [UserActivityRecord]
  {
    let known = latestDates(records.map { ($0.historyKey, $0.lastActiveDate) })
    return newer(activities, than: { known[$0] })
  }

  /// The latest `lastActiveDate` of each history key.
  private static func latestDates(_ dates: [(key: String, date: Date?)]) -> [String: Date] {
    Dictionary(
      dates.map { ($0.key, $0.date ?? .distantPast) },
      uniquingKeysWith: { first, second in max(first, second) })
  }

  /// The dated activities, eligible for search, newer than the history's entry with the same
  /// key, looking each key up: for a history too large to read whole.
  ///
  /// - Parameters:
  ///   - activities: Activities from scene files.
  ///   - lastActive: When the history's entry of a key was last active; nil when it has none.
  /// - Returns: The activities to add, oldest first.
  package static func newer(
    _ activities: [UserActivityRecord], than lastActive: (String) -> Date?
  ) -> [UserActivityRecord] {
    var newer: [String: UserActivityRecord] = [:]
    for activity in activities where activity.isEligibleForSearch {
      guard let date = activity.lastActiveDate,
        date > lastActive(activity.historyKey) ?? .distantPast,
        date > newer[activity.historyKey]?.lastActiveDate ?? .distantPast
      else { continue }
      newer[activity.historyKey] = activity
    }
    return newer.values.sorted {
      ($0.lastActiveDate ?? .distantPast) < ($1.lastActiveDate ?? .distantPast)
    }
  }

  /// The history's entries with what only the scene files hold, read without writing anything
  /// (for `catalog search`, which may run while another process's last history write never
  /// came): what a search ranks by.
  ///
  /// - Parameters:
  ///   - directory: The state directory.
  ///   - entries: The history's entries.
  ///   - history: The history's database, asked when it last knew each scene activity's key,
  ///     deletions included (a forgotten activity stays forgotten).
  /// - Returns: The entries, newer scene activities replacing older entries.
  package static func merged(
    in directory: StateDirectory, with entries: [ActivityHistory.Entry],
    history: ActivityHistory? = nil
  ) -> [ActivityHistory.Entry] {
    let newer = newerSceneActivities(
      in: directory, than: entries.map { ($0.historyKey, $0.lastActiveDate) }, history: history)
    let replaced = Set(newer.map(\.historyKey))
    return newer.map(ActivityHistory.Entry.init)
      + entries.filter { !replaced.contains($0.historyKey) }
  }

  /// The scene files' activities newer than what the history holds or last knew of their keys.
  private static func newerSceneActivities(
    in directory: StateDirectory, than saved: [(key: String, date: Date?)],
    history: ActivityHistory?
  ) -> [UserActivityRecord] {
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: directory.path(of: "scenes"))) ?? []
    let activities = names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.compactMap {
      (try? directory.load(SceneFile.self, from: "scenes/" + $0))??.activity
    }
    // What the database knew of these keys, deletions included: a forgotten activity stays
    // forgotten. One read for all of them.
    var known = latestDates(saved)
    let keys = activities.map(\.historyKey)
    let lastKnown = ((try? history?.lastKnownDates(historyKeys: keys)) ?? nil) ?? [:]
    known.merge(lastKnown, uniquingKeysWith: max)
    return newer(activities, than: { known[$0] })
  }
}
