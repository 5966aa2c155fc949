import StateRestoration

/// One REPL command, parsed and validated in form; applying it checks it against the state.
package enum Command: Sendable, Hashable {
  /// `list [PAGE]` or `list --all`: the product grid, a page at a time or whole.
  case list(ListPage)
  /// A command that moves along the active scene's path, or shows it.
  case navigation(NavigationCommand)
  /// `tab detail|photo`.
  case tab(Tabs)
  /// `edit`: present the editor.
  case edit
  /// `name TEXT` in the editor.
  case setName(String)
  /// `price X` in the editor.
  case setPrice(String)
  /// `image PATH`: the draft's picture, an image file (or a bundled picture's name).
  case setImage(String)
  /// `keywords WORDS`: the draft's keywords, separated by commas (none when empty).
  case setKeywords(String)
  /// `done [--force]`: validate and save the draft; with `--force`, over another process's
  /// change to the same field.
  case done(force: Bool)
  /// `cancel`: discard the draft.
  case cancel
  /// A command of the activities: search, continue, hand off, the history.
  case activity(ActivityCommand)
  /// `scenes [--all]`: list the scenes; with `--all`, also scene files the session does not
  /// list, and when each closed one was saved.
  case scenes(all: Bool = false)
  /// `scene new NAME [PRODUCT]`.
  case newScene(SceneName, product: String?)
  /// `scene switch NAME` or `scene open NAME`: bring a scene to the front, opening a saved one
  /// no process has open.
  case switchScene(String)
  /// `scene close [NAME] [--discard]`: close a scene for good, open or saved; an unsaved draft
  /// is discarded only with `discard`.
  case closeScene(String?, discard: Bool = false)
  /// `state`: the active scene's storage.
  case state
  /// `help [COMMAND]`.
  case help(String?)
  /// `add NAME`: present the editor on a new product.
  case add(String)
  /// `delete PRODUCT`: remove a product from the catalog.
  case delete(String)
  /// `quit`: save and exit.
  case quit
}

/// A command that moves along the active scene's path, or shows it.
package enum NavigationCommand: Sendable, Hashable {
  /// `select PRODUCT`: show a product's detail.
  case select(String)
  /// `push PRODUCT`: push a product's detail onto the path.
  case push(String)
  /// `year YYYY`: push the year's list (in the editor, the draft year instead).
  case year(String)
  /// `back [N]`: pop N elements.
  case back(Int)
  /// `root`: pop to the product list.
  case root
  /// `path [--codable]`: show the navigation path, or its codable JSON.
  case path(codable: Bool)
  /// `open URL`: handle a deep link.
  case open(String)
}

/// A command of the activities.
package enum ActivityCommand: Sendable, Hashable {
  /// `search QUERY`: search the activities and products.
  case search(String)
  /// `continue N`: continue search result N in the active scene.
  case continueResult(Int, scene: String? = nil)
  /// `handoff SCENE`: continue the active scene's activity in another scene.
  case handoff(String)
  /// `handoff --to-machine`: publish the active scene's activity for the user's other
  /// machines, which share the catalog on a server.
  case handoffToMachine
  /// `activities --elsewhere`: the activities the user's other machines handed off.
  case activitiesElsewhere
  /// `continue --elsewhere N`: continue handoff N of `activities --elsewhere` in this scene.
  case continueElsewhere(Int)
  /// An activity another process handed off to one of this process's scenes: continued
  /// there, which comes to the front. Not typed; delivered.
  case continueDelivered(UserActivityRecord, in: SceneName)
  /// `activities [PAGE]`: the saved activity history, newest first.
  case activities(page: Int)
  /// `forget N|PRODUCT` or `forget --all`: delete saved activities.
  case forget(ForgetTarget)
}

/// The navigation and activity commands by their own names, as the parser and tests make
/// them: `.select("Cherries")` is `.navigation(.select("Cherries"))`.
extension Command {
  package static func select(_ product: String) -> Command { .navigation(.select(product)) }
  package static func push(_ product: String) -> Command { .navigation(.push(product)) }
  package static func year(_ text: String) -> Command { .navigation(.year(text)) }
  package static func back(_ count: Int) -> Command { .navigation(.back(count)) }
  package static var root: Command { .navigation(.root) }
  package static func path(codable: Bool) -> Command { .navigation(.path(codable: codable)) }
  package static func open(_ link: String) -> Command { .navigation(.open(link)) }
  package static func search(_ text: String) -> Command { .activity(.search(text)) }
  package static func continueResult(_ number: Int, scene: String? = nil) -> Command {
    .activity(.continueResult(number, scene: scene))
  }
  package static func handoff(_ scene: String) -> Command { .activity(.handoff(scene)) }
  package static var handoffToMachine: Command { .activity(.handoffToMachine) }
  package static var activitiesElsewhere: Command { .activity(.activitiesElsewhere) }
  package static func continueElsewhere(_ number: Int) -> Command {
    .activity(.continueElsewhere(number))
  }
  package static func continueDelivered(_ activity: UserActivityRecord, in scene: SceneName)
    -> Command
  { .activity(.continueDelivered(activity, in: scene)) }
  package static func activities(page: Int) -> Command { .activity(.activities(page: page)) }
  package static func forget(_ target: ForgetTarget) -> Command { .activity(.forget(target)) }
}

extension Command {
  /// What this command names its product by, as typed (`select 42`, `push Cherries`,
  /// `delete` and a UUID): what a command from the shell reads with the catalog's state as it
  /// launches, when it is a list number or an identifier.
  package var namedProduct: String? {
    switch self {
    case .navigation(.select(let product)), .navigation(.push(let product)), .delete(let product):
      product
    default: nil
    }
  }
}

/// Which part of a list to show.
package enum ListPage: Sendable, Hashable {
  /// One page, from 1.
  case page(Int)
  /// Every product, for scripts.
  case all
}

/// Which saved activities `forget` deletes.
package enum ForgetTarget: Sendable, Hashable {
  /// Entry N of the last `activities` listing.
  case number(Int)
  /// Every saved activity of a product.
  case product(String)
  /// Every saved activity.
  case all
}
