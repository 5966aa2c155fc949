/// Where a ``UserActivityCenter`` saves the activities that become current and are eligible
/// for search, as the system keeps them for Spotlight on Apple's platforms.
///
/// The `ActivityIndex` library's `ActivityHistory` is one: a SQLite database that keeps the
/// newest activity for each persistent identifier (or type and target). A program that needs no search
/// gives its center none, and links no database.
public protocol ActivityStore: Sendable {
  /// Saves an activity durably, replacing what was saved under its history key.
  ///
  /// - Parameter record: The activity, with its `lastActiveDate` set.
  /// - Throws: When it cannot be saved; the store is then as it was.
  func save(_ record: UserActivityRecord) throws
}
