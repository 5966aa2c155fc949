// A route manager as SwiftUI's deep-linking articles write one, run on Linux: deep links and
// continued user activities become a NavigationPath, which the scene keeps in
// `@SceneStorage("navigationState")`. The RouteManager class and the processor protocols are
// the program's own, as in the articles; Linux adds `import StateRestoration` (NSUserActivity,
// NavigationPath, @SceneStorage) and a session that stands in for the system's.
//
//   route-example [--state DIR]
//   commands: open URL | continue TYPE ID | back | path | sync | quit
//   links: shop://product/ID, shop://settings
import Foundation
import Observation
import StateRestoration

enum Route: Hashable, Codable {
  case product(Int)
  case settings
}

protocol URLProcessor {
  func process(_ url: URL) -> [Route]?
}

protocol UserActivityProcessor {
  func process(_ activity: NSUserActivity) -> [Route]?
}

struct ShopLinks: URLProcessor {
  func process(_ url: URL) -> [Route]? {
    guard url.scheme == "shop" else { return nil }
    switch url.host {
    case "product": return Int(url.lastPathComponent).map { [.product($0)] }
    case "settings": return [.settings]
    default: return nil
    }
  }
}

struct ProductActivities: UserActivityProcessor {
  static let activityType = "com.example.shop.product"

  func process(_ activity: NSUserActivity) -> [Route]? {
    guard activity.activityType == Self.activityType,
      let identifier = activity.userInfo?["productID"] as? String,
      let product = Int(identifier)
    else { return nil }
    return [.product(product)]
  }
}

@Observable @MainActor
final class RouteManager {
  var navigationPath = NavigationPath()

  private let urlProcessor: any URLProcessor
  private let activityProcessor: any UserActivityProcessor

  init(urlProcessor: any URLProcessor, activityProcessor: any UserActivityProcessor) {
    self.urlProcessor = urlProcessor
    self.activityProcessor = activityProcessor
  }

  func process(_ url: URL) {
    guard let routes = urlProcessor.process(url) else { return }
    for route in routes { navigationPath.append(route) }
  }

  func process(_ activity: NSUserActivity) {
    guard let routes = activityProcessor.process(activity) else { return }
    navigationPath = NavigationPath()
    for route in routes { navigationPath.append(route) }
  }

  func toData() -> Data? {
    guard let representation = navigationPath.codable else { return nil }
    return try? JSONEncoder().encode(representation)
  }

  func restore(from data: Data) {
    do {
      let representation = try JSONDecoder().decode(
        NavigationPath.CodableRepresentation.self, from: data)
      navigationPath = NavigationPath(representation)
    } catch {
      navigationPath = NavigationPath()
    }
  }
}

@MainActor
struct ContentView {
  @SceneStorage("navigationState") private var navigationData: Data?
  let router: RouteManager

  func onAppear() {
    if let navigationData { router.restore(from: navigationData) }
  }

  func pathChanged() {
    navigationData = router.toData()
  }
}

/// Writes a line at once, unbuffered: each answer reaches a pipe as it is given.
func show(_ text: String) {
  FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

@MainActor
func describe(_ path: NavigationPath) -> String {
  guard let data = path.codable.flatMap({ try? JSONEncoder().encode($0) }),
    let strings = try? JSONDecoder().decode([String].self, from: data)
  else { return "\(path.count) routes" }
  var routes: [String] = []
  var index = strings.count - 1
  while index >= 1 {
    routes.append(strings[index])
    index -= 2
  }
  return routes.isEmpty ? "/" : routes.joined(separator: " / ")
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("error: \(message)\n".utf8))
  exit(1)
}

@MainActor
func run() {
  var arguments = CommandLine.arguments.dropFirst()
  let environment = ProcessInfo.processInfo.environment
  var stateDirectory =
    (environment["XDG_STATE_HOME"] ?? NSHomeDirectory() + "/.local/state") + "/route-example"
  while let argument = arguments.popFirst() {
    guard argument == "--state", let value = arguments.popFirst() else {
      fail("usage: route-example [--state DIR]")
    }
    stateDirectory = value
  }
  // What the system does for an Apple app: the scene comes back with its storage.
  let session: SessionStore
  do {
    session = try SessionStore(directory: stateDirectory)
    _ = try session.open(.main)
  } catch {
    fail(error.localizedDescription)
  }
  UserActivityCenter.shared.declaredActivityTypes = [ProductActivities.activityType]

  let router = RouteManager(urlProcessor: ShopLinks(), activityProcessor: ProductActivities())
  let view = ContentView(router: router)
  view.onAppear()
  show("at \(describe(router.navigationPath))")
  while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    switch words.first {
    case "open" where words.count == 2:
      guard let url = URL(string: words[1]) else { fallthrough }
      router.process(url)
    case "continue" where words.count == 3:
      let activity = NSUserActivity(activityType: words[1])
      activity.userInfo = ["productID": words[2]]
      router.process(activity)
    case "back":
      if !router.navigationPath.isEmpty { router.navigationPath.removeLast() }
    case "path":
      break
    case "sync":
      // The one call that makes the state so far survive kill -9.
      do {
        try session.save()
      } catch {
        FileHandle.standardError.write(Data("error: \(error.localizedDescription)\n".utf8))
      }
    case "quit":
      exit(0)
    default:
      FileHandle.standardError.write(
        Data("error: commands: open URL | continue TYPE ID | back | path | sync | quit\n".utf8))
      continue
    }
    view.pathChanged()
    show("at \(describe(router.navigationPath))")
  }
}

MainActor.assumeIsolated { run() }
