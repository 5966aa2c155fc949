import CatalogCore
import CatalogModel
import Foundation
import StateRestoration
import SystemSupport

/// Where a command's scene and session files are written: prepared beside the files they
/// replace (written and flushed), then put in place.
package protocol SceneFileWriting {
  /// Files written and flushed, not yet in place.
  associatedtype Prepared

  /// Writes the files of scenes and of the session beside the ones they replace, and flushes
  /// them; nothing is in place yet, and dropping what it returns leaves every file as it was.
  ///
  /// - Parameters:
  ///   - scenes: The scenes to save.
  ///   - session: The session to save; nil when it did not change.
  ///   - closing: The scenes the command closed.
  ///   - flushingInBackground: Whether the flush may finish while the catalog commits; the
  ///     commit waits for it.
  ///   - pendingActivities: The pending activities to list in some of the scenes' files, by
  ///     scene name; the others keep their lists.
  ///   - activating: The scene, one of `scenes`, whose file says it came to the front, and
  ///     when (``SceneFile/activatedAt``).
  /// - Returns: The prepared files, and notes for the user (a file in the way set aside).
  /// - Throws: What writing throws; nothing was changed.
  func prepareFiles(
    saving scenes: [Scene], session: SessionState?, closing: Set<SceneName>,
    flushingInBackground: Bool, pendingActivities: [String: [PendingActivity]],
    activating: (scene: SceneName, date: Date)?
  ) throws -> (prepared: Prepared, notes: [String])

  /// Puts prepared files in place.
  ///
  /// - Parameter prepared: What
  ///   ``prepareFiles(saving:session:closing:flushingInBackground:pendingActivities:activating:)``
  ///   wrote.
  /// - Throws: What renaming or flushing the directory throws.
  func putInPlace(_ prepared: Prepared) throws

  /// The activities a scene's file lists as pending, oldest first.
  ///
  /// - Parameter name: The scene.
  /// - Returns: The entries.
  func pendingActivities(of name: SceneName) -> [PendingActivity]
}

/// Where a command's changes to the catalog are saved.
package protocol CatalogWriting {
  /// Saves changes durably in one transaction.
  ///
  /// - Parameters:
  ///   - changes: The changes.
  ///   - meanwhile: Work that must be done before the transaction commits, done once: while
  ///     the first request waits on a server, before the transaction on a file.
  /// - Returns: The catalog as saved.
  /// - Throws: What saving throws, or what `meanwhile` throws; the catalog is then as it was.
  func save(_ changes: [CatalogChange], whileWriting meanwhile: () throws -> Void) throws
    -> Catalog
}

/// The activity history, where the activities scene files keep pending go in batches.
package protocol ActivityRecording {
  /// Removes the saved activities of deleted products.
  ///
  /// - Parameter identifiers: The products' identifiers.
  /// - Throws: What writing the history throws.
  func forget(persistentIdentifiers identifiers: [String]) throws

  /// Saves pending activities in the history, durably, in one transaction.
  ///
  /// - Parameter entries: The activities, oldest first.
  /// - Returns: Whether they were saved; false, with nothing written, when the history cannot
  ///   be used this session (as said once).
  /// - Throws: What writing the history throws; nothing was saved then.
  func save(_ entries: [PendingActivity]) throws -> Bool
}

