/// What applying a command gives: the new state and what to print.
package struct CommandResult: Sendable {
  /// The state after the command.
  package var state: AppState
  /// The text to print on standard output; empty for none.
  package var output: String
  /// Whether the command ends the session.
  package var quits = false
}
