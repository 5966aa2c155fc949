import ActivityIndex
import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import SystemSupport
import TestSupport
import Testing

@testable import CatalogCore

let bundledCatalog = Catalog(bundledProducts)

/// An environment that records what commands asked of it.
final class FakeEnvironment: AppEnvironment {
  var catalog = bundledCatalog
  var claimed: [SceneName] = []
  var ownedElsewhere: Set<SceneName> = []
  /// The product edits commands asked to save, as the shell would commit them.
  var saved: [ProductChange] = []
  /// Every catalog change commands asked to save: edits, additions, deletions.
  var catalogChanges: [CatalogChange] = []
  var history: [UserActivityRecord] = []
  var drawsPictures = false
  var now = Date(timeIntervalSinceReferenceDate: 800_000_000)

  var others: [OtherScene] = []
  var currentDirectory = "/home/user/photos"

  func otherScenes(in catalog: Catalog) -> [OtherScene] { others }

  /// Activities handed off to scenes other processes have open.
  var handedOff: [(UserActivityRecord, SceneName)] = []
  /// Activities published for other machines, and those other machines published (nil: the
  /// catalog is on this machine alone).
  var publishedToMachines: [UserActivityRecord] = []
  var fromOtherMachines: [MachineHandoff]?

  func handoffsElsewhere() throws -> [MachineHandoff] {
    guard let fromOtherMachines else { throw CatalogError.handoffNeedsServer }
    return fromOtherMachines
  }

  /// Scenes saved by processes that closed them, and those of them the shell has read.
  var savedScenes: Set<SceneName> = []
  var restoredScenes: [SceneName: Scene] = [:]

  func hasSavedScene(_ name: SceneName) -> Bool { savedScenes.contains(name) }

  func restoredScene(_ name: SceneName) -> (scene: Scene, note: String?)? {
    guard savedScenes.contains(name) else { return (Scene(name: name), nil) }
    return restoredScenes[name].map { ($0, nil) }
  }

  func owner(ofScene name: SceneName) -> SceneOwner? {
    guard ownedElsewhere.contains(name) else { return nil }
    return SceneOwner(
      process: ProcessIdentity(pid: 42, startTime: nil), terminal: nil, isFront: true)
  }

  /// Does what a command's effects ask, as the shell would, before its state is saved.
  func perform(_ result: inout CommandResult) throws {
    for effect in result.effects {
      switch effect {
      case .claimScene(let name):
        if ownedElsewhere.contains(name) {
          throw CatalogCoreError.sceneOwned(name.rawValue, pid: 42)
        }
        claimed.append(name)
      case .forgetActivities(nil):
        history.removeAll()
      case .forgetActivities(let identifiers?):
        history.removeAll { $0.persistentIdentifier.map(identifiers.contains) ?? false }
      case .publishHandoff(let activity):
        guard fromOtherMachines != nil else { throw CatalogError.handoffNeedsServer }
        publishedToMachines.append(activity)
      case .handOff(let activity, _, let scene):
        handedOff.append((activity, scene))
        result.output = "Handed off '\(activity.title ?? "")' to scene '\(scene)' (pid 42)."
      case .saveCatalog(let changes):
        catalogChanges += changes
        saved += changes.compactMap {
          guard case .edit(let change) = $0 else { return nil }
          return change
        }
      case .refreshActivity: break
      }
    }
  }

  func photoDescription(of product: Product) -> String {
    "Images/\(product.imageName).png, 64×64 pixels"
  }

  func picture(of product: Product) -> [String]? {
    drawsPictures ? ["<\(product.imageName) picture>"] : nil
  }

  func savedActivities(page: Int, size: Int, in catalog: Catalog) throws -> (
    records: [UserActivityRecord], total: Int
  ) {
    let sorted = history.sorted {
      ($0.lastActiveDate ?? .distantPast) > ($1.lastActiveDate ?? .distantPast)
    }
    return (Array(sorted.dropFirst((page - 1) * size).prefix(size)), history.count)
  }

  func search(_ text: String, in catalog: Catalog) throws -> SearchResults {
    let history = history.map(ActivityHistory.Entry.init)
    return try ActivitySearch(catalog: catalog).counted(
      for: text, viewed: { _, _ in history }, now: now)
  }
}

/// Runs lines through the parser and the core, as the REPL does, stopping at the first error.
func run(
  _ lines: [String],
  from state: AppState = AppState(
    catalog: bundledCatalog, scenes: [Scene(name: .main)], activeSceneName: .main),
  environment: FakeEnvironment = FakeEnvironment(),
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> (state: AppState, output: String) {
  var state = state
  var output = ""
  for line in lines {
    guard let command = try CommandParser.parse(line) else { continue }
    var result = try state.applying(command, environment: environment)
    try environment.perform(&result)
    state = result.state
    output = result.output
  }
  return (state, output)
}