/// What a command leaves to save, and the one order it is saved in, which keeps what a failure
/// or `kill -9` leaves consistent:
///
/// 1. the activities the command made current join their scene's pending list
///    (``PendingActivity``); a list that grows past ``pendingBatch`` is saved in the activity
///    history first, as is that of a scene whose file the command removes;
/// 2. the scene and session files are written and flushed beside the old ones (a full disk
///    stops the command here, before anything changed); the scenes they need were claimed
///    before (``AppStore``). A command without effects outside the process writes them while
///    the catalog's first request waits on its server, in the catalog's transaction, which
///    their failure rolls back;
/// 3. the command's effects on other processes and machines run (forgetting activities,
///    handing off, publishing for the user's other machines);
/// 4. the catalog commits, and the deleted products' activities go with them;
/// 5. the scene files are put in place: a scene never shows a product the catalog has not
///    saved.
///
/// An activity is always in the history or in a scene file's list, or both: a list leaves a
/// file only once the history has saved it. A step that fails ends the save there: nothing after
/// it happens. Only the deleted products' activities are kept, with a note, when the history
/// cannot forget them: the catalog has saved the deletion, and the next search checks every
/// activity against the catalog.
package struct CommandSave {
  /// The most activities a scene's file lists as pending: one more saves them in the history.
  package static let pendingBatch = 16
  /// The most a scene's file keeps while the history cannot be written; the oldest go first.
  package static let pendingLimit = 64

  /// The scenes to save.
  package var scenes: [Scene] = []
  /// The session to save; nil when its scenes did not change.
  package var session: SessionState?
  /// The scene that came to the front, one of ``scenes``, and when, which its file says: what
  /// moves the session's front without the session file being rewritten.
  package var activating: (scene: SceneName, date: Date)?
  /// The scenes the command closed.
  package var closing: Set<SceneName> = []
  /// The changes to the catalog.
  package var catalogChanges: [CatalogChange] = []
  /// The activities that become current, oldest first, each in its scene: one a command, more
  /// when saves put off are folded in (``including(_:)``).
  package var activities: [(scene: SceneName, activity: UserActivityRecord)] = []

  /// Creates an empty save.
  package init() {}

  /// This save with one put off before it folded in, for both to be saved as one: the earlier
  /// save's scenes that this one does not save again, its session unless this one changes the
  /// session, and its activities before this one's (the newer of a key kept).
  ///
  /// - Parameter earlier: A save prepared before this one and not performed.
  /// - Returns: The save of both.
  package func including(_ earlier: CommandSave) -> CommandSave {
    var both = self
    let saved = Set(scenes.map(\.name))
    both.scenes = earlier.scenes.filter { !saved.contains($0.name) } + scenes
    both.session = session ?? earlier.session
    both.activating = activating ?? earlier.activating
    // A scene this save brings to the front is the front of the earlier save's session too.
    if session == nil, let activating { both.session?.activeScene = activating.scene }
    both.closing = earlier.closing.union(closing)
    both.catalogChanges = earlier.catalogChanges + catalogChanges
    let keys = Set(activities.map(\.activity.historyKey))
    both.activities =
      earlier.activities.filter { !keys.contains($0.activity.historyKey) } + activities
    return both
  }

  /// Saves everything, in order.
  ///
  /// - Parameters:
  ///   - writer: Where scene and session files go.
  ///   - catalog: Where the catalog changes go.
  ///   - activities: The history, where pending activities go in batches.
  ///   - effects: The command's effects outside the process, run once the files are written
  ///     and before anything is put in place; nil for none.
  /// - Returns: The catalog as saved (nil when it did not change), and notes for the user.
  /// - Throws: A step's error; the steps after it did not happen.
  package func perform<Scenes: SceneFileWriting>(
    scenes writer: Scenes, catalog: some CatalogWriting, activities: some ActivityRecording,
    effects: (() throws -> Void)? = nil
  ) throws -> (catalog: Catalog?, notes: [String]) {
    var notes: [String] = []
    let pending = pendingLists(in: writer, history: activities, notes: &notes)
    var prepared: Scenes.Prepared?
    func prepare() throws -> Scenes.Prepared {
      let (files, prepareNotes) = try writer.prepareFiles(
        saving: scenes, session: session, closing: closing,
        flushingInBackground: !catalogChanges.isEmpty, pendingActivities: pending,
        activating: activating)
      notes += prepareNotes
      prepared = files
      return files
    }
    if catalogChanges.isEmpty || effects != nil {
      _ = try prepare()
      try effects?()
    }
    var saved: Catalog?
    if !catalogChanges.isEmpty {
      // Without effects, the files are written while the catalog's first request waits on its
      // server: the wait and the work overlap.
      saved = try catalog.save(catalogChanges) {
        if prepared == nil { _ = try prepare() }
      }
      // A deleted product's saved activities go with it, as
      // `CSSearchableIndex.deleteSearchableItems` removes its items.
      let deleted = catalogChanges.compactMap { change -> String? in
        guard case .delete(let identifier, _) = change else { return nil }
        return identifier.canonicalText
      }
      if !deleted.isEmpty {
        do {
          try activities.forget(persistentIdentifiers: deleted)
        } catch {
          notes.append(
            "the deleted product's saved activities were kept: \(error.localizedDescription)")
        }
      }
    }
    // A catalog that did not do the work before committing still has it done now.
    try writer.putInPlace(try prepared ?? prepare())
    return (saved, notes)
  }

  /// The pending lists of the scenes whose activities this save makes current, each with
  /// them added. A list that would grow past ``pendingBatch`` is saved in the history first
  /// and starts again, as is the list of a scene whose file goes; a closed scene's list the
  /// history cannot take goes to a scene this save keeps. While the history cannot be
  /// written, a list keeps its newest ``pendingLimit`` entries.
  private func pendingLists(
    in writer: some SceneFileWriting, history: some ActivityRecording, notes: inout [String]
  ) -> [String: [PendingActivity]] {
    // Only what search finds goes into the history.
    func added(in scene: SceneName) -> [PendingActivity] {
      activities.filter { $0.scene == scene && $0.activity.isEligibleForSearch }.compactMap {
        item in
        item.activity.lastActiveDate.map {
          PendingActivity(historyKey: item.activity.historyKey, lastActiveDate: $0)
        }
      }
    }
    let kept = scenes.map(\.name).filter { !closing.contains($0) }
    var lists: [String: (kept: [PendingActivity], added: [PendingActivity])] = [:]
    var due: [PendingActivity] = []
    for name in kept {
      let added = added(in: name)
      guard !added.isEmpty else { continue }
      let list = writer.pendingActivities(of: name)
      lists[name.rawValue] = (list, added)
      if list.count + added.count > Self.pendingBatch { due += list }
    }
    // A closed scene's file goes: its list, and what it made current since, go now.
    let closed = closing.sorted().flatMap { writer.pendingActivities(of: $0) + added(in: $0) }
    var saved = false
    if !due.isEmpty || !closed.isEmpty {
      do {
        saved = try history.save(closed + due)
      } catch {
        let count = closed.count + due.count
        notes.append(
          "\(count.grouped) activit\(count == 1 ? "y was" : "ies were") not saved in the history: \(error.localizedDescription); the scene files keep the newest \(Self.pendingLimit)"
        )
      }
    }
    if !saved, !closed.isEmpty, let heir = kept.first {
      let list = lists[heir.rawValue] ?? (writer.pendingActivities(of: heir), [])
      lists[heir.rawValue] = (list.kept, closed + list.added)
    }
    return lists.mapValues { list in
      var entries =
        saved && list.kept.count + list.added.count > Self.pendingBatch ? [] : list.kept
      for entry in list.added { entries = PendingActivity.adding(entry, to: entries) }
      return Array(entries.suffix(Self.pendingLimit))
    }
  }
}

