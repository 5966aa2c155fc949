import CatalogModel
import Foundation
import StateRestoration

/// What can go wrong running a command; each message says what went wrong and what to do.
package enum CatalogCoreError: Error, Sendable, Equatable, LocalizedError {
  /// The first word is not a command; `suggestion` is the closest one.
  case unknownCommand(String, suggestion: String?)
  /// A required argument is missing; `usage` shows the command's form.
  case missingArgument(usage: String)
  /// The command takes no (more) arguments.
  case unexpectedArgument(String, usage: String)
  /// An argument has a value the command does not accept.
  case invalidArgument(String, expected: String)
  /// The command needs a product's detail on top of the path.
  case noProductShown(command: String)
  /// An argument opens a quote it does not close.
  case unclosedQuote(Character)
  /// `forget N` with no entry N in the last `activities` listing.
  case noSavedActivity(Int, count: Int)
  /// The command works only in the editor.
  case editorNotOpen(command: String)
  /// The command is not available while the editor is open.
  case editorOpen(command: String)
  /// `done` with an empty name.
  case emptyName
  /// A scene name does not follow the rule.
  case invalidSceneName(String)
  /// The scene is already open in this process.
  case sceneAlreadyOpen(String)
  /// No open scene has that name.
  case noSuchScene(String, open: [String])
  /// Another live process owns the scene: where it lives (`pid 14739, /dev/pts/3`).
  case sceneOwned(String, pid: Int32?, terminal: String? = nil)
  /// `scene switch NAME` for a scene another process has open.
  case sceneElsewhere(String, owner: String)
  /// Another process could not be reached, or could not do what it was sent.
  case deliveryFailed(String)
  /// `--scene NAME` names a scene another live process owns.
  case sceneOwnedAtLaunch(String, owner: String)
  /// Back further than the path goes.
  case cannotGoBack(requested: Int, depth: Int)
  /// An input line with a control character.
  case controlCharacter(UInt32)
  /// A deep link that is malformed or unknown; `problem` names the bad part.
  case invalidLink(String, problem: String)
  /// A push beyond the deepest path a scene keeps.
  case pathTooDeep(limit: Int)
  /// A search query that cannot be run; the message says why.
  case invalidSearch(String)
  /// A continued activity names a product no longer in the catalog.
  case activityProductGone(name: String)
  /// `continue N` without that many search results.
  case noSearchResult(Int, count: Int)
  /// `handoff` from a scene that advertises nothing.
  case nothingToHandOff(scene: String)
  /// A link for one scene opened with `--scene` naming another.
  case linkSceneMismatch(link: String, option: String)
  /// `scene new NAME` for a scene saved with its state, which opening restores.
  case sceneSaved(String)
  /// Closing a scene whose editor holds changes not saved, without `--discard`.
  case unsavedDraft(scene: String, draft: String)
  /// A search index file that is intact but not used: another catalog's, newer than the
  /// catalog, or too far behind it (the index is built again).
  case staleSearchIndex(SearchIndexStale)
  /// A command needs a saved scene the shell has not claimed and read yet: a request, which
  /// the shell answers by restoring the scene and applying the command again.
  case sceneToRestore(SceneName)
  /// `catalog reindex` with no usable catalog database to index.
  case noCatalogDatabase(path: String)
  /// An import stopped by Ctrl-C (SIGINT); the catalog is as it was.
  case importInterrupted
  /// An export to a file stopped by Ctrl-C; the file was not written.
  case exportInterrupted(path: String)
  /// `catalog reindex` stopped by Ctrl-C; the index file is as it was.
  case reindexInterrupted
  /// `catalog export` of a catalog that cannot be read: the bundled catalog shown in its place
  /// is not the user's, and is not exported as if it were.
  case cannotExport(path: String, reason: String)

  package var errorDescription: String? {
    switch self {
    case .unknownCommand(let word, let suggestion):
      "unknown command '\(word.abbreviated)'"
        + (suggestion.map { "; did you mean '\($0)'?" } ?? "; type 'help' for the list")
    case .missingArgument(let usage):
      "missing argument; usage: \(usage)"
    case .unexpectedArgument(let argument, let usage):
      "unexpected argument '\(argument.abbreviated)'; usage: \(usage)"
    case .invalidArgument(let argument, let expected):
      "'\(argument.abbreviated)' is not \(expected)"
    case .noSavedActivity(let number, let count):
      count == 0
        ? "there is no saved activity \(number); type 'activities' to list them first"
        : "there is no saved activity \(number); the last listing has \(count)"
    case .unclosedQuote(let quote):
      "the quote \(quote) is not closed; close it, or type \\\(quote) for the character itself"
    case .noProductShown(let command):
      "'\(command)' needs a product; select one first, e.g. 'select 1'"
    case .editorNotOpen(let command):
      "'\(command)' works in the editor; type 'edit' to open it"
    case .editorOpen(let command):
      "'\(command)' is not available while editing; type 'done' to save or 'cancel' to discard"
    case .emptyName:
      "the name is empty; type 'name TEXT' to set it before 'done'"
    case .invalidSceneName(let name):
      "'\(name.abbreviated)' is not a valid scene name; use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)"
    case .sceneAlreadyOpen(let name):
      "scene '\(name)' is already open; type 'scene switch \(name)' to go to it"
    case .noSuchScene(let name, let open):
      "no open scene named '\(name.abbreviated)'"
        + (Suggestion.closest(to: name, in: open).map { "; did you mean '\($0)'?" }
          ?? "; open scenes: \(open.joined(separator: ", "))")
    case .sceneOwned(let name, let pid, let terminal):
      "scene '\(name)' is open in another catalog process"
        + (pid.map { " (pid \($0)" + (terminal.map { ", \($0)" } ?? "") + ")" } ?? "")
        + "; quit it there first, or choose another scene"
    case .sceneElsewhere(let name, let owner):
      "scene '\(name)' is open in another terminal (\(owner)); go to that terminal, or type 'handoff \(name)' to continue this scene's activity there"
    case .deliveryFailed(let reason): reason
    case .sceneOwnedAtLaunch(let name, let owner):
      "scene '\(name)' is open in another catalog process (\(owner)); quit it there first, or run 'catalog' without --scene, which opens a free scene"
    case .cannotGoBack(let requested, let depth):
      depth == 0
        ? "already at the product list; nothing to go back to"
        : "cannot go back \(requested); the path has \(depth) element\(depth == 1 ? "" : "s")"
    case .controlCharacter(let value):
      "the line contains the control character U+\(String(format: "%04X", value)); remove it and try again"
    case .invalidLink(let link, let problem):
      "'\(link.abbreviated)' is not a valid link: \(problem)"
    case .pathTooDeep(let limit):
      "the path is already \(limit) elements deep; go back ('back' or 'root') before pushing more"
    case .invalidSearch(let message):
      message
    case .activityProductGone(let name):
      "the activity's product '\(name.abbreviated)' is no longer in the catalog; search again"
    case .noSearchResult(let number, let count):
      count == 0
        ? "there are no search results to continue; type 'search QUERY' first"
        : "there is no result \(number); the last search has \(count)"
    case .nothingToHandOff(let scene):
      "scene '\(scene)' shows no product, so it has no activity to hand off; select one first"
    case .linkSceneMismatch(let link, let option):
      "the link is for scene '\(link)' but '--scene' names '\(option)'; drop one of them"
    case .sceneToRestore(let name):
      "scene '\(name)' must be restored before the command can be applied"
    case .staleSearchIndex(let stale):
      "the search index \(stale.rawValue); building it again"
    case .importInterrupted:
      "the import was interrupted; nothing was imported, and the catalog is as it was"
    case .exportInterrupted(let path):
      "the export was interrupted; '\(path)' was not written"
    case .reindexInterrupted:
      "the index build was interrupted; the search index is as it was"
    case .noCatalogDatabase(let path):
      "the catalog database '\(path)' cannot be used (see the warning above), so there is no index to build"
    case .sceneSaved(let name):
      "scene '\(name)' is saved with its state; type 'scene switch \(name)' to open it, or 'scene close \(name)' to discard it"
    case .unsavedDraft(let scene, let draft):
      "scene '\(scene)' has an unsaved draft of '\(draft)'; type 'scene close \(scene) --discard' to discard it, or 'scene switch \(scene)' and 'done' to save it"
    case .cannotExport(let path, let reason):
      "cannot export the catalog '\(path)' (\(reason)); nothing was written. Fix or move the file, or export from a backup"
    }
  }
}
