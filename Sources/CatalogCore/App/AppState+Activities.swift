import CatalogModel
import Foundation
import StateRestoration

extension AppState {
  /// Applies `search`, `continue` and `handoff`.
  func applyingActivity(_ command: Command, environment: some AppEnvironment) throws
    -> CommandResult
  {
    var state = self
    let render = Renderer(environment: environment)
    switch command {
    case .search(let text):
      state.lastSearch = try environment.search(text, in: catalog)
      return CommandResult(state: state, output: Describe.searchResults(state.lastSearch))

    case .continueResult(let number):
      guard lastSearch.indices.contains(number - 1) else {
        throw CatalogCoreError.noSearchResult(number, count: lastSearch.count)
      }
      try activeScene.refuseWhileEditing("continue")
      try state.continueActivity(
        lastSearch[number - 1].activity, in: activeSceneName, environment: environment)
      return CommandResult(
        state: state, output: render.location(of: state.activeScene, in: catalog))

    case .handoff(let name):
      guard let activity = activeScene.userActivity, activity.isEligibleForHandoff else {
        throw CatalogCoreError.nothingToHandOff(scene: activeSceneName.rawValue)
      }
      guard let target = SceneName(name), target != activeSceneName else {
        throw CatalogCoreError.invalidArgument(name, expected: "another scene")
      }
      try state.scene(named: name)?.refuseWhileEditing("handoff")
      var messages: [String] = []
      if state.scene(named: name) == nil {
        try state.openScene(target, environment: environment)
        messages.append("Opened scene '\(target)'.")
      }
      try state.continueActivity(activity, in: target, environment: environment)
      state.activeSceneName = target
      state.updatePhases()
      messages.append(
        "Handed off '\(activity.title ?? activity.activityType)' to scene '\(target)'.")
      messages.append(render.location(of: state.activeScene, in: catalog))
      return CommandResult(state: state, output: messages.joined(separator: "\n"))

    default:
      preconditionFailure("'\(command.word)' is not an activity command")
    }
  }

  /// Continues an activity in a scene, as its `onContinueUserActivity` handler would: checks
  /// the type is declared and the activity has not expired, then routes it into the path.
  ///
  /// - Throws: A `UserActivityError`, or ``CatalogCoreError/activityProductGone(name:)``.
  mutating func continueActivity(
    _ record: UserActivityRecord, in sceneName: SceneName, environment: some AppEnvironment
  ) throws {
    let now = environment.now
    let center = UserActivityCenter(
      declaredActivityTypes: ProductActivity.declaredTypes, clock: { now })
    try center.validateContinuation(of: record)
    guard var scene = scene(named: sceneName.rawValue) else { return }
    let routes = RouteManager(
      path: scene.path.routes, userActivityProcessors: [ProductActivityProcessor(catalog: catalog)])
    routes.onPathChange { scene.path = ScenePath($0) }
    guard try routes.continueActivity(UserActivity(record: record, center: center)) else {
      throw UserActivityError.noHandler(activityType: record.activityType)
    }
    guard let index = scenes.firstIndex(where: { $0.name == sceneName }) else { return }
    scenes[index] = scene
  }
}
