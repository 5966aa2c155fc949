import CatalogModel
import Foundation
import StateRestoration

extension AppState {
  /// The deepest path a scene keeps; it bounds the scene file's size.
  package static let maximumPathDepth = 1000

  /// Applies a command that moves along the active scene's path, or shows it.
  func applyingNavigation(_ command: NavigationCommand, environment: some AppEnvironment) throws
    -> CommandResult
  {
    var state = self
    var scene = state.activeScene
    let render = Renderer(environment: environment)
    switch command {
    case .select(let reference):
      try scene.refuseWhileEditing("select")
      let product = try environment.product(matching: reference, in: catalog)
      scene.path = ScenePath([.product(product.identifier)])
      state.activeScene = scene
      var result = CommandResult(
        state: state, output: render.detail(product, tab: scene.selectedTab))
      result.effects.append(.refreshActivity)
      return result

    case .push(let reference):
      try scene.refuseWhileEditing("push")
      let product = try environment.product(matching: reference, in: catalog)
      try scene.push(.product(product.identifier))
      state.activeScene = scene
      var result = CommandResult(
        state: state, output: render.detail(product, tab: scene.selectedTab))
      result.effects.append(.refreshActivity)
      return result

    case .year(let arguments):
      try scene.refuseWhileEditing("year")
      let words = arguments.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
      let text = words.first ?? ""
      guard words.count <= 2, text.allSatisfy(\.isASCII), let year = Int(text),
        Route.years.contains(year)
      else {
        throw CatalogCoreError.invalidArgument(
          text, expected: "a year in \(Route.years.lowerBound)...\(Route.years.upperBound)")
      }
      let page =
        try CommandTable.page(words.count > 1 ? words[1] : "", usage: "year YYYY [PAGE]") ?? 1
      let pages = max(1, Paging(total: catalog.count(year: year), size: environment.pageSize).pages)
      guard page <= pages else {
        throw CatalogCoreError.invalidArgument(
          String(page), expected: "a page from 1 to \(pages.grouped)")
      }
      // Another page of the list on top is shown in place, not pushed again.
      if scene.path.topYear != year { try scene.push(.year(year)) }
      state.activeScene = scene
      return CommandResult(
        state: state, output: render.yearList(year, page: page, in: catalog))

    case .back(let count):
      try scene.refuseWhileEditing("back")
      let depth = scene.path.routes.count
      guard count <= depth else {
        throw CatalogCoreError.cannotGoBack(requested: count, depth: depth)
      }
      scene.path = ScenePath(Array(scene.path.routes.dropLast(count)))
      state.activeScene = scene
      return CommandResult(state: state, output: render.location(of: scene, in: catalog))

    case .root:
      try scene.refuseWhileEditing("root")
      scene.path = ScenePath()
      state.activeScene = scene
      return CommandResult(state: state, output: render.location(of: scene, in: catalog))

    case .path(let codable):
      let path = scene.path
      return CommandResult(
        state: state,
        output: codable
          ? String(decoding: path.codableRepresentation, as: UTF8.self)
          : render.path(path, of: scene, in: catalog))

    case .open(let text):
      return try applyingLink(text, environment: environment)
    }
  }
}

extension Scene {
  /// Pushes a route, within the depth limit.
  mutating func push(_ route: Route) throws {
    var path = self.path
    guard path.routes.count < AppState.maximumPathDepth else {
      throw CatalogCoreError.pathTooDeep(limit: AppState.maximumPathDepth)
    }
    path.routes.append(route)
    self.path = path
  }
}
