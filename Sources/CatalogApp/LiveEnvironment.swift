import ActivityIndex
import CatalogCore
import CatalogModel
import CatalogResources
import Foundation
import Imaging
import LineEditing
import SearchIndex
import StateRestoration
import Synchronization
import SystemSupport

/// The environment of a running app: its scenes (``SessionStore``), durable catalog edits,
/// and the product pictures on disk.
package final class LiveEnvironment: AppEnvironment {
  /// The saved scenes and the session, and which scenes this process owns.
  package let sessions: SessionStore
  /// The state directory.
  package var directory: StateDirectory { sessions.directory }
  /// The user's catalog on disk.
  package let catalogStore: CatalogStore
  /// The user's catalog database; nil when it could not be used.
  package let database: (any CatalogStorage)?
  /// Why catalog edits are refused, when the catalog database could not be used.
  package private(set) var catalogReadOnlyReason: String?
  /// The saved activity history, `activities.sqlite`.
  package let history: ActivityHistory
  /// Whether the history cannot be used this session (a full disk, a read-only directory, a
  /// newer version's file), as said at launch: activities are then kept in the scene files
  /// alone, and no command repeats the warning.
  package var historyUnavailable = false
  /// The saved scenes claimed and read for the command being applied.
  private var restored: [SceneName: (scene: Scene, note: String?)] = [:]
  /// The catalog's search, kept from search to search.
  private let searchService: SearchService
  private let pendingHistory = Mutex<BackgroundWork<Void>?>(nil)
  private let historyWarning = WarningBox()
  /// How output looks; pictures are drawn when it says so.
  package var presentation = Presentation.plain
  private var pictures: [String: [String]] = [:]
  /// What ``pictureProblem(at:)`` found, by path, size and modification time.
  private var pictureProblems: [String: String?] = [:]

  init(
    sessions: SessionStore, catalogStore: CatalogStore, database: (any CatalogStorage)?,
    catalogReadOnlyReason: String?, indexBuilder: String?
  ) {
    self.sessions = sessions
    self.catalogStore = catalogStore
    self.database = database
    self.catalogReadOnlyReason = catalogReadOnlyReason
    history = ActivityHistory(directory: sessions.directory)
    searchService = SearchService(
      indexPath: catalogStore.searchIndexPath, dataDirectory: catalogStore.directoryPath,
      builder: indexBuilder, note: Self.note)
  }

  package var now: Date { Date() }

  package var currentDirectory: String { FileManager.default.currentDirectoryPath }

  package var pageSize: Int { presentation.pageSize }

  package var columns: Int { presentation.columns }

  package func savedActivities(page: Int, size: Int) throws -> (
    records: [UserActivityRecord], total: Int
  ) {
    waitForHistory()
    let total = try history.count()
    // A page past the last reads nothing (and its offset might not fit in an integer).
    guard let offset = Paging(total: total, size: size).offset(ofPage: page) else {
      return ([], total)
    }
    return (try EarlierActivityFile.records(of: history, limit: size, offset: offset), total)
  }

  package func forgetActivities(_ identifiers: [String]?) throws {
    waitForHistory()
    if let identifiers {
      try history.delete(persistentIdentifiers: identifiers)
    } else {
      try history.deleteAll()
    }
  }

  package func search(_ text: String, in catalog: Catalog) throws -> [SearchResult] {
    // This process's last write is waited for; what a crashed one left in its scene files was
    // merged at launch. An unreadable history was set aside then; if it went bad since, search
    // the products alone.
    waitForHistory()
    // The viewed products that match rank higher. Read only when something matches.
    let history = self.history
    let now = self.now
    func viewed(_ text: String, limit: Int) -> [ActivityHistory.Entry] {
      (try? EarlierActivityFile.entries(
        of: history, matching: text, limit: limit, at: now, note: Self.note))
        ?? []
    }
    return try searchService.search(catalog) { search in
      try search.results(for: text, viewed: viewed, now: now)
    }
  }

  /// Shows a note about the search index on standard error, when it is a terminal.
  private static func note(_ message: String) {
    if isatty(STDERR_FILENO) == 1 { TextOutput.standardError.line("note: " + message) }
  }

  /// Makes an activity current and saves it in the history, in the background: the caller has
  /// already written it durably into its scene's next file (with the same date), which the
  /// next launch merges into the history if this write never finished. ``settleHistory()``
  /// waits for it.
  ///
  /// The write runs on a thread of its own: Dispatch's worker pool would cost a one-command
  /// run more to start than the write takes.
  ///
  /// - Parameter activity: The activity a scene now advertises, with its `lastActiveDate`.
  package func makeCurrentInBackground(_ activity: UserActivityRecord) {
    guard !historyUnavailable else { return }
    let history = self.history
    let warning = historyWarning
    let write: @Sendable () -> Void = {
      do {
        let date = activity.lastActiveDate ?? Date()
        let center = UserActivityCenter(
          declaredActivityTypes: ProductActivity.declaredTypes, history: history,
          clock: { date })
        try NSUserActivity(record: activity, center: center).makeCurrent()
      } catch {
        warning.message.withLock {
          $0 =
            "the activity '\(activity.title ?? "")' was not saved in the history: \(error.localizedDescription)"
        }
      }
    }
    // One write at a time, in the order the activities became current.
    pendingHistory.withLock { pending in
      let previous = pending
      pending = BackgroundWork {
        previous?.wait()
        write()
      }
    }
  }

  /// Waits for the history writes ``makeCurrentInBackground(_:)`` started.
  private func waitForHistory() {
    pendingHistory.withLock { $0 }?.wait()
  }

  /// Waits for the history write ``makeCurrentInBackground(_:)`` started, if any.
  ///
  /// - Parameter closing: Whether the process is leaving: the history's connection and the
  ///   catalog's then close, folding a large log into its file; one whose log would be left
  ///   as it is anyway is left for the system to release as the process ends.
  /// - Returns: A warning when it failed.
  package func settleHistory(closing: Bool = false) -> [String] {
    waitForHistory()
    if closing {
      history.closeForExit()
      (database as? CatalogDatabase)?.leaveOpenForExit()
    }
    return historyWarning.message.withLock { warning in
      defer { warning = nil }
      return warning.map { [$0] } ?? []
    }
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
        guard let database else { throw CatalogError.handoffNeedsServer }
        try database.publishHandoff(activity, from: Self.handoffParty)
      case .handOff(let activity, let source, let target):
        guard let answer = try handOff(activity, from: source, to: target) else {
          throw CatalogCoreError.deliveryFailed(
            "scene '\(target)' is no longer open in another terminal; type the command again")
        }
        result.output = answer
      }
    }
  }

  package func handoffsElsewhere() throws -> [MachineHandoff] {
    guard let database else { throw CatalogError.handoffNeedsServer }
    return try database.handoffs(for: Self.handoffParty, limit: 20)
  }

  /// This user on this machine, for handoffs between machines: the login name, and
  /// `CATALOG_MACHINE` or the host name.
  package static let handoffParty: HandoffParty = {
    let environment = ProcessInfo.processInfo.environment
    var host = [CChar](repeating: 0, count: 256)
    let hostName =
      gethostname(&host, host.count - 1) == 0
      ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      : "unknown"
    let user =
      getpwuid(getuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
      ?? environment["USER"] ?? String(getuid())
    return HandoffParty(
      user: user,
      machine: environment["CATALOG_MACHINE"].flatMap { $0.isEmpty ? nil : $0 } ?? hostName)
  }()

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

  /// Saves catalog changes durably in one transaction, each edit merged with what other
  /// processes saved meanwhile.
  ///
  /// - Parameter changes: The changes.
  /// - Returns: The catalog as saved.
  /// - Throws: A `CatalogError` or `CatalogError`; the catalog is then as it was.
  package func save(_ changes: [CatalogChange]) throws -> Catalog {
    guard let database, catalogReadOnlyReason == nil else {
      throw CatalogError.catalogReadOnly(
        path: catalogStore.location, reason: catalogReadOnlyReason ?? "it cannot be opened")
    }
    do {
      try database.apply(changes)
    } catch CatalogError.damaged(let reason) {
      catalogReadOnlyReason = reason
      throw CatalogError.catalogReadOnly(path: catalogStore.location, reason: reason)
    }
    return Catalog(source: database)
  }

  package func pictureProblem(at path: String) -> String? {
    // Decoded once for each version of the file, not at every show of the photo tab.
    var status = stat()
    let key =
      stat(path, &status) == 0
      ? "\(path)|\(status.st_size)|\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)" : nil
    if let key, let known = pictureProblems[key] { return known }
    let problem: String?
    do {
      // Decoded small (a JPEG at a fraction of its size): damage shows, not only the header.
      _ = try ImageDecoder().decode(contentsOf: path, minimumSide: 16)
      problem = nil
    } catch .cannotRead(_, let reason) {
      problem = reason
    } catch {
      problem = error.localizedDescription
    }
    if let key { pictureProblems[key] = .some(problem) }
    return problem
  }

  package func photoDescription(of product: Product) -> String {
    guard !product.imageName.isEmpty else { return "no picture" }
    let name = product.imagePath ?? "Images/\(product.imageName).png"
    do {
      // A file's size is in its header; a bundled picture is small.
      let (width, height) =
        try product.imagePath.map { try ImageDecoder().size(contentsOf: $0) }
        ?? {
          let image = try Self.image(of: product); return (image.width, image.height)
        }()
      // A file whose header is whole may still be cut short: it is decoded (small) to say so.
      if let path = product.imagePath, let problem = pictureProblem(at: path) {
        return "\(name), \(width)×\(height) pixels, but it cannot be shown: \(problem)"
      }
      return "\(name), \(width)×\(height) pixels"
    } catch {
      return "\(name) (\(error.localizedDescription))"
    }
  }

  /// A product's picture, decoded: a bundled one, or the image file its path names; a JPEG
  /// image to be drawn small is decoded at a fraction of its size, its longer side kept at
  /// least `minimumSide`.
  private static func image(of product: Product, minimumSide: Int? = nil) throws -> RGBAImage {
    if let path = product.imagePath {
      return try ImageDecoder().decode(contentsOf: path, minimumSide: minimumSide)
    }
    guard let bytes = CatalogResources.imageData(named: product.imageName) else {
      throw ImagingError.cannotRead(
        path: "Images/\(product.imageName).png", reason: "it is not a bundled picture")
    }
    return try ImageDecoder().decode(Array(bytes))
  }

  package func picture(of product: Product) -> [String]? {
    guard !product.imageName.isEmpty else { return nil }
    guard let depth = presentation.pictureDepth else { return nil }
    let key =
      "\(product.imageName)|\(depth)|\(presentation.pictureKind)|\(presentation.pictureColumns)"
    if let cached = pictures[key] { return cached }
    // Enough pixels for the drawing to average several into each of its own.
    let needed: Int
    switch presentation.pictureKind {
    case .kitty: needed = 800
    case .sixel: needed = presentation.pictureColumns * 20
    case .blocks: needed = presentation.pictureColumns * 8
    }
    guard let image = try? Self.image(of: product, minimumSide: needed) else { return nil }
    switch presentation.pictureKind {
    case .kitty:
      let lines = try? KittyRenderer(columns: presentation.pictureColumns).render(image)
      pictures[key] = lines
      return lines
    case .sixel:
      // About ten pixels a column.
      let lines = SixelRenderer(width: presentation.pictureColumns * 10).render(image)
      pictures[key] = lines
      return lines
    case .blocks: break
    }
    let lines = HalfBlockRenderer(depth: depth, maximumColumns: presentation.pictureColumns)
      .render(image)
    pictures[key] = lines
    return lines
  }

  /// Warnings about the catalog database from the last command: a read that failed (a file
  /// damaged or cut short while the app runs: what it showed may be incomplete, so edits are
  /// refused from then on), and rows left out because they break the editor's rules.
  ///
  /// - Returns: The warnings, each once.
  package func takeCatalogWarnings() -> [String] {
    guard let database else { return [] }
    var warnings = database.takeSkippedRows()
    switch database.takeReadFailure() {
    case .damaged(let reason) where catalogReadOnlyReason == nil:
      catalogReadOnlyReason = reason
      warnings.append(
        "cannot read the catalog '\(database.location)' (\(reason)); what it shows may be incomplete, and edits are refused until the file is fixed and the app restarted"
      )
    case .unreachable(let reason):
      // The scenes are kept; the next command connects again.
      warnings.append(
        "lost the connection to the catalog '\(database.location)' (\(reason)); what it shows may be incomplete; the next command connects again"
      )
    case .damaged, nil: break
    }
    return warnings
  }

  /// The catalog as another process may have changed it since it was last read.
  ///
  /// - Parameter catalog: The catalog in memory.
  /// - Returns: The catalog from disk when the file changed and can be read; otherwise `catalog`.
  /// - Throws: ``CatalogError/unreachable(location:reason:)`` when the catalog's server cannot be
  ///   reached.
  package func refreshed(_ catalog: Catalog) throws -> Catalog {
    guard let database, catalogReadOnlyReason == nil else { return catalog }
    do {
      try database.refresh()
    } catch let error as CatalogError {
      if case .unreachable = error {
        _ = database.takeReadFailure()
        throw error
      }
      // Recorded by the database; the REPL reports it after the command.
      return catalog
    } catch {
      // Recorded by the database; the REPL reports it after the command.
      return catalog
    }
    return database.generation == catalog.generation && catalog.source === database
      ? catalog : Catalog(source: database)
  }
}

/// A warning a background task leaves for the main thread.
private final class WarningBox: Sendable {
  let message = Mutex<String?>(nil)
}
