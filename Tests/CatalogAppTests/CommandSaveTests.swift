import CatalogApp
import CatalogCore
import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import Testing

/// The order a command's save takes, with fakes for the scene files, the catalog and the
/// activity history that write one shared log: a batch of pending activities saved in the
/// history when due → scene files prepared → effects → catalog committed → scene files in
/// place, and nothing after a step that fails.
@Suite struct CommandSaveTests {
  enum Step: String, CaseIterable {
    case history, prepare, effects, catalog, forget, rename
  }

  struct Failure: Error {}

  /// The log the fakes write, the step made to fail, the pending lists the scene files have,
  /// and what the fakes were given.
  final class World {
    var log: [Step] = []
    var failing: Step?
    var pendingLists: [String: [PendingActivity]] = [:]
    var written: [String: [PendingActivity]] = [:]
    var saved: [PendingActivity] = []
    /// Whether the catalog's save is under way, and whether the files were written during it.
    var isSaving = false
    var preparedWhileSaving = false

    func run(_ step: Step) throws {
      if failing == step { throw Failure() }
      log.append(step)
    }
  }

  struct Scenes: SceneFileWriting {
    let world: World

    func prepareFiles(
      saving scenes: [Scene], session: SessionState?, closing: Set<SceneName>,
      flushingInBackground: Bool, pendingActivities: [String: [PendingActivity]],
      activating: (scene: SceneName, date: Date)?
    ) throws -> (prepared: [SceneName], notes: [String]) {
      try world.run(.prepare)
      world.preparedWhileSaving = world.isSaving
      world.written = pendingActivities
      return (scenes.map(\.name), [])
    }

    func putInPlace(_ prepared: [SceneName]) throws {
      try world.run(.rename)
    }

    func pendingActivities(of name: SceneName) -> [PendingActivity] {
      world.pendingLists[name.rawValue] ?? []
    }
  }

  struct CatalogFake: CatalogWriting {
    let world: World

    func save(_ changes: [CatalogChange], whileWriting meanwhile: () throws -> Void) throws
      -> Catalog
    {
      world.isSaving = true
      defer { world.isSaving = false }
      try meanwhile()
      try world.run(.catalog)
      return Catalog(Array(bundledProducts.prefix(2)))
    }
  }

  struct Activities: ActivityRecording {
    let world: World

    func forget(persistentIdentifiers identifiers: [String]) throws {
      try world.run(.forget)
    }

    func save(_ entries: [PendingActivity]) throws -> Bool {
      try world.run(.history)
      world.saved += entries
      return true
    }
  }

  /// The activity of a product, current at a time.
  static func shown(_ index: Int, at seconds: Double) -> UserActivityRecord {
    var record = ProductActivity.show(bundledProducts[index])
    record.lastActiveDate = Date(timeIntervalSinceReferenceDate: seconds)
    return record
  }

  /// Pending entries of made-up keys, one a second from a time.
  static func entries(_ count: Int, from seconds: Double = 0) -> [PendingActivity] {
    (0..<count).map {
      PendingActivity(
        historyKey: "key-\($0)",
        lastActiveDate: Date(timeIntervalSinceReferenceDate: seconds + Double($0)))
    }
  }

