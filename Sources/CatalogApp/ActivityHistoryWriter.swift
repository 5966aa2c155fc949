import ActivityIndex
import CatalogCore
import Foundation
import StateRestoration
import Synchronization
import SystemSupport

/// The app's writer of the activity history, `activities.sqlite`.
///
/// An activity that becomes current is listed in its scene's file (``PendingActivity``), which
/// the command flushes anyway, and reaches the history in batches (``CommandSave``): most
/// commands neither open the history nor wait for its flushes. Whatever reads the history —
/// search, `activities` — reads the scene files' lists with it.
///
/// The history is checked the first time a process uses it (``check()``): an earlier
/// version's `activities.json` is imported, and a file that cannot be read is set aside so that
/// the history starts again; its notes are kept for the command to show (``takeNotes()``).
package final class ActivityHistoryWriter: Sendable {
  /// The saved activity history, `activities.sqlite`.
  package let history: ActivityHistory
  /// What checking the history found: nil before it was checked; false when the history cannot
  /// be used this session (a full disk, a read-only directory, a newer version's file), as said
  /// then: activities stay in the scene files, and no command repeats the warning.
  private let usable = Mutex<Bool?>(nil)
  /// Notes for the user not yet shown.
  private let notes = Mutex<[String]>([])

  /// Creates the writer of a history.
  ///
  /// - Parameter history: The history.
  package init(history: ActivityHistory) {
    self.history = history
  }

  /// Checks the history once a process: imports an earlier version's `activities.json`, and
  /// sets aside a file that cannot be read; what it did goes to ``takeNotes()``.
  ///
  /// - Returns: Whether the history can be used.
  @discardableResult
  package func check() -> Bool {
    usable.withLock { usable in
      if let usable { return usable }
      var found: [String] = []
      let result = Self.check(history, notes: &found)
      notes.withLock { $0 += found }
      usable = result
      return result
    }
  }

  /// The notes of the history's check and of batches that could not be saved, once.
  ///
  /// - Returns: One-line warnings.
  package func takeNotes() -> [String] {
    notes.withLock { notes in
      defer { notes = [] }
      return notes
    }
  }

  /// Saves activities kept pending in scene files in the history, in one transaction: each
  /// that the history does not know at its date or later (neither saved nor forgotten since),
  /// as its record is now. A history found damaged is set aside and the batch saved in a new
  /// one.
  ///
  /// - Parameters:
  ///   - entries: The pending activities, oldest first.
  ///   - record: The record of an activity's history key now; nil for one that no longer
  ///     exists (a deleted product), which is left out.
  /// - Returns: Whether the activities were saved; false, with nothing written, when the
  ///   history cannot be used this session (as ``check()`` said).
  /// - Throws: A `StateRestorationError` when the history cannot be written; nothing was saved.
  package func save(
    _ entries: [PendingActivity], records record: (String) -> UserActivityRecord?
  ) throws -> Bool {
    guard !entries.isEmpty else { return true }
    guard check() else { return false }
    // The newest entry of each key, as its record is now.
    var records: [UserActivityRecord] = []
    for entry in ActivityHistoryMerge.newer(entries, than: { _ in nil }) {
      guard var saved = record(entry.historyKey) else { continue }
      saved.lastActiveDate = entry.lastActiveDate
      records.append(saved)
    }
    do {
      try history.importRecords(records)
    } catch let error as StateRestorationError where error.isDamage {
      notes.withLock { $0.append(Self.setAside(history, because: error)) }
      try history.importRecords(records)
    }
    return true
  }

  /// Removes the saved activities of deleted products, as
  /// `CSSearchableIndex.deleteSearchableItems` removes their items.
  ///
  /// - Parameter identifiers: The products' identifiers.
  /// - Throws: A `StateRestorationError` when the history cannot be written.
  package func forget(persistentIdentifiers identifiers: [String]) throws {
    guard !identifiers.isEmpty, check() else { return }
    try history.delete(persistentIdentifiers: identifiers)
  }

  /// Lets go of the history as the process leaves: the connection closes, folding a large log
  /// into its file; one whose log would be left as it is anyway is left for the system to
  /// release as the process ends.
  ///
  /// - Returns: Notes not yet shown.
  package func closeForExit() -> [String] {
    if usable.withLock({ $0 }) != nil { history.closeForExit() }
    return takeNotes()
  }

  /// Imports an earlier version's activities and checks that the history can be read, setting
  /// aside a file that cannot.
  private static func check(_ history: ActivityHistory, notes: inout [String]) -> Bool {
    let directory = history.directory
    // An earlier version's activities.json moves into the database once, and is kept.
    do {
      if let count = try EarlierActivityFile.importIfPresent(into: history) {
        let earlier = directory.path(of: EarlierActivityFile.path(besides: history))
        notes.append(
          "imported \(count.grouped) saved activit\(count == 1 ? "y" : "ies") from '\(earlier)' into '\(directory.path(of: history.path))'; kept the file as '\(earlier).imported'"
        )
      }
    } catch StateRestorationError.cannotWrite(let path, let reason),
      SystemError.cannotWrite(let path, let reason)
    {
      notes.append("cannot import the saved activities into '\(path)': \(reason)")
    } catch let error as SystemError where error.isDamage || error.isNewerVersion {
      notes.append(
        directory.quarantine(
          EarlierActivityFile.path(besides: history), because: error,
          consequence: "its saved activities are not imported"))
    } catch {
      // A file that is fine, a history that cannot be used now: both kept as they are.
      notes.append("cannot import the saved activities: \(error.localizedDescription)")
    }
    do {
      _ = try history.count()
      return true
    } catch let error as StateRestorationError where !error.isDamage {
      // A full disk, a read-only directory, a newer version's file: nothing is wrong with the
      // file, which is kept as it is; this session saves no activities.
      notes.append(
        "cannot use the activity history: \(error.localizedDescription); activities are not saved in it this session, and the file is kept as it is"
      )
      return false
    } catch {
      notes.append(setAside(history, because: error))
      return true
    }
  }

  /// Sets an unreadable history aside, so that it starts again.
  ///
  /// - Returns: The note that says so.
  private static func setAside(_ history: ActivityHistory, because error: any Error) -> String {
    let reason = error.localizedDescription
    do {
      let destination = try history.setAside()
      return "\(reason); moved it to '\(destination)' and the activity history starts empty"
    } catch {
      return "\(reason); the activity history starts empty"
    }
  }
}
