import CatalogCore
import CatalogModel
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
  /// - Returns: The prepared files, and notes for the user (a file in the way set aside).
  /// - Throws: What writing throws; nothing was changed.
  func prepareFiles(
    saving scenes: [Scene], session: SessionState?, closing: Set<SceneName>,
    flushingInBackground: Bool
  ) throws -> (prepared: Prepared, notes: [String])

  /// Puts prepared files in place.
  ///
  /// - Parameter prepared: What ``prepareFiles(saving:session:closing:flushingInBackground:)``
  ///   wrote.
  /// - Throws: What renaming or flushing the directory throws.
  func putInPlace(_ prepared: Prepared) throws
}

/// Where a command's changes to the catalog are saved.
package protocol CatalogWriting {
  /// Saves changes durably in one transaction.
  ///
  /// - Parameter changes: The changes.
  /// - Returns: The catalog as saved.
  /// - Throws: What saving throws; the catalog is then as it was.
  func save(_ changes: [CatalogChange]) throws -> Catalog
}

/// Where the activities a command makes current are recorded.
package protocol ActivityRecording {
  /// Removes the saved activities of deleted products.
  ///
  /// - Parameter identifiers: The products' identifiers.
  /// - Throws: What writing the history throws.
  func forget(persistentIdentifiers identifiers: [String]) throws

  /// Records an activity as the current one; the write may finish after the call returns.
  ///
  /// - Parameter activity: The activity, with its `lastActiveDate`.
  func makeCurrentInBackground(_ activity: UserActivityRecord)
}

/// What a command leaves to save, and the one order it is saved in, which keeps what a failure
/// or `kill -9` leaves consistent:
///
/// 1. the scene and session files are written and flushed beside the old ones (a full disk
///    stops the command here, before anything changed); the scenes they need were claimed
///    before (``AppStore``);
/// 2. the command's effects on other processes and machines run (forgetting activities,
///    handing off, publishing for the user's other machines);
/// 3. the catalog commits, and the deleted products' activities go with them;
/// 4. the scene files are put in place: a scene never shows a product the catalog has not saved;
/// 5. the activity becomes current in the history, once its scene says so: a scene file that
///    holds it is merged into the history at the next launch if this write never finishes.
///
/// A step that fails ends the save there: nothing after it happens. Only the deleted products'
/// activities are kept, with a note, when the history cannot forget them: the catalog has
/// saved the deletion, and the next search checks every activity against the catalog.
package struct CommandSave {
  /// The scenes to save.
  package var scenes: [Scene] = []
  /// The session to save; nil when it did not change.
  package var session: SessionState?
  /// The scenes the command closed.
  package var closing: Set<SceneName> = []
  /// The changes to the catalog.
  package var catalogChanges: [CatalogChange] = []
  /// The activities that become current, oldest first: one a command, more when saves put off
  /// are folded in (``including(_:)``).
  package var activities: [UserActivityRecord] = []

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
    both.closing = earlier.closing.union(closing)
    both.catalogChanges = earlier.catalogChanges + catalogChanges
    let keys = Set(activities.map(\.historyKey))
    both.activities = earlier.activities.filter { !keys.contains($0.historyKey) } + activities
    return both
  }

  /// Saves everything, in order.
  ///
  /// - Parameters:
  ///   - writer: Where scene and session files go.
  ///   - catalog: Where the catalog changes go.
  ///   - activities: Where the activity goes.
  ///   - effects: The command's effects, run once the files are written and before anything is
  ///     put in place.
  /// - Returns: The catalog as saved (nil when it did not change), and notes for the user.
  /// - Throws: What a step throws; the steps after it did not happen.
  package func perform<Scenes: SceneFileWriting>(
    scenes writer: Scenes, catalog: some CatalogWriting, activities: some ActivityRecording,
    effects: () throws -> Void = {}
  ) throws -> (catalog: Catalog?, notes: [String]) {
    let (prepared, prepareNotes) = try writer.prepareFiles(
      saving: scenes, session: session, closing: closing,
      flushingInBackground: !catalogChanges.isEmpty)
    var notes = prepareNotes
    try effects()
    var saved: Catalog?
    if !catalogChanges.isEmpty {
      saved = try catalog.save(catalogChanges)
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
    try writer.putInPlace(prepared)
    for activity in self.activities { activities.makeCurrentInBackground(activity) }
    return (saved, notes)
  }
}

extension SessionStore: SceneFileWriting {
  package func prepareFiles(
    saving scenes: [Scene], session: SessionState?, closing: Set<SceneName>,
    flushingInBackground: Bool
  ) throws -> (prepared: PreparedScenes, notes: [String]) {
    let prepared = try prepare(
      saving: scenes, session: session, closing: closing,
      flushingInBackground: flushingInBackground)
    return (prepared, prepared.notes)
  }

  package func putInPlace(_ prepared: PreparedScenes) throws {
    try commit(prepared)
  }
}

extension CatalogSession: CatalogWriting {}

extension ActivityHistoryWriter: ActivityRecording {}