  /// A save of an edited scene, a deleted product and the activity the scene now shows.
  var save: CommandSave {
    var save = CommandSave()
    save.scenes = [Scene(name: .main)]
    save.catalogChanges = [.delete(bundledProducts[3].identifier, name: bundledProducts[3].name)]
    save.activities = [(.main, Self.shown(1, at: 1_000))]
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
    #expect(world.log == [.prepare, .effects, .catalog, .forget, .rename])
    #expect(!world.preparedWhileSaving)
    #expect(saved.catalog?.count == 2)
    #expect(saved.notes.isEmpty)
    // The activity waits in its scene's file for the next batch.
    #expect(
      world.written["main"]
        == [
          PendingActivity(
            historyKey: bundledProducts[1].identifier.canonicalText,
            lastActiveDate: Date(timeIntervalSinceReferenceDate: 1_000))
        ])
  }

  @Test func withoutCatalogChangesTheCatalogIsNotWritten() throws {
    let world = World()
    var save = self.save
    save.catalogChanges = []
    let saved = try perform(save, in: world)
    #expect(world.log == [.prepare, .effects, .rename])
    #expect(saved.catalog == nil)
  }

  /// A command without effects outside the process has its files written while the catalog
  /// writes (its first request waiting on a server), before it commits.
  @Test func withoutEffectsTheFilesAreWrittenWhileTheCatalogWrites() throws {
    let world = World()
    let saved = try save.perform(
      scenes: Scenes(world: world), catalog: CatalogFake(world: world),
      activities: Activities(world: world))
    #expect(world.log == [.prepare, .catalog, .forget, .rename])
    #expect(world.preparedWhileSaving)
    #expect(saved.catalog?.count == 2)
  }

  /// Files that cannot be written while the catalog writes stop the save before it commits:
  /// nothing changed.
  @Test func filesThatCannotBeWrittenWhileTheCatalogWritesCommitNothing() throws {
    let world = World()
    world.failing = .prepare
    #expect(throws: Failure.self) {
      try save.perform(
        scenes: Scenes(world: world), catalog: CatalogFake(world: world),
        activities: Activities(world: world))
    }
    #expect(world.log.isEmpty)
  }

  @Test(arguments: [Step.prepare, .effects, .catalog, .rename])
  func aFailedStepEndsTheSaveThere(_ failing: Step) throws {
    let world = World()
    world.failing = failing
    #expect(throws: Failure.self) { try perform(save, in: world) }
    let expected = Step.allCases.prefix { $0 != failing }.filter { $0 != .history }
    #expect(world.log == Array(expected))
    // No scene is put in place before the catalog has what it shows.
    if failing != .rename { #expect(!world.log.contains(.rename)) }
  }

  @Test func aHistoryThatCannotForgetKeepsTheSaveGoing() throws {
    let world = World()
    world.failing = .forget
    let saved = try perform(save, in: world)
    #expect(world.log == [.prepare, .effects, .catalog, .rename])
    #expect(saved.notes.count == 1)
    let note = saved.notes.first ?? ""
    #expect(note.hasPrefix("the deleted product's saved activities were kept"))
  }

  /// A full list goes into the history before the files are written, and leaves the file
  /// with the new activity alone; a list with room grows.
  @Test func aFullListIsSavedInTheHistoryBeforeTheFilesAreWritten() throws {
    let world = World()
    let full = Self.entries(CommandSave.pendingBatch)
    world.pendingLists["main"] = full
    _ = try perform(save, in: world)
    #expect(world.log == [.history, .prepare, .effects, .catalog, .forget, .rename])
    #expect(world.saved == full)
    #expect(
      world.written["main"]?.map(\.historyKey) == [bundledProducts[1].identifier.canonicalText])

    let roomy = World()
    roomy.pendingLists["main"] = Array(full.dropLast())
    _ = try perform(save, in: roomy)
    #expect(!roomy.log.contains(.history))
    #expect(roomy.written["main"]?.count == CommandSave.pendingBatch)
  }

  /// While the history cannot be written, a file keeps its list, the newest entries to a
  /// limit, and the command is saved all the same.
  @Test func aListTheHistoryCannotTakeStaysInTheFile() throws {
    let world = World()
    world.failing = .history
    world.pendingLists["main"] = Self.entries(CommandSave.pendingLimit)
    let saved = try perform(save, in: world)
    #expect(world.log == [.prepare, .effects, .catalog, .forget, .rename])
    #expect(saved.notes.count == 1)
    #expect(saved.notes.first?.contains("the scene files keep the newest 64") == true)
    let written = try #require(world.written["main"])
    #expect(written.count == CommandSave.pendingLimit)
    #expect(written.first?.historyKey == "key-1")
    #expect(written.last?.historyKey == bundledProducts[1].identifier.canonicalText)
  }

  /// A scene whose file goes saves its list in the history first; a history that cannot take
  /// it stops nothing, says so, and the list goes to the scene in front, which the save keeps.
  @Test func aClosedScenesListIsSavedInTheHistory() throws {
    let world = World()
    let side = SceneName("side")
    world.pendingLists["side"] = Self.entries(2)
    var save = CommandSave()
    save.scenes = [Scene(name: .main)]
    save.closing = [side]
    _ = try perform(save, in: world)
    #expect(world.log == [.history, .prepare, .effects, .rename])
    #expect(world.saved == Self.entries(2))
    #expect(world.written["main"] == nil, "the front scene's list is left as it is")

    let failing = World()
    failing.failing = .history
    failing.pendingLists["side"] = Self.entries(2)
    let front = PendingActivity(historyKey: "front", lastActiveDate: Date())
    failing.pendingLists["main"] = [front]
    let saved = try perform(save, in: failing)
    #expect(failing.log == [.prepare, .effects, .rename])
    #expect(saved.notes.first?.hasPrefix("2 activities were not saved in the history") == true)
    #expect(failing.written["main"] == [front] + Self.entries(2))
  }

  /// Saves put off are folded into the next: its scenes and session win, the earlier's stay
  /// where it says nothing, and one activity of a product is kept, the newer.
  @Test func aSavePutOffIsFoldedIntoTheNext() throws {
    var earlier = CommandSave()
    let side = Scene(name: SceneName("side"))
    var main = Scene(name: .main)
    main.userActivity = ProductActivity.show(bundledProducts[1])
    earlier.scenes = [main, side]
    earlier.session = SessionState(scenes: [.main, side.name], activeScene: side.name)
    earlier.activities = [(.main, Self.shown(1, at: 1)), (.main, Self.shown(2, at: 1.5))]
    var later = CommandSave()
    main.userActivity = ProductActivity.show(bundledProducts[2])
    later.scenes = [main]
    later.activities = [(.main, Self.shown(1, at: 2))]
    let both = later.including(earlier)
    #expect(both.scenes.map(\.name) == [side.name, .main])
    #expect(both.scenes.last?.userActivity == ProductActivity.show(bundledProducts[2]))
    #expect(both.session == earlier.session)
    #expect(
      both.activities.map(\.activity.title)
        == [bundledProducts[2].name, bundledProducts[1].name].map {
          "Show \($0) product"
        })
    #expect(
      both.activities.last?.activity.lastActiveDate == Date(timeIntervalSinceReferenceDate: 2))
    let world = World()
    _ = try perform(both, in: world)
    #expect(world.log == [.prepare, .effects, .rename])
    #expect(
      world.written["main"]?.map(\.historyKey)
        == [bundledProducts[2], bundledProducts[1]].map(\.identifier.canonicalText))
  }
}