extension SessionStore: SceneFileWriting {
  package func prepareFiles(
    saving scenes: [Scene], session: SessionState?, closing: Set<SceneName>,
    flushingInBackground: Bool, pendingActivities: [String: [PendingActivity]],
    activating: (scene: SceneName, date: Date)?
  ) throws -> (prepared: PreparedScenes, notes: [String]) {
    let prepared = try prepare(
      saving: scenes, session: session, closing: closing,
      flushingInBackground: flushingInBackground, pendingActivities: pendingActivities,
      activating: activating)
    return (prepared, prepared.notes)
  }

  package func putInPlace(_ prepared: PreparedScenes) throws {
    try commit(prepared)
  }
}

extension CatalogSession: CatalogWriting {}

/// The activity history of a catalog: a pending activity is saved as its product's activity
/// is now; one of a product no longer in the catalog is left out.
package struct CatalogActivityHistory: ActivityRecording {
  /// The history.
  package let writer: ActivityHistoryWriter
  /// The catalog its products are read from.
  package let catalog: Catalog

  /// Creates the history of a catalog.
  ///
  /// - Parameters:
  ///   - writer: The history's writer.
  ///   - catalog: The catalog.
  package init(writer: ActivityHistoryWriter, catalog: Catalog) {
    self.writer = writer
    self.catalog = catalog
  }

  package func forget(persistentIdentifiers identifiers: [String]) throws {
    try writer.forget(persistentIdentifiers: identifiers)
  }

  package func save(_ entries: [PendingActivity]) throws -> Bool {
    try writer.save(entries) { key in
      UUID(canonical: key).flatMap { catalog[$0] }.map(ProductActivity.show)
    }
  }
}
