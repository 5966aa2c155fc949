import Foundation
import StateRestoration

/// The activity history as it really is: `activities.json`, plus activities that became
/// current but reached only their scene's file (a process killed before its background history
/// write finished).
package enum ActivityHistoryMerge {
  /// The scene files' dated activities newer than the history's entry with the same key.
  ///
  /// - Parameters:
  ///   - directory: The state directory.
  ///   - records: The history's entries.
  /// - Returns: The activities to add.
  package static func newer(in directory: StateDirectory, than records: [UserActivityRecord])
    -> [UserActivityRecord]
  {
    let known = Dictionary(
      records.map { ($0.historyKey, $0.lastActiveDate ?? .distantPast) },
      uniquingKeysWith: { first, second in max(first, second) })
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: directory.path(of: "scenes"))) ?? []
    var newer: [String: UserActivityRecord] = [:]
    for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
      guard
        let file = try? directory.load(SceneFile.self, from: "scenes/" + name),
        let activity = file.activity, activity.isEligibleForSearch,
        let date = activity.lastActiveDate,
        date > known[activity.historyKey] ?? .distantPast,
        date > newer[activity.historyKey]?.lastActiveDate ?? .distantPast
      else { continue }
      newer[activity.historyKey] = activity
    }
    return newer.values.sorted {
      ($0.lastActiveDate ?? .distantPast) < ($1.lastActiveDate ?? .distantPast)
    }
  }

  /// The history with what only the scene files hold, for reading without writing.
  ///
  /// - Parameters:
  ///   - directory: The state directory.
  ///   - records: The history's entries.
  /// - Returns: The entries, newer scene activities replacing older entries.
  package static func merged(in directory: StateDirectory, with records: [UserActivityRecord])
    -> [UserActivityRecord]
  {
    let newer = newer(in: directory, than: records)
    let replaced = Set(newer.map(\.historyKey))
    return newer + records.filter { !replaced.contains($0.historyKey) }
  }
}
