import CatalogModel
import Foundation
import StateRestoration
import SystemSupport

extension AppState {
  /// Applies `search`, `continue` and `handoff`, and continues a delivered activity.
  func applyingActivity(_ command: ActivityCommand, environment: some AppEnvironment) throws
    -> CommandResult
  {
    var state = self
    let render = Renderer(environment: environment)
    switch command {
    case .search(let text):
      let found = try environment.search(text, in: catalog)
      state.lastSearch = found.results
      var output = Describe.searchResults(found, columns: environment.terminalColumns, hint: false)
      if !state.lastSearch.isEmpty {
        output +=
          "\n"
          + (activeScene.isEditing
            ? Describe.continueHintWhileEditing : Describe.continueHint)
      }
      return CommandResult(state: state, output: output)

    case .activities(let page):
      let size = environment.pageSize
      let (records, total) = try environment.savedActivities(page: page, size: size, in: catalog)
      let paging = Paging(total: total, size: size)
      let pages = max(1, paging.pages)
      guard page <= pages else {
        throw CatalogCoreError.invalidArgument(
          String(page), expected: "a page from 1 to \(pages.grouped)")
      }
      state.lastActivities = records
      return CommandResult(
        state: state,
        output: render.savedActivities(
          records, firstNumber: paging.numbers(onPage: page)?.lowerBound ?? 1, total: total,
          page: page, pages: pages,
          catalog: catalog))

    case .forget(let target):
      switch target {
      case .all:
        let (_, total) = try environment.savedActivities(page: 1, size: 1, in: catalog)
        state.lastActivities = []
        var result = CommandResult(
          state: state,
          output: "Forgot every saved activity (\(total.grouped)); search finds products alone.")
        result.effects += [.forgetActivities(nil)]
        return result
      case .number(let number):
        guard lastActivities.indices.contains(number - 1) else {
          throw CatalogCoreError.noSavedActivity(number, count: lastActivities.count)
        }
        let record = lastActivities[number - 1]
        state.lastActivities.remove(at: number - 1)
        var result = CommandResult(
          state: state, output: "Forgot '\(record.title ?? record.activityType)'.")
        result.effects += [.forgetActivities([record.persistentIdentifier ?? record.historyKey])]
        return result
      case .product(let reference):
        let product = try environment.product(matching: reference, in: catalog)
        state.lastActivities.removeAll {
          $0.persistentIdentifier == product.identifier.canonicalText
        }
        var result = CommandResult(
          state: state, output: "Forgot the saved activities of \(product.name).")
        result.effects += [.forgetActivities([product.identifier.canonicalText])]
        return result
      }

    case .continueResult(let number, let sceneName):
      guard lastSearch.indices.contains(number - 1) else {
        throw CatalogCoreError.noSearchResult(number, count: lastSearch.count)
      }
      let activity = lastSearch[number - 1].activity
      let target = sceneName.flatMap(SceneName.init) ?? activeSceneName
      try state.scene(named: target.rawValue)?.refuseWhileEditing("continue")
      var messages: [String] = []
      if state.scene(named: target.rawValue) == nil {
        // Another terminal's scene gets it there; a scene no process has open, here.
        if environment.owner(ofScene: target) != nil {
          return Self.handingOff(activity, from: activeSceneName, to: target, state: state)
        }
        try state.openScene(target, environment: environment)
        messages.append("Opened scene '\(target)'.")
      }
      try state.continueActivity(activity, in: target, environment: environment)
      state.activeSceneName = target
      state.updatePhases()
      messages.append(render.location(of: state.activeScene, in: catalog))
      return CommandResult(state: state, output: messages.joined(separator: "\n"))

    case .handoff(let name):
      guard let activity = activeScene.userActivity, activity.isEligibleForHandoff else {
        throw CatalogCoreError.nothingToHandOff(scene: activeSceneName.rawValue)
      }
      guard let target = SceneName(name), target != activeSceneName else {
        throw CatalogCoreError.invalidArgument(name, expected: "another scene")
      }
      try state.scene(named: name)?.refuseWhileEditing("handoff")
      // Another terminal's scene: the activity goes there, as Handoff sends it to a device.
      if state.scene(named: name) == nil, environment.owner(ofScene: target) != nil {
        return Self.handingOff(activity, from: activeSceneName, to: target, state: state)
      }
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

    case .handoffToMachine:
      guard let activity = activeScene.userActivity, activity.isEligibleForHandoff else {
        throw CatalogCoreError.nothingToHandOff(scene: activeSceneName.rawValue)
      }
      var result = CommandResult(
        state: state,
        output:
          "Handed off '\(activity.title ?? activity.activityType)' to your other machines: a catalog running there shows it, and 'activities --elsewhere' lists it."
      )
      result.effects += [.publishHandoff(activity)]
      return result

    case .activitiesElsewhere:
      let handoffs = try environment.handoffsElsewhere()
      guard !handoffs.isEmpty else {
        return CommandResult(
          state: state,
          output: "No activities from your other machines; type 'handoff --to-machine' on one.")
      }
      let rows = handoffs.enumerated().map { offset, handoff in
        [
          String(offset + 1), handoff.activity.title ?? handoff.activity.activityType,
          handoff.machine, Describe.age(of: handoff.published, now: environment.now),
        ]
      }
      return CommandResult(
        state: state,
        output: Table.render(
          header: ["#", "Activity", "Machine", "When"], rows: rows, rightAligned: [0])
          + "\nType 'continue --elsewhere N' to continue one here.")

    case .continueElsewhere(let number):
      let handoffs = try environment.handoffsElsewhere()
      guard handoffs.indices.contains(number - 1) else {
        throw CatalogError.noSuchHandoff(number, count: handoffs.count)
      }
      let handoff = handoffs[number - 1]
      try state.continueActivity(handoff.activity, in: activeSceneName, environment: environment)
      state.updatePhases()
      return CommandResult(
        state: state,
        output:
          "Continued '\(handoff.activity.title ?? handoff.activity.activityType)' from machine '\(handoff.machine)'.\n"
          + render.location(of: state.activeScene, in: catalog))

    case .continueDelivered(let activity, let target):
      guard state.scene(named: target.rawValue) != nil else {
        throw CatalogCoreError.noSuchScene(
          target.rawValue, open: scenes.map(\.name.rawValue))
      }
      try state.continueActivity(activity, in: target, environment: environment)
      state.activeSceneName = target
      state.updatePhases()
      // The receiving process says where it comes from; the output is what the scene shows.
      return CommandResult(
        state: state, output: render.location(of: state.activeScene, in: state.catalog))
    }
  }

