import CatalogModel
import Foundation
import StateRestoration

extension AppState {
  /// Handles a deep link (SPEC section 6): in the scene it names, opened if needed, or in the
  /// active scene. Everything is checked before anything changes.
  func applyingLink(_ text: String, environment: some AppEnvironment) throws -> CommandResult {
    let link = try DeepLink.parse(text)
    guard let url = URL(string: text) else {
      throw CatalogCoreError.invalidLink(text, problem: "it is not a URL")
    }
    var state = self
    var results: SearchResults?
    if case .search(let query) = link.destination {
      results = try environment.search(query, in: catalog)
    }
    let render = Renderer(environment: environment)
    var messages: [String] = []
    let product: Product?
    if case .product(let reference, _, _) = link.destination {
      product = try catalog.product(matching: reference)
    } else {
      product = nil
    }
    let targetName = link.scene ?? activeSceneName
    if let existing = state.scene(named: targetName.rawValue) {
      try existing.refuseLink(link.destination, product: product)
      if targetName != activeSceneName {
        state.activeSceneName = targetName
        state.updatePhases()
        messages.append("Switched to scene '\(targetName)'.")
      }
    } else {
      try state.openScene(targetName, environment: environment)
      messages.append("Opened scene '\(targetName)'.")
    }

    if let results {
      state.lastSearch = results.results
      messages.append(Describe.searchResults(results, columns: environment.terminalColumns))
      return CommandResult(state: state, output: messages.joined(separator: "\n"))
    }
    var scene = state.activeScene
    let routes = RouteManager(
      urlProcessor: CatalogLinkProcessor(catalog: catalog), navigationPath: scene.path.routes)
    try routes.process(url)
    scene.path = ScenePath(routes.navigationPath)
    if case .product(_, let tab, let edit) = link.destination, let product {
      if let tab { scene.selectedTab = tab }
      if edit && !scene.isEditing { scene.presentEditor(for: product) }
    }
    state.activeScene = scene
    messages.append(render.location(of: scene, in: catalog))
    return CommandResult(state: state, output: messages.joined(separator: "\n"))
  }
}

extension Scene {
  /// Refuses a link that would move this scene's path while its editor is open; a link to the
  /// product being edited, and a bare scene link, are fine.
  fileprivate func refuseLink(_ destination: DeepLink.Destination, product: Product?) throws {
    guard isEditing else { return }
    switch destination {
    case .scene, .search: return
    case .product where product?.identifier == path.topProduct && path.routes.count == 1: return
    default: throw CatalogCoreError.editorOpen(command: "open")
    }
  }
}
