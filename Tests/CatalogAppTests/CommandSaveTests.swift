import CatalogApp
import CatalogCore
import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import Testing

/// The order a command's save takes, with fakes for the scene files, the catalog and the
/// activity history that write one shared log: scene files prepared → effects → catalog
/// committed → scene files in place → activity recorded, and nothing after a step that fails.
@Suite struct CommandSaveTests {
  enum Step: String, CaseIterable {
    case prepare, effects, catalog, forget, rename, activity
  }

  struct Failure: Error {}

  /// The log the fakes write, and the step made to fail.
  final class World {
    var log: [Step] = []
    var failing: Step?

    func run(_ step: Step) throws {
      if failing == step { throw Failure() }
      log.append(step)
    }
  }

  struct Scenes: SceneFileWriting {
    let world: World

    func prepareFiles(
      saving scenes: [Scene], session: SessionState?, closing: Set<SceneName>,
      flushingInBackground: Bool
    ) throws -> (prepared: [SceneName], notes: [String]) {
      try world.run(.prepare)
      return (scenes.map(\.name), [])
    }

    func putInPlace(_ prepared: [SceneName]) throws {
      try world.run(.rename)
    }
  }

  struct CatalogFake: CatalogWriting {
    let world: World

    func save(_ changes: [CatalogChange]) throws -> Catalog {
      try world.run(.catalog)
      return Catalog(Array(bundledProducts.prefix(2)))
    }
  }

  struct Activities: ActivityRecording {
    let world: World

    func forget(persistentIdentifiers identifiers: [String]) throws {
      try world.run(.forget)
    }

    func makeCurrentInBackground(_ activity: UserActivityRecord) {
      try? world.run(.activity)
    }
  }

  /// A save of an edited scene, a deleted product and the activity the scene now shows.
  var save: CommandSave {
    var save = CommandSave()
    save.scenes = [Scene(name: .main)]
    save.catalogChanges = [.delete(bundledProducts[3].identifier, name: bundledProducts[3].name)]
    save.activities = [ProductActivity.show(bundledProducts[1])]
    return save
  }

  func perform(_ save: CommandSave, in world: World) throws -> (
    catalog: Catalog?, notes: [String]
  ) {
    try save.perform(
      scenes: Scenes(world: world), catalog: CatalogFake(world: world),
      activities: Activities(world: world), effects: { try world.run(.effects) })
  }

  @Test func everyStepRunsOnceInOrder() throws {
    let world = World()
    let saved = try perform(save, in: world)
    #expect(world.log == [.prepare, .effects, .catalog, .forget, .rename, .activity])
    #expect(saved.catalog?.count == 2)
    #expect(saved.notes.isEmpty)
  }

  @Test func withoutCatalogChangesTheCatalogIsNotWritten() throws {
    let world = World()
    var save = self.save
    save.catalogChanges = []
    let saved = try perform(save, in: world)
    #expect(world.log == [.prepare, .effects, .rename, .activity])
    #expect(saved.catalog == nil)
  }

  @Test(arguments: [Step.prepare, .effects, .catalog, .rename])
  func aFailedStepEndsTheSaveThere(_ failing: Step) throws {
    let world = World()
    world.failing = failing
    #expect(throws: Failure.self) { try perform(save, in: world) }
    let order = Step.allCases
    let expected = order.prefix { $0 != failing }
    #expect(world.log == Array(expected))
    // No scene is put in place before the catalog has what it shows, and no activity is
    // recorded that its scene does not show.
    #expect(!world.log.contains(.activity))
    if failing != .rename { #expect(!world.log.contains(.rename)) }
  }

  @Test func aHistoryThatCannotForgetKeepsTheSaveGoing() throws {
    let world = World()
    world.failing = .forget
    let saved = try perform(save, in: world)
    #expect(world.log == [.prepare, .effects, .catalog, .rename, .activity])
    #expect(saved.notes.count == 1)
    let note = saved.notes.first ?? ""
    #expect(note.hasPrefix("the deleted product's saved activities were kept"))
  }

  /// Saves put off are folded into the next: its scenes and session win, the earlier's stay
  /// where it says nothing, and one activity of a product is recorded, the newer.
  @Test func aSavePutOffIsFoldedIntoTheNext() throws {
    var earlier = CommandSave()
    let side = Scene(name: SceneName("side"))
    var main = Scene(name: .main)
    main.userActivity = ProductActivity.show(bundledProducts[1])
    earlier.scenes = [main, side]
    earlier.session = SessionState(scenes: [.main, side.name], activeScene: side.name)
    var first = ProductActivity.show(bundledProducts[1])
    first.lastActiveDate = Date(timeIntervalSinceReferenceDate: 1)
    earlier.activities = [first, ProductActivity.show(bundledProducts[2])]
    var later = CommandSave()
    main.userActivity = ProductActivity.show(bundledProducts[2])
    later.scenes = [main]
    var again = ProductActivity.show(bundledProducts[1])
    again.lastActiveDate = Date(timeIntervalSinceReferenceDate: 2)
    later.activities = [again]
    let both = later.including(earlier)
    #expect(both.scenes.map(\.name) == [side.name, .main])
    #expect(both.scenes.last?.userActivity == ProductActivity.show(bundledProducts[2]))
    #expect(both.session == earlier.session)
    #expect(
      both.activities.map(\.title)
        == [bundledProducts[2].name, bundledProducts[1].name].map {
          "Show \($0) product"
        })
    #expect(both.activities.last?.lastActiveDate == again.lastActiveDate)
    let world = World()
    _ = try perform(both, in: world)
    #expect(world.log == [.prepare, .effects, .rename, .activity, .activity])
  }
}