  /// The result of sending an activity to a scene another process has open: nothing changes
  /// here, and the other process's answer is the output (``Effect/handOff(_:from:to:)``).
  static func handingOff(
    _ activity: UserActivityRecord, from source: SceneName, to target: SceneName,
    state: AppState
  ) -> CommandResult {
    var result = CommandResult(state: state, output: "")
    result.effects += [.handOff(activity, from: source, to: target)]
    return result
  }

  /// Continues an activity in a scene, as its `onContinueUserActivity` handler would: checks
  /// the type is declared and the activity has not expired, then routes it into the path.
  ///
  /// - Throws: A `StateRestorationError`, or ``CatalogCoreError/activityProductGone(name:)``.
  mutating func continueActivity(
    _ record: UserActivityRecord, in sceneName: SceneName, environment: some AppEnvironment
  ) throws {
    let now = environment.now
    let center = UserActivityCenter(
      declaredActivityTypes: ProductActivity.declaredTypes, clock: { now })
    try center.validateContinuation(of: record)
    guard var scene = scene(named: sceneName.rawValue) else { return }
    let routes = RouteManager(
      activityProcessor: ProductActivityProcessor(catalog: catalog),
      navigationPath: scene.path.routes)
    guard try routes.process(NSUserActivity(record: record, center: center)) else {
      throw StateRestorationError.noHandler(activityType: record.activityType)
    }
    scene.path = ScenePath(routes.navigationPath)
    guard let index = scenes.firstIndex(where: { $0.name == sceneName }) else { return }
    scenes[index] = scene
  }
}
