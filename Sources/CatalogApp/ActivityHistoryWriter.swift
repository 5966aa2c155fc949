import ActivityIndex
import CatalogCore
import Foundation
import StateRestoration
import Synchronization
import SystemSupport

/// The app's writer of the activity history: the activity a command makes current is saved
/// on a thread of its own, one write at a time in the order they became current, and the next
/// command waits for it before saving anything.
package final class ActivityHistoryWriter: Sendable {
  /// The saved activity history, `activities.sqlite`.
  package let history: ActivityHistory
  /// Whether the history cannot be used this session (a full disk, a read-only directory, a
  /// newer version's file), as said at launch: activities are then kept in the scene files
  /// alone, and no command repeats the warning.
  private let unavailable = Atomic(false)
  private let pending = Mutex<BackgroundWork<Void>?>(nil)
  private let warning = Mutex<String?>(nil)

  /// Creates the writer of a history.
  ///
  /// - Parameter history: The history.
  package init(history: ActivityHistory) {
    self.history = history
  }

  /// Whether the history cannot be used this session; nothing is written to it then.
  package var isUnavailable: Bool {
    get { unavailable.load(ordering: .relaxed) }
    set { unavailable.store(newValue, ordering: .relaxed) }
  }

  /// Makes an activity current and saves it in the history, in the background: the caller has
  /// already put it durably in its scene's file (with the same date), which the next launch
  /// merges into the history if this write never finished. ``settle(closing:)`` waits for it.
  ///
  /// The write runs on a thread of its own: Dispatch's worker pool would cost a one-command
  /// run more to start than the write takes.
  ///
  /// - Parameter activity: The activity a scene now advertises, with its `lastActiveDate`.
  package func makeCurrentInBackground(_ activity: UserActivityRecord) {
    guard !isUnavailable else { return }
    let history = self.history
    let write: @Sendable () -> Void = { [self] in
      do {
        let date = activity.lastActiveDate ?? Date()
        let center = UserActivityCenter(
          declaredActivityTypes: ProductActivity.declaredTypes, history: history,
          clock: { date })
        try NSUserActivity(record: activity, center: center).makeCurrent()
      } catch {
        warning.withLock {
          $0 =
            "the activity '\(activity.title ?? "")' was not saved in the history: \(error.localizedDescription)"
        }
      }
    }
    pending.withLock { pending in
      let previous = pending
      pending = BackgroundWork {
        previous?.wait()
        write()
      }
    }
  }

  /// Removes the saved activities of deleted products, as
  /// `CSSearchableIndex.deleteSearchableItems` removes their items.
  ///
  /// - Parameter identifiers: The products' identifiers.
  /// - Throws: A `StateRestorationError` when the history cannot be written.
  package func forget(persistentIdentifiers identifiers: [String]) throws {
    guard !identifiers.isEmpty else { return }
    try history.delete(persistentIdentifiers: identifiers)
  }

  /// Waits for the writes ``makeCurrentInBackground(_:)`` started, keeping their warning for
  /// ``settle(closing:)``: before reading the history.
  package func waitForWrites() {
    pending.withLock { $0 }?.wait()
  }

  /// Waits for the writes ``makeCurrentInBackground(_:)`` started, and takes their warning.
  ///
  /// - Parameter closing: Whether the process is leaving: the history's connection then closes,
  ///   folding a large log into its file; one whose log would be left as it is anyway is left
  ///   for the system to release as the process ends.
  /// - Returns: A warning when a write failed.
  package func settle(closing: Bool = false) -> [String] {
    waitForWrites()
    if closing { history.closeForExit() }
    return warning.withLock { warning in
      defer { warning = nil }
      return warning.map { [$0] } ?? []
    }
  }
}
