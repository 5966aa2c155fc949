/// Something the library did, or could not do, that a program may want to tell its user or act
/// on: ``SessionStore/warnings``, ``LaunchCheck/warnings``.
///
/// Nothing was lost in any of them; each ``description`` is one line for the user.
public enum StateRestorationWarning: Sendable, Hashable, CustomStringConvertible {
  /// The state directory, or files the library made in it, were open to other users and were
  /// made private; entries it did not make keep their modes.
  case madePrivate(detail: String)
  /// A file that could not be read was moved to `quarantine/`; the scene starts fresh.
  ///
  /// - Parameters:
  ///   - scene: The scene whose file it was.
  ///   - reason: Why the file could not be read, naming it.
  ///   - keptAs: The file's path in `quarantine/`.
  case sceneSetAside(scene: SceneName, reason: String, keptAs: String)
  /// A stored value that no longer decodes as its key's type was kept under another key when
  /// the program wrote that key.
  case valueSetAside(scene: SceneName, SetAsideValue)
  /// A change could not be saved as it was made (``SessionStore/savesEveryChange``); the next
  /// change, a ``SessionStore/save(activeScene:)`` or the program's exit tries again.
  case changeNotSaved(reason: String)
  /// A launch could not be recorded, or an earlier launch's record could not be read or
  /// removed: the next launch may miss, or count, a crash.
  case launchNotRecorded(detail: String)

  /// The warning in one line.
  public var description: String {
    switch self {
    case .madePrivate(let detail): detail
    case .sceneSetAside(let scene, let reason, let keptAs):
      "\(reason); moved it to '\(keptAs)' and scene '\(scene)' starts fresh"
    case .valueSetAside(let scene, let value): "scene '\(scene)': \(value)"
    case .changeNotSaved(let reason): "\(reason); not saved yet"
    case .launchNotRecorded(let detail): detail
    }
  }
}
