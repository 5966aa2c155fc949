import CatalogModel

/// What applying a command gives: the new state and what to print.
package struct CommandResult: Sendable {
  /// The state after the command.
  package var state: AppState
  /// The text to print on standard output; empty for none.
  package var output: String
  /// Whether the command ends the session.
  package var quits = false
  /// The product edits to save with the command's other changes; the state's catalog already
  /// shows them.
  package var catalogChanges: [CatalogChange] = []
}
