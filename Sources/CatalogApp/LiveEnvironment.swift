import ActivityIndex
import CatalogCore
import CatalogEngines
import CatalogModel
import Foundation
import LineEditing
import SearchIndex
import StateRestoration
import SystemSupport

/// The environment of a running app: its scenes (``SessionStore``), durable catalog edits,
/// and the product pictures on disk.
package final class LiveEnvironment: AppEnvironment {
  /// The saved scenes and the session, and which scenes this process owns.
  package let sessions: SessionStore
  /// The state directory.
  package var directory: StateDirectory { sessions.directory }
  /// The user's catalog, opened at launch.
  package let catalog: CatalogSession
  /// The user's catalog; nil when it could not be used.
  package var database: (any CatalogStorage)? { catalog.database }
  /// The activity history and its writer.
  package let historyWriter: ActivityHistoryWriter
  /// The saved activity history, `activities.sqlite`.
  package var history: ActivityHistory { historyWriter.history }
  /// The saved scenes claimed and read for the command being applied.
  private var restored: [SceneName: (scene: Scene, note: String?)] = [:]
  /// The catalog's search, kept from search to search.
  private let searchService: SearchService
  /// What the scene files keep for the activity history, kept from search to search.
  private let sceneFileActivities: SceneFileActivities
  /// How output looks; pictures are drawn when it says so.
  package var presentation = Presentation.plain
  /// The products' pictures, drawn.
  private let pictures = ProductPictures()

  init(
    sessions: SessionStore, history: ActivityHistory, catalogStore: CatalogStore,
    database: (any CatalogStorage)?, catalogReadOnlyReason: String?, indexBuilder: String?
  ) {
    self.sessions = sessions
    catalog = CatalogSession(
      store: catalogStore, database: database, readOnlyReason: catalogReadOnlyReason)
    historyWriter = ActivityHistoryWriter(history: history)
    sceneFileActivities = SceneFileActivities(in: sessions.directory)
    searchService = SearchService(
      indexPath: catalogStore.searchIndexPath, dataDirectory: catalogStore.directoryPath,
      builder: indexBuilder, note: Self.note)
  }

  package var now: Date { Date() }

  package var currentDirectory: String { FileManager.default.currentDirectoryPath }

  package var pageSize: Int { presentation.pageSize }

  package var columns: Int { presentation.columns }

  package var terminalColumns: Int? {
    presentation.followsTerminal ? TerminalLineEditor.columns(of: STDOUT_FILENO) : nil
  }

  package func savedActivities(page: Int, size: Int, in catalog: Catalog) throws -> (
    records: [UserActivityRecord], total: Int
  ) {
    // The activities scene files keep go into the history first, for the list to number them.
    _ = try? CatalogActivityHistory(writer: historyWriter, catalog: catalog).save(
      sceneFileActivities.read())
    historyWriter.check()
    let total = try history.count()
    // A page past the last reads nothing (and its offset might not fit in an integer).
    guard let offset = Paging(total: total, size: size).offset(ofPage: page) else {
      return ([], total)
    }
    return (try EarlierActivityFile.records(of: history, limit: size, offset: offset), total)
  }

  package func forgetActivities(_ identifiers: [String]?) throws {
    historyWriter.check()
    if let identifiers {
      try history.delete(persistentIdentifiers: identifiers)
    } else {
      try history.deleteAll()
    }
  }

  package func search(_ text: String, in catalog: Catalog) throws -> SearchResults {
    // The history with what scene files keep; a history that cannot be read (set aside when
    // first used) leaves the products alone.
    historyWriter.check()
    // The viewed products that match rank higher. Read only when something matches.
    let history = self.history
    let now = self.now
    func viewed(_ text: String, limit: Int) -> [ActivityHistory.Entry] {
      // Without the history, what it forgot is not known: nothing counts as viewed.
      guard
        let entries = try? EarlierActivityFile.entries(
          of: history, matching: text, limit: limit, at: now, note: Self.note)
      else { return [] }
      return ActivityHistoryMerge.merged(
        sceneFileActivities.read(), with: entries, history: history)
    }
    return try searchService.search(catalog) { search in
      try search.counted(for: text, viewed: viewed, now: now)
    }
  }

  /// Shows a note about the search index on standard error, when it is a terminal.
  private static func note(_ message: String) {
    if isatty(STDERR_FILENO) == 1 { TextOutput.standardError.line("note: " + message) }
  }

  /// Lets go of the activity history and the catalog as the process leaves, folding a large
  /// log into its file; one whose log would be left as it is anyway is left for the system to
  /// release as the process ends.
  ///
  /// - Returns: Notes about the history not yet shown.
  package func closeForExit() -> [String] {
    let notes = historyWriter.closeForExit()
    database?.leaveOpenForExit()
    return notes
  }

  package func claimScene(_ name: SceneName) throws {
    try Self.sayingCatalogProcess { try sessions.claim(name) }
  }

  /// Runs a scene operation, naming another process that has the scene open a catalog
  /// process, as the app's messages do.
  private static func sayingCatalogProcess<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch StateRestorationError.sceneOpenElsewhere(let name, let pid, let terminal) {
      throw CatalogCoreError.sceneOwned(name, pid: pid, terminal: terminal)
    }
  }

  /// The process that has a scene open, if a running one has.
  ///
  /// - Parameter name: The scene.
  /// - Returns: The owner, this process included.
  package func owner(of name: SceneName) -> SceneOwner? {
    sessions.owner(of: name)
  }

  package func owner(ofScene name: SceneName) -> SceneOwner? {
    guard !sessions.isClaimed(name), let owner = owner(of: name), !owner.isThisProcess else {
      return nil
    }
    return owner
  }

  /// Performs what a command asked of the world outside its state, before it is saved.
  ///
  /// - Parameters:
  ///   - effects: The effects, in order.
  ///   - result: The command's result; a handoff's answer becomes its output.
  /// - Throws: ``CatalogCoreError/sceneOwned(_:pid:terminal:)`` when a scene was taken
  ///   meanwhile, or what forgetting or handing off throws.
  package func perform(_ effects: [Effect], for result: inout CommandResult) throws {
    for effect in effects {
      switch effect {
      case .claimScene(let name):
        try claimScene(name)
      case .forgetActivities(let identifiers):
        try forgetActivities(identifiers)
      case .publishHandoff(let activity):
        guard let handoff = database?.handoff else { throw CatalogError.handoffNeedsServer }
        try handoff.publishHandoff(activity, from: Self.handoffParty)
      case .handOff(let activity, let source, let target):
        guard let answer = try handOff(activity, from: source, to: target) else {
          throw CatalogCoreError.deliveryFailed(
            "scene '\(target)' is no longer open in another terminal; type the command again")
        }
        result.output = answer
      case .saveCatalog, .refreshActivity:
        // The save itself (`CommandSave`) does these, in its order.
        break
      }
    }
  }

  package func handoffsElsewhere() throws -> [MachineHandoff] {
    guard let handoff = database?.handoff else { throw CatalogError.handoffNeedsServer }
    return try handoff.handoffs(for: Self.handoffParty, limit: 20)
  }

  /// This user on this machine, for handoffs between machines: the login name, and
  /// ``machineName(in:)``.
  package static let handoffParty: HandoffParty = {
    let environment = ProcessInfo.processInfo.environment
    let user =
      getpwuid(getuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
      ?? environment["USER"] ?? String(getuid())
    return HandoffParty(user: user, machine: machineName(in: environment))
  }()

  /// This machine's name among the user's machines: `CATALOG_MACHINE`, or the host name.
  ///
  /// - Parameter environment: The process environment, which the launch has already read
  ///   (`ProcessInfo` would read it again, and first make its own state).
  /// - Returns: The name.
  package static func machineName(in environment: [String: String]) -> String {
    if let machine = environment["CATALOG_MACHINE"], !machine.isEmpty {
      return machine
    }
    var host = [CChar](repeating: 0, count: 256)
    return gethostname(&host, host.count - 1) == 0
      ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      : "unknown"
  }

  package func handOff(
    _ activity: UserActivityRecord, from source: SceneName, to scene: SceneName
  ) throws -> String? {
    guard !sessions.isClaimed(scene), let owner = owner(of: scene), !owner.isThisProcess else {
      return nil
    }
    let message = DeliveryChannel.Message(
      kind: .continueActivity, activity: activity, scene: scene,
      sender: "scene \(source), pid \(getpid())"
        + (SceneOwner.currentTerminal.map { ", \($0)" } ?? ""))
    let reply: DeliveryChannel.Reply
    do {
      reply = try DeliveryChannel.deliver(message, to: owner.process.pid, in: directory)
    } catch {
      throw CatalogCoreError.deliveryFailed(
        "cannot hand off to scene '\(scene)' (\(owner.place)): \(error)")
    }
    guard reply.ok else {
      throw CatalogCoreError.deliveryFailed(
        "scene '\(scene)' (\(owner.place)) could not continue it: \(reply.text.escapingControlCharacters)"
      )
    }
    return reply.text.escapingControlCharacters
  }

  /// Records which of this process's scenes is in front, in their lock files, for other
  /// processes' `scenes` and `state`.
  ///
  /// - Parameter name: The active scene.
  package func bringToFront(_ name: SceneName) {
    sessions.bringToFront(name)
  }

  /// The scenes of the session that this process does not have open, with who has them open,
  /// if anyone, and what each shows, as its file last saved it.
  ///
  /// - Parameter catalog: The catalog, to name what the scenes show.
  /// - Returns: The scenes, in the session's order.
  package func otherScenes(in catalog: Catalog) -> [OtherScene] {
    let listed = (try? sessions.readSession())?.scenes ?? []
    let unlisted = sessions.savedSceneNames.filter { !listed.contains($0) }
    return (listed + unlisted).filter { !sessions.isClaimed($0) }.map { name in
      let file = try? SceneFile.read(name, in: directory)
      let scene = file.map { Scene(name: name, storage: $0.storage) } ?? Scene(name: name)
      var status = stat()
      let savedAt =
        stat(directory.path(of: SceneFile.path(for: name)), &status) == 0
        ? Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec)) : nil
      return OtherScene(
        name: name, owner: owner(of: name), place: Describe.place(of: scene, in: catalog),
        savedAt: savedAt, isListed: listed.contains(name))
    }
  }

  package func hasSavedScene(_ name: SceneName) -> Bool {
    // A scene read for this command is the saved one it asked for, claimed now.
    restored[name] != nil
      || !sessions.isClaimed(name) && owner(of: name) == nil
        && directory.contains(SceneFile.path(for: name))
  }

  package func restoredScene(_ name: SceneName) -> (scene: Scene, note: String?)? {
    restored[name]
  }

  /// Claims a saved scene and reads it for the command being applied, which asked for it
  /// (``CatalogCoreError/sceneToRestore(_:)``); ``forgetRestoredScenes()`` ends that.
  ///
  /// - Parameter name: The scene.
  /// - Throws: ``CatalogCoreError/sceneOwned(_:pid:terminal:)`` when another process took it
  ///   first; a `StateRestorationError` when an unreadable file cannot be set aside.
  package func restoreScene(_ name: SceneName) throws {
    let scene = try Self.sayingCatalogProcess { try sessions.restoreScene(name) }
    // Only a file that cannot be read is set aside; the scene starts fresh.
    let note = scene.setAside.map {
      "scene '\(name)' could not be read (\($0.reason)); kept it as '\($0.keptAs)' and opened the scene fresh"
    }
    restored[name] = (Scene(name: name, storage: scene.scene.storage), note)
  }

  /// Forgets the scenes read for a command, once it is applied.
  package func forgetRestoredScenes() {
    restored = [:]
  }

  /// The scenes this process holds the locks of.
  package var ownedScenes: Set<SceneName> { Set(sessions.claimedScenes) }

  /// Gives up a scene this process owns.
  ///
  /// - Parameter name: The scene.
  package func releaseScene(_ name: SceneName) {
    sessions.release(name)
  }

  package func pictureProblem(at path: String) -> String? {
    pictures.problem(at: path)
  }

  package func photoDescription(of product: Product) -> String {
    pictures.description(of: product)
  }

  package func picture(of product: Product) -> [String]? {
    pictures.drawing(of: product, for: presentation)
  }

  package func takeCatalogWarnings() -> [String] {
    catalog.takeWarnings()
  }

  package func refreshed(_ catalog: Catalog, readingAhead ahead: CatalogReadAhead) throws
    -> Catalog
  {
    try self.catalog.refreshed(catalog, readingAhead: ahead)
  }
}
