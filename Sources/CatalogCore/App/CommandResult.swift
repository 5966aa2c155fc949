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
  /// The product edits to save with the command's other changes; the state's catalog already
  /// shows them.
  package var catalogChanges: [CatalogChange] = []
  /// One-line warnings for standard error: the command did what was asked, but something
  /// deserves a word (a picture path that cannot be shown now).
  package var warnings: [String] = []
  /// Whether the command showed a product, which makes its activity current again even when
  /// it was already in front (as a view's `userActivity` is each time it appears).
  package var showsProduct = false
  /// What the shell does for the command besides saving its state, before it saves it: the
  /// core describes effects, it never performs them.
  package var effects: [Effect] = []

  /// Creates a result.
  package init(
    state: AppState, output: String, quits: Bool = false, catalogChanges: [CatalogChange] = [],
    continuation: OutputContinuation? = nil
  ) {
    self.state = state
    self.output = output
    self.quits = quits
    self.catalogChanges = catalogChanges
    self.continuation = continuation
  }
}

/// An effect of a command on the world outside its state, which the shell performs as it
/// saves the state: claims first, the others once every file the state needs is written
/// beside the old one (a full disk has stopped the command by then) and before anything is
/// put in place. One that fails fails the command, and nothing is saved.
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

  /// Whether the effect claims a scene, which must come before the scene's file is written.
  package var isClaim: Bool {
    if case .claimScene = self { return true }
    return false
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
