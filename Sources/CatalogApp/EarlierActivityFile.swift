import ActivityIndex
import StateRestoration
import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// `activities.json` of the catalog's earlier versions, beside the activity history: its
/// activities, most recently active first. Read alongside the history until a launch moves
/// them into it (``importIfPresent(into:)``) and keeps the file renamed.
struct EarlierActivityFile: VersionedFormat {
  static let currentFormatVersion = 1
  var formatVersion = currentFormatVersion
  var activities: [UserActivityRecord]

  /// The file's path in the state directory: the history's name, ending in `.json`.
  ///
  /// - Parameter history: The history it goes into.
  /// - Returns: The path, relative to the state directory.
  static func path(besides history: ActivityHistory) -> String {
    let base =
      history.path.hasSuffix(".sqlite")
      ? String(history.path.dropLast(".sqlite".count)) : history.path
    return base + ".json"
  }

  /// The file beside a history, if there is one.
  ///
  /// - Parameter history: The history.
  /// - Returns: Its activities; nil when there is no file.
  /// - Throws: A `SystemError` when it cannot be read.
  static func activities(besides history: ActivityHistory) throws -> [UserActivityRecord]? {
    try history.directory.load(Self.self, from: path(besides: history))?.activities
  }

  /// Moves the file's activities into the history in one transaction, the newer of each key
  /// winning, then renames it `activities.json.imported` (never deleting it).
  ///
  /// - Parameter history: The history.
  /// - Returns: How many activities were imported; nil when there was no file.
  /// - Throws: A `SystemError` when the file cannot be read, a `StateRestorationError` when
  ///   the history cannot be written; the file is then where it was.
  @discardableResult
  static func importIfPresent(into history: ActivityHistory) throws -> Int? {
    guard let earlier = try activities(besides: history) else { return nil }
    try history.importRecords(earlier.reversed())
    let directory = history.directory
    let path = path(besides: history)
    var destination = directory.path(of: path + ".imported")
    var suffix = 2
    while FileManager.default.fileExists(atPath: destination) {
      destination = directory.path(of: path + ".imported.\(suffix)")
      suffix += 1
    }
    guard rename(directory.path(of: path), destination) == 0 else {
      throw SystemError.cannotWrite(
        path: directory.path(of: path), reason: systemErrorDescription())
    }
    try DurableFile.synchronizeDirectory(directory.path)
    return earlier.count
  }

  /// A page of the history's activities, with those of a file not imported yet (a launch that
  /// could not write, a command from the shell), the newer of each key winning.
  ///
  /// - Parameters:
  ///   - history: The history.
  ///   - limit: The most returned; nil for all.
  ///   - offset: How many of the most recent to skip.
  /// - Returns: The activities, most recently active first.
  /// - Throws: When the history or the file cannot be read.
  static func records(of history: ActivityHistory, limit: Int?, offset: Int = 0) throws
    -> [UserActivityRecord]
  {
    guard let earlier = try activities(besides: history), !earlier.isEmpty else {
      return try history.records(limit: limit, offset: offset)
    }
    var byKey: [String: UserActivityRecord] = [:]
    for record in earlier + (try history.records(limit: nil)) {
      let kept = byKey[record.historyKey]
      if kept == nil
        || (record.lastActiveDate ?? .distantPast) > (kept?.lastActiveDate ?? .distantPast)
      {
        byKey[record.historyKey] = record
      }
    }
    let merged = byKey.values.sorted {
      ($0.lastActiveDate ?? .distantPast) > ($1.lastActiveDate ?? .distantPast)
    }.dropFirst(offset)
    return Array(limit.map { merged.prefix($0) } ?? merged)
  }

  /// The history's activities matching a query (its search: expired ones never), as entries,
  /// with every one of a file not imported yet.
  ///
  /// - Parameters:
  ///   - history: The history.
  ///   - text: The query.
  ///   - limit: The most found in the history.
  ///   - date: The time expiration is judged at.
  ///   - note: Called with a line to show when the history's search index is built first,
  ///     which takes a while for a large history.
  /// - Returns: The entries.
  /// - Throws: When the history or the file cannot be read, or the query is not one.
  static func entries(
    of history: ActivityHistory, matching text: String, limit: Int, at date: Date,
    note: (String) -> Void = { _ in }
  ) throws -> [ActivityHistory.Entry] {
    let found = try history.search(
      text, limit: limit, at: date,
      willBuild: { count in
        if count >= 10_000 {
          note("building the activity history's search index for \(count.grouped) activities…")
        }
      }
    ).map {
      ActivityHistory.Entry($0.activity)
    }
    guard history.directory.contains(path(besides: history)),
      let earlier = try activities(besides: history)
    else { return found }
    return found + earlier.filter(\.isEligibleForSearch).map(ActivityHistory.Entry.init)
  }
}
