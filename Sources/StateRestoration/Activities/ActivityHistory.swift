#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The saved activity history: one file of activities that became current while eligible for
/// search, one entry per ``UserActivityRecord/historyKey`` (the newest kept).
///
/// Several processes may share the file: every change takes a lock, reads the file, changes
/// it and writes it durably, so no process loses another's entries. A file that cannot be read
/// is never overwritten; the error says so.
public struct ActivityHistory: Sendable, Hashable {
  /// The directory holding the file.
  public let directory: StateDirectory
  /// The file's path in the directory.
  public let path: String
  /// The most entries kept; the least recently active go first.
  public let capacity: Int

  /// Creates a history.
  ///
  /// - Parameters:
  ///   - directory: The directory holding the file.
  ///   - path: The file's path in the directory; `activities.json` by default.
  ///   - capacity: The most entries kept.
  public init(directory: StateDirectory, path: String = "activities.json", capacity: Int = 10_000) {
    self.directory = directory
    self.path = path
    self.capacity = capacity
  }

  private var lockPath: String { "locks/" + String(path.map { $0 == "/" ? "-" : $0 }) + ".lock" }

  /// The saved activities, most recently active first.
  ///
  /// - Returns: The activities; empty when nothing was saved yet.
  /// - Throws: A ``StateRestorationError`` when the file cannot be read.
  public func records() throws -> [UserActivityRecord] {
    try directory.load(ActivityHistoryFile.self, from: path)?.activities ?? []
  }

  /// Saves an activity, replacing the entry with the same history key.
  ///
  /// - Parameter record: The activity.
  /// - Throws: A ``StateRestorationError`` when the file cannot be read or written.
  /// - Complexity: O(*n*) in the number of entries.
  public func save(_ record: UserActivityRecord) throws {
    try change { records in
      records.removeAll { $0.historyKey == record.historyKey }
      records.insert(record, at: 0)
      if records.count > capacity { records.removeLast(records.count - capacity) }
    }
  }

  /// Deletes the saved activities with the given persistent identifiers, like
  /// `NSUserActivity.deleteSavedUserActivities(withPersistentIdentifiers:)`.
  ///
  /// - Parameter identifiers: The persistent identifiers.
  /// - Throws: A ``StateRestorationError`` when the file cannot be read or written.
  public func delete(persistentIdentifiers identifiers: some Sequence<String>) throws {
    let identifiers = Set(identifiers)
    try change { records in
      records.removeAll { $0.persistentIdentifier.map(identifiers.contains) ?? false }
    }
  }

  /// Deletes every saved activity, like `NSUserActivity.deleteAllSavedUserActivities()`.
  ///
  /// - Throws: A ``StateRestorationError`` when the file cannot be written.
  public func deleteAll() throws {
    try change { $0.removeAll() }
  }

  private func change(_ body: (inout [UserActivityRecord]) -> Void) throws {
    let lock = try directory.lockWaiting(lockPath)
    defer { withExtendedLifetime(lock) {} }
    var records = try self.records()
    let before = records
    body(&records)
    guard records != before || !directory.contains(path) else { return }
    records.sort { ($0.lastActiveDate ?? .distantPast) > ($1.lastActiveDate ?? .distantPast) }
    try directory.save(ActivityHistoryFile(activities: records), to: path)
  }
}

/// The history file: `{"formatVersion": 1, "activities": [...]}`.
struct ActivityHistoryFile: VersionedFormat {
  static let currentFormatVersion = 1
  var formatVersion = currentFormatVersion
  var activities: [UserActivityRecord]
}
