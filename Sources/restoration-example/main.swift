// To-do lists in a REPL that comes back where its user left it, even after `kill -9`: one
// window (scene) per process, each with its own lists and its own place in them. Opening a
// list advertises it as a user activity, which any scene's `search` finds, as Spotlight finds
// an app's activities, and `open N` continues. It uses the public API of StateRestoration and
// ActivityIndex and nothing else of this package.
//
//   restoration-example [--state DIR] [--scene NAME]
//   commands: ls, new TEXT, cd NAME|N|.., rm N, pwd, search TEXT, open N, quit
import ActivityIndex
import Foundation
import StateRestoration

/// What one scene shows: its lists, and where it is in them, as `@SceneStorage`.
struct TodoView {
  @SceneStorage("TodoView.lists") var lists: [String: [String]] = [:]
  @SceneStorage("TodoView.path") var path: NavigationPath.CodableRepresentation?
}

/// Writes a line at once, unbuffered: each answer reaches a pipe as it is given.
func show(_ text: String, terminator: String = "\n") {
  FileHandle.standardOutput.write(Data((text + terminator).utf8))
}

func say(_ prefix: String, _ message: String) {
  FileHandle.standardError.write(Data("\(prefix): \(message)\n".utf8))
}

func fail(_ message: String) -> Never {
  say("error", message)
  exit(1)
}

let environment = ProcessInfo.processInfo.environment
var stateDirectory =
  (environment["XDG_STATE_HOME"] ?? NSHomeDirectory() + "/.local/state") + "/restoration-example"
var sceneName = SceneName.main
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--state":
    guard let value = arguments.popFirst() else { fail("--state needs a directory") }
    stateDirectory = value
  case "--scene":
    guard let value = arguments.popFirst().flatMap(SceneName.init) else {
      fail("--scene needs a name of letters, digits, '-' and '_'")
    }
    sceneName = value
  case "-h", "--help":
    show("usage: restoration-example [--state DIR] [--scene NAME]")
    show("commands: ls, new TEXT, cd NAME|N|.., rm N, pwd, search TEXT, open N, quit")
    exit(0)
  default:
    fail("unknown argument '\(argument)'; usage: restoration-example [--state DIR] [--scene NAME]")
  }
}

// Open the state, claim this window's scene and bind its storage: the adoption in brief.
let session: SessionStore
let view: TodoView
do {
  session = try SessionStore(directory: stateDirectory)
  let launch = try session.beginLaunch()
  if launch.startsFresh {
    say("warning", "the last \(launch.crashedLaunches) launches crashed; starting fresh")
  }
  view = SceneStore.$current.withValue(try session.open(sceneName)) { TodoView() }
} catch {
  fail(error.localizedDescription)
}
for warning in session.warnings { say("warning", warning.description) }

// The system's part on Apple's platforms: the activity types this program continues, and
// the history its activities are saved in and searched.
let listActivity = "com.example.todo.list"
UserActivityCenter.shared.declaredActivityTypes = [listActivity]
let history = ActivityHistory(directory: stateDirectory)
UserActivityCenter.shared.history = history

/// Advertises the list shown, as a SwiftUI view does with `userActivity(_:isActive:)`.
@MainActor
func advertise(_ list: String) {
  let activity = NSUserActivity(activityType: listActivity)
  activity.title = "Show list \(list)"
  activity.userInfo = ["list": list, "scene": sceneName.rawValue]
  activity.keywords = Set(view.lists[list] ?? [])
  activity.targetContentIdentifier = list
  activity.persistentIdentifier = "\(sceneName)/\(list)"
  activity.isEligibleForSearch = true
  do {
    try activity.makeCurrent()
  } catch {
    say("warning", "the list is not searchable: \(error.localizedDescription)")
  }
}

/// The last search's results, for `open N`.
var found: [UserActivityRecord] = []

/// The path as saved, cut back to what still exists: a list name, then an item number.
func restoredPath() -> NavigationPath {
  var path = view.path.map(NavigationPath.init) ?? NavigationPath()
  let list = path.element(at: 0, as: String.self)
  let valid =
    list.flatMap { view.lists[$0] }.map { items in
      path.count == 1
        || path.count == 2 && path.element(at: 1, as: Int.self).map(items.indices.contains) == true
    } ?? path.isEmpty
  if !valid { path = NavigationPath() }
  return path
}

