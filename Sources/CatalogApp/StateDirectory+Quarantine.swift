import SystemSupport

extension StateDirectory {
  /// Moves a file that could not be read to quarantine, for a warning that says so.
  ///
  /// Used for files that are never written without being read first (the histories, an earlier
  /// version's activities): when the move fails, the file stays, and the app goes on without it.
  ///
  /// - Parameters:
  ///   - path: The file's path in the directory.
  ///   - error: Why it could not be read.
  ///   - consequence: What the app does without it.
  /// - Returns: The warning: the reason, where the file went, and the consequence.
  func quarantine(_ path: String, because error: any Error, consequence: String) -> String {
    let reason = error.localizedDescription
    do {
      let destination = try quarantine(path)
      return "\(reason); moved it to '\(destination)' and \(consequence)"
    } catch let moveError {
      return SystemError.cannotSetAside(
        problem: reason, reason: moveError.localizedDescription
      ).localizedDescription
    }
  }
}
