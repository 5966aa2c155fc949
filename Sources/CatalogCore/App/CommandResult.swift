import CatalogModel
import StateRestoration

/// What applying a command gives: the new state and what to print.
package struct CommandResult: Sendable {
  /// The state after the command.
  package var state: AppState
  /// The text to print on standard output; empty for none.
  package var output: String
  /// More text to print after ``output``, made a part at a time as it is written (`list --all`
  /// of a million products), so that it is never held whole.
  package var continuation: OutputContinuation?
  /// Whether the command ends the session.
  package var quits = false
  /// One-line warnings for standard error: the command did what was asked, but something
  /// deserves a word (a picture path that cannot be shown now).
  package var warnings: [String] = []
  /// Everything the shell does for the command besides printing: the core describes effects,
  /// it never performs them. The shell saves the new state with them, in one order
  /// (`CommandSave`): claims, the scene files written, the effects on other processes and
  /// machines, the catalog saved, the scene files put in place, the activity made current.
  package var effects: [Effect] = []

  /// The product edits the command saves (``Effect/saveCatalog(_:)``); the state's catalog
  /// shows an edit or a deletion already, a new product once it is saved.
  package var catalogChanges: [CatalogChange] {
    effects.flatMap { effect -> [CatalogChange] in
      guard case .saveCatalog(let changes) = effect else { return [] }
      return changes
    }
  }

  /// Whether the command makes the active scene's activity current again
  /// (``Effect/refreshActivity``).
  package var showsProduct: Bool { effects.contains(.refreshActivity) }

  /// Creates a result.
  package init(
    state: AppState, output: String, quits: Bool = false, catalogChanges: [CatalogChange] = [],
    continuation: OutputContinuation? = nil
  ) {
    self.state = state
    self.output = output
    self.quits = quits
    if !catalogChanges.isEmpty { effects.append(.saveCatalog(catalogChanges)) }
    self.continuation = continuation
  }
}

/// An effect of a command on the world outside its state, which the shell performs as it
/// saves the state: claims first; effects on other processes and machines once every file the
/// state needs is written beside the old one (a full disk has stopped the command by then);
/// then the catalog, before anything is put in place; the activity last. One that fails fails
/// the command, and what comes after it is not done.
package enum Effect: Sendable, Hashable {
  /// Make this process the owner of a scene the command opened.
  case claimScene(SceneName)
  /// Forget saved activities: those of these identifiers, or every one (nil).
  case forgetActivities([String]?)
  /// Continue an activity in a scene another running process has open, as Handoff sends it to
  /// another device; that process's answer is the command's output.
  case handOff(UserActivityRecord, from: SceneName, to: SceneName)
  /// Publish an activity for the user's other machines (Handoff between machines).
  case publishHandoff(UserActivityRecord)
  /// Save changes to the catalog in one transaction.
  case saveCatalog([CatalogChange])
  /// Make the active scene's activity current again even when it was in front: a product
  /// shown, as a view's `userActivity` is each time it appears.
  case refreshActivity

  /// Whether the effect claims a scene, which must come before the scene's file is written.
  package var isClaim: Bool {
    if case .claimScene = self { return true }
    return false
  }

  /// Whether the effect reaches another process or machine (or the history), which comes
  /// once the scene files are written and before the catalog is saved.
  package var reachesOutside: Bool {
    switch self {
    case .forgetActivities, .handOff, .publishHandoff: true
    case .claimScene, .saveCatalog, .refreshActivity: false
    }
  }
}

/// Text produced in parts: `produce` calls its argument with each part, in order, and throws
/// when the rest cannot be read (the parts given so far are all there is).
package struct OutputContinuation: Sendable {
  /// Makes the parts.
  package let produce: @Sendable ((String) -> Void) throws -> Void

  /// Creates a continuation.
  package init(_ produce: @escaping @Sendable ((String) -> Void) throws -> Void) {
    self.produce = produce
  }
}