var path = restoredPath()
session.endLaunch(reachedPrompt: true)

func place(_ path: NavigationPath) -> String {
  guard let list = path.element(at: 0, as: String.self) else { return "/" }
  guard let item = path.element(at: 1, as: Int.self) else { return "/\(list)" }
  return "/\(list)/\(item + 1) \(view.lists[list]?[item] ?? "")"
}

show("scene '\(sceneName)' at \(place(path))")
let interactive = isatty(0) == 1
while true {
  if interactive { show("> ", terminator: "") }
  guard let line = readLine() else { break }
  let words = line.split(separator: " ", maxSplits: 1).map(String.init)
  guard let command = words.first else { continue }
  let argument = words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : ""
  let list = path.element(at: 0, as: String.self)
  let items = list.flatMap { view.lists[$0] } ?? []
  let number = Int(argument).map { $0 - 1 }.flatMap { items.indices.contains($0) ? $0 : nil }
  switch (command, list) {
  case ("quit", _): exit(0)
  case ("pwd", _): show(place(path))
  case ("ls", nil):
    for name in view.lists.keys.sorted() { show("\(name) (\(view.lists[name]?.count ?? 0))") }
  case ("ls", _):
    for (index, item) in items.enumerated() { show("\(index + 1). \(item)") }
  case ("new", _) where argument.isEmpty: say("error", "new needs a name")
  case ("new", nil): view.lists[argument] = view.lists[argument] ?? []
  case ("new", let list?):
    view.lists[list, default: []].append(argument)
    advertise(list)
  case ("cd", _) where argument == "..": if !path.isEmpty { path.removeLast() }
  case ("cd", nil) where view.lists[argument] != nil:
    path.append(argument)
    advertise(argument)
  case ("search", _) where !argument.isEmpty:
    do {
      found = try history.search(argument).map(\.activity)
      if found.isEmpty { show("nothing found") }
      for (index, activity) in found.enumerated() {
        let scene = activity.userInfo["scene"].flatMap { value -> String? in
          guard case .string(let name) = value else { return nil }
          return name
        }
        show("\(index + 1). \(activity.title ?? "") (scene \(scene ?? "?"))")
      }
    } catch {
      say("error", error.localizedDescription)
    }
  case ("open", _) where Int(argument).map({ found.indices.contains($0 - 1) }) == true:
    // Continued as the system continues an activity: by what its userInfo names.
    let activity = found[(Int(argument) ?? 1) - 1]
    guard case .string(let list)? = activity.userInfo["list"] else { continue }
    if case .string(let scene)? = activity.userInfo["scene"], scene != sceneName.rawValue {
      say("error", "'\(list)' is a list of scene '\(scene)'; run with --scene \(scene) to open it")
      continue
    }
    guard view.lists[list] != nil else {
      say("error", "list '\(list)' is gone")
      continue
    }
    path = NavigationPath([list])
  case ("open", _):
    say("error", "no result '\(argument)'; type 'search TEXT', then 'open N'")
  case ("cd", _?) where path.count == 1 && number != nil: path.append(number ?? 0)
  case ("rm", let list?) where path.count == 1 && number != nil:
    view.lists[list]?.remove(at: number ?? 0)
    advertise(list)
  case ("rm", nil) where view.lists[argument] != nil: view.lists[argument] = nil
  case ("cd", _), ("rm", _): say("error", "no '\(argument)' here; type 'ls' to see what there is")
  default:
    say("error", "unknown command '\(command)'; commands: ls, new, cd, rm, pwd, search, open, quit")
  }
  // Saved before the answer is printed: what the user saw survives a crash.
  view.path = path.isEmpty ? nil : path.codable
  do {
    try session.save()
  } catch {
    say("error", "\(error.localizedDescription); not saved yet: the next command tries again")
  }
  if command == "cd" || command == "open" { show(place(path)) }
}
