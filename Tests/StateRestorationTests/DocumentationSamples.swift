import ActivityIndex
import Foundation
import SearchIndex
import StateRestoration

// The code samples of the README and the DocC catalog, each as written there, so that the
// build compiles them; `DocumentationSampleTests` checks that every sample is here. What a
// sample leaves to the reader (the state directory, a view's enum) comes in as a parameter or
// a declaration before it. None is run: each would open a session in the test process.

enum DocumentationSamples {
  // MARK: README.md, "The library"

  static func readmeAdoption(stateDirectory: String) throws {
    struct TodoView {
      @SceneStorage("TodoView.lists") var lists: [String: [String]] = [:]
      @SceneStorage("TodoView.path") var path: NavigationPath.CodableRepresentation?
    }

    let session = try SessionStore(directory: stateDirectory)  // its own files private, swept
    _ = try session.open("main")  // claimed and restored
    let view = TodoView()  // bound to that scene
    view.lists["groceries", default: []].append("milk")  // saved when the program leaves
    try session.save()  // durable now, even for kill -9
  }

  static func readmeSwiftUIPatterns() throws {
    var path = NavigationPath()
    path.append(2015)
    path.append("Cherry pie")
    let data = try JSONEncoder().encode(path.codable)  // SwiftUI's format
    let saved = try JSONDecoder().decode(NavigationPath.CodableRepresentation.self, from: data)
    path = NavigationPath(saved)  // throws above if it cannot restore

    let activity = NSUserActivity(activityType: "com.example.recipe")
    activity.title = "Show Cherry pie"
    activity.userInfo = ["recipe": "Cherry pie"]
    activity.isEligibleForSearch = true
    activity.becomeCurrent()  // saved in the history, once one is set
  }

  static func readmeActivitySearch(stateDirectory: String) throws {
    let history = ActivityHistory(directory: stateDirectory)  // activities.sqlite beside the scenes
    UserActivityCenter.shared.history = history
    let activity = NSUserActivity(activityType: "com.example.recipe")
    activity.title = "Show Cherry pie"
    activity.isEligibleForSearch = true
    activity.becomeCurrent()  // saved in the history
    for result in try history.search("cher pie") {  // prefixes, phrases, CJK, one typo
      print(result.activity.title ?? "")
    }
  }

  // MARK: GettingStarted.md

  static func gettingStarted(stateDirectory: String) throws {
    struct TodoView {
      @SceneStorage("TodoView.lists") var lists: [String: [String]] = [:]
      @SceneStorage("TodoView.path") var path: NavigationPath.CodableRepresentation?
    }

    let session: SessionStore
    do {
      session = try SessionStore(directory: stateDirectory)
      _ = try session.open(.main)  // refused while another process has it open
    } catch {
      print("error: \(error.localizedDescription)")
      exit(1)
    }
    let view = TodoView()  // bound to the scene the program opened
    var path = view.path.map(NavigationPath.init) ?? NavigationPath()
    for warning in session.warnings { print("warning: \(warning)") }

    view.lists["groceries", default: []].append("milk")
    path.append("groceries")
    view.path = path.codable
    try session.save()  // only where the change must survive kill -9
  }

  // MARK: StateRestoration.md

  static func overview(store: SceneStore) {
    enum Tabs: String { case detail, photo }

    struct DetailView {
      @SceneStorage("DetailView.selectedTab") var selectedTab = Tabs.detail
      @SceneStorage("ContentView.selectedProduct") var selectedProduct: String?
    }

    let view = SceneStore.$current.withValue(store) { DetailView() }
    view.selectedTab = .photo
  }

  // MARK: SearchIndex.md

  static func searchIndexOverview(recipes: [(name: String, tags: [String])]) throws {
    var index = SearchIndex(recipes.map { SearchDocument(title: $0.name, keywords: $0.tags) })
    let hits = try index.search(SearchQuery("cher pie"), limit: 10)  // best first
    index.update(SearchDocument(title: "Cherry tart"), at: 3)  // searchable at once
    _ = hits
  }
}
