import ActivityIndex
import CatalogCore
import CatalogEngines
import CatalogModel
import CatalogResources
import Foundation
import StateRestoration
import SystemSupport

/// The imperative shell around the core: restores the state at launch, saves what each command
/// changed before its output is printed, and keeps the crash-at-launch counter.
package final class AppStore {
  /// The effects commands use.
  package let environment: LiveEnvironment
  /// Lines for the user about the launch that are not warnings: which scenes other terminals
  /// have open, a new scene opened because every one was.
  package private(set) var notices: [String] = []
  /// A scene this process opened only because every scene of the session was open elsewhere,
  /// in a script or `catalog open`: it is not listed in the session, never becomes the scene
  /// the next launch puts in front, and is removed at exit unless it holds a draft.
  package private(set) var passingScene: SceneName?
  /// Whether this run leaves the session's scene in front as it is (``LaunchOptions/leavesFrontAlone``).
  private var leavesFrontAlone = false
  /// The scene this run put in front and when, until a save writes its file saying so
  /// (``SceneFile/activatedAt``); ``finish(_:)`` writes it then if the files do not say it is
  /// in front and another scene did not come to the front since.
  private var frontToRecord: (scene: SceneName, date: Date)?
  private var directory: StateDirectory { environment.directory }
  private var sessions: SessionStore { environment.sessions }
  /// Whether the next command's save may wait for the commands after it (see
  /// ``hasDeferredSave``): set by a script's loop when its next line has arrived already.
  package var mayDeferNextSave = false
  /// Saves put off, folded into one, and the state before the first of them.
  private var deferred: (save: CommandSave, base: AppState, commands: Int)?

  /// Whether commands' saves were put off: a script's commands whose lines arrived together
  /// change only scenes and the session (no catalog edit, nothing outside the process), and
  /// are saved as one — by the next command that saves, or by ``saveDeferred()`` before the
  /// script waits for input or ends. Their output must wait for that save: what a command
  /// printed is on disk, as for a command saved alone.
  package var hasDeferredSave: Bool { deferred != nil }

  private init(environment: LiveEnvironment) {
    self.environment = environment
  }

  /// Restores the app: the catalog, the session and every scene of it that no other running
  /// process has open — another terminal's windows stay there. When every one is open
  /// elsewhere, this process opens a new scene of a free name (`main-2`) and says so in
  /// ``notices``.
  ///
  /// Files that cannot be read are quarantined with a warning, and their scenes start fresh.
  ///
  /// - Parameter options: How the app was launched.
  /// - Returns: The store, the restored state, and one-line warnings for the user.
  /// - Throws: ``CatalogCoreError/sceneOwnedAtLaunch(_:owner:)`` when `--scene` names a scene
  ///   another running process has open; a `StateRestorationError` when the state directory
  ///   cannot be used.
  package static func launch(_ options: LaunchOptions) throws -> (
    store: AppStore, state: AppState, warnings: [String]
  ) {
    // The catalog first: a server that cannot be reached ends the launch before anything in
    // the state directory is touched. While a server starts the session, the activity history
    // is opened for reading, which the launch would do next; once it has started, the launch
    // begins in the state directory while the server reads the catalog's state.
    let catalogStore = CatalogStore.bundled(options.paths)
    let history = ActivityHistory(directory: StateDirectory(existing: options.paths.stateDirectory))
    var begun: Result<(SessionStore, LaunchCheck, [String]), any Error>?
    func begin() -> Result<(SessionStore, LaunchCheck, [String]), any Error> {
      if let begun { return begun }
      let result = Result { try beginLaunch(in: options.paths.stateDirectory) }
      begun = result
      return result
    }
    let loaded: CatalogStore.Loaded
    do {
      loaded = try catalogStore.load(
        readingAhead: readAhead(options, opening: history), whileReadingState: { _ = begin() })
    } catch {
      // A launch refused with a message is not a crash: it must not count toward the limit.
      if case .success(let (sessions, _, _))? = begun {
        _ = sessions.endLaunch(reachedPrompt: false)
      }
      throw error
    }
    let (sessions, launch, early) = try begin().get()
    var warnings = early
    // The data directory's files are the app's too.
    let dataDirectory = options.paths.dataDirectory
    if let warning = StateDirectory.makePrivate(dataDirectory, subfolders: []) {
      warnings.append(warning)
    }
    DurableFile.removeAbandonedTemporaryFiles(in: dataDirectory)
    if launch.startsFresh {
      warnings.append(
        "catalog did not reach its prompt the last \(launch.crashedLaunches) times it started; "
          + "its saved state (\(launch.filesSetAside) files) was moved to '\(sessions.directory.path(of: StateDirectory.quarantineFolder))' and it starts fresh"
      )
    }
    let restarting = launch.startsFresh
    do {
      let (store, state) = try restore(
        options, catalog: (catalogStore, loaded), history: history, sessions: sessions,
        restarting: restarting, warnings: &warnings)
      return (store, state, warnings)
    } catch {
      // A launch refused with a message is not a crash: it must not count toward the limit.
      sessions.endLaunch(reachedPrompt: false)
      throw error
    }
  }

  /// Begins a launch in the state directory, whose folders it makes where they are missing: the
  /// app's own directory, every file in it the app's, made private whole; a process that died
  /// leaves no mailbox; the launch counted (``SessionStore/beginLaunch()``).
  ///
  /// - Parameter stateDirectory: The state directory.
  /// - Returns: The session store, the launch's check, and one-line warnings for the user.
  /// - Throws: A `StateRestorationError` when the state directory cannot be used.
  private static func beginLaunch(in stateDirectory: String) throws -> (
    SessionStore, LaunchCheck, [String]
  ) {
    var warnings: [String] = []
    if FileManager.default.fileExists(atPath: stateDirectory),
      let warning = StateDirectory.makePrivate(stateDirectory, subfolders: SessionStore.folders)
    {
      warnings.append(warning)
    }
    let sessions = try SessionStore(directory: stateDirectory)
    warnings += sessions.warnings.map(\.description)
    // A process that died left its mailbox behind: a link sent there would wait for nobody.
    DeliveryChannel.removeStaleSockets(in: sessions.directory)
    warnings += EarlierLaunchFile.importIfPresent(in: sessions.directory)
    let launch = try sessions.beginLaunch()
    warnings += launch.warnings.map(\.description)
    return (sessions, launch, warnings)
  }

  /// What a launch on a server reads with the catalog's state, in one request: the products
  /// its scenes show, and the one the command or link from the shell names by list number or
  /// identifier (a name needs a lookup of its own). Found while the server starts the session,
  /// when a session at a terminal, which checks the activity history as it launches, opens it
  /// too.
  private static func readAhead(_ options: LaunchOptions, opening history: ActivityHistory)
    -> CatalogReadAhead
  {
    defer { if options.isInteractive { history.openInAdvance() } }
    var ahead = CatalogReadAhead(products: productsToRestore(options))
    if let named = options.namedProduct { ahead.add(named: named) }
    return ahead
  }

  /// The products the scenes a launch restores show, as their files say now (read without a
  /// lock, nothing moved or written): for a catalog on a server to read with its state, in
  /// one request, rather than one request each as the scenes are checked against it.
  private static func productsToRestore(_ options: LaunchOptions) -> [UUID] {
    guard !options.isFresh else { return [] }
    let directory = StateDirectory(existing: options.paths.stateDirectory)
    let names =
      options.scene.map { [$0] } ?? (try? SessionFile.read(in: directory))?.scenes ?? [.main]
    return SceneFile.productsToReadAhead(
      in: names.compactMap { (try? SceneFile.read($0, in: directory)) ?? nil })
  }

  private static func restore(
    _ options: LaunchOptions, catalog: (store: CatalogStore, loaded: CatalogStore.Loaded),
    history: ActivityHistory, sessions: SessionStore, restarting: Bool,
    warnings: inout [String]
  ) throws -> (AppStore, AppState) {
    let (catalogStore, loaded) = catalog
    warnings += loaded.warnings
    // `history` is of the session's directory (both are `options.paths.stateDirectory`),
    // perhaps opened while a server started the session.
    let environment = LiveEnvironment(
      sessions: sessions, history: history, catalogStore: catalogStore, database: loaded.database,
      catalogReadOnlyReason: loaded.readOnlyReason, indexBuilder: options.indexBuilder)
    let store = AppStore(environment: environment)

    store.checkHistories(options, warnings: &warnings)
    let session = restarting ? SessionState() : try store.loadSession(warnings: &warnings)
    var released: Set<SceneName> = []
    var names = options.scene.map { [$0] } ?? session.scenes
    var setAside: [(scene: SceneName, as: SceneName)] = []
    if options.isFresh {
      // Like a force quit: this process's scenes are not restored — but kept as closed scenes
      // of their own, drafts and all, where Apple would delete them; other processes' scenes
      // stay open.
      let target = options.scene ?? .main
      for name in session.scenes where name != target {
        guard (try? environment.claimScene(name)) != nil else { continue }
        setAside += try store.setAsideForFresh(name).map { [(name, $0)] } ?? []
        environment.releaseScene(name)
        released.insert(name)
      }
      names = [target]
    }
    if names.isEmpty { names = [.main] }

    var scenes: [Scene] = []
    var elsewhere: [SceneName] = []
    for name in names {
      do {
        try environment.claimScene(name)
      } catch CatalogCoreError.sceneOwned(_, let pid, let terminal) where options.scene != nil {
        throw CatalogCoreError.sceneOwnedAtLaunch(
          name.rawValue,
          owner: "pid \(pid.map(String.init) ?? "unknown")" + (terminal.map { ", \($0)" } ?? ""))
      } catch let error as CatalogCoreError {
        if options.isFresh { throw error }
        // Another terminal's window: it stays there, and this terminal gets the others.
        elsewhere.append(name)
        continue
      }
      if options.isFresh {
        setAside += try store.setAsideForFresh(name).map { [(name, $0)] } ?? []
        scenes.append(Scene(name: name))
      } else {
        scenes.append(try store.loadScene(name, catalog: loaded.catalog, warnings: &warnings))
      }
    }
    if scenes.isEmpty {
      // Every scene is open in another terminal: this one gets a new scene of a free name.
      let name = try store.claimFreeScene(after: session.scenes)
      scenes.append(Scene(name: name))
      if options.isInteractive {
        store.notices.append(
          "Every scene of the session is open in another terminal; opened a new scene '\(name)'. Type 'scenes' to see them all."
        )
      } else {
        store.passingScene = name
        // A link from the shell beside a running terminal leaves that terminal's place first.
        store.leavesFrontAlone = options.leavesFrontAlone
        store.notices.append(
          "every scene of the session is open in another terminal; this run uses a scene of its own, '\(name)', which is not kept"
        )
      }
    } else if !elsewhere.isEmpty {
      let quoted = elsewhere.map { "'\($0)'" }
      store.notices.append(
        (quoted.count == 1
          ? "Scene \(quoted[0]) is" : "Scenes \(quoted.joined(separator: ", ")) are")
          + " open in another terminal; type 'scenes' to see them all.")
    }
    if let first = setAside.first {
      let moves = setAside.map { "'\($0.scene)' as '\($0.as)'" }.joined(separator: ", ")
      warnings.append(
        "--fresh kept the scene\(setAside.count == 1 ? "" : "s") it did not restore as closed scene\(setAside.count == 1 ? "" : "s") (\(moves)); 'scenes --all' lists them, and 'scene open \(first.as)' brings one back with its path and any draft"
      )
    }
    // The scene made active last, by the session file or by a scene file read here.
    let front = session.front(among: scenes.map { ($0.name, sessions.activatedAt(of: $0.name)) })
    let active =
      options.scene
      ?? front.flatMap { name in scenes.contains { $0.name == name } ? name : nil }
      ?? scenes[0].name
    let state = AppState(catalog: loaded.catalog, scenes: scenes, activeSceneName: active)
    // A scene brought in front goes in front through its own file, which a command that saves
    // it writes anyway, rather than through the session's: the session file is written when
    // its scenes change.
    let shown = store.sessionShown(by: state)
    store.frontToRecord = shown.activeScene.map { ($0, sessions.activationDate()) }
    let listed = session.merging(owned: shown.scenes, released: released, activeScene: nil)
    try store.saveSession(
      state, released: released, keepingFront: listed.scenes == session.scenes)
    environment.bringToFront(active)
    return (store, state)
  }

  /// Claims a scene for this process under a name no scene of the session has: `main-2`,
  /// `main-3`, and so on.
  ///
  /// - Parameter taken: The session's scenes.
  /// - Returns: The name claimed.
  /// - Throws: ``CatalogCoreError/sceneOwned(_:pid:terminal:)`` in the unlikely case that
  ///   ten thousand names are taken.
  private func claimFreeScene(after taken: [SceneName]) throws -> SceneName {
    for number in 2...10_000 {
      guard let name = SceneName("main-\(number)"), !taken.contains(name) else { continue }
      if (try? environment.claimScene(name)) != nil { return name }
    }
    throw CatalogCoreError.sceneOwned(SceneName.main.rawValue, pid: nil)
  }

  /// Sets a scene's file aside for `--fresh`, as a saved scene of a name of its own
  /// (`main.fresh`, `main.fresh-2`, …) that `scenes --all` lists and `scene open` restores:
  /// like a force quit, but nothing is lost. A file that cannot be read goes to quarantine.
  ///
  /// - Returns: The saved scene's name; nil when the scene had no file, or an unreadable one.
  private func setAsideForFresh(_ name: SceneName) throws -> SceneName? {
    let path = SceneFile.path(for: name)
    guard directory.contains(path) else { return nil }
    do {
      guard var file = try? SceneFile.read(name, in: directory) else {
        try directory.quarantine(path)
        return nil
      }
      for attempt in 1...1000 {
        guard let aside = SceneName("\(name).fresh" + (attempt == 1 ? "" : "-\(attempt)")) else {
          break
        }
        // Claimed while it is written: no other process saves a scene of that name meanwhile.
        guard (try? environment.claimScene(aside)) != nil else { continue }
        defer { environment.releaseScene(aside) }
        let asidePath = SceneFile.path(for: aside)
        guard !directory.contains(asidePath) else { continue }
        // Written under its new name before the old file goes: a crash between leaves both.
        file.name = aside
        try directory.save(file, to: asidePath)
        try directory.remove(path)
        return aside
      }
      throw SystemError.cannotWrite(path: path, reason: "no free scene name to keep it under")
    } catch {
      throw SystemError.cannotSetAside(
        problem: "--fresh cannot set scene '\(name)' aside", reason: error.localizedDescription)
    }
  }

  /// Gives up the scenes this process claimed for a command that then failed: the state went
  /// back to what it was, and a scene it does not show is not kept from other processes.
  ///
  /// - Parameter state: The state as it is now.
  package func releaseScenes(notIn state: AppState) {
    for name in environment.ownedScenes where state.scene(named: name.rawValue) == nil {
      environment.releaseScene(name)
    }
  }

  /// Ends a run: a passing scene (``passingScene``) is removed, or, when its editor holds a
  /// draft, kept and listed in the session so that it can be opened again.
  ///
  /// - Parameter state: The state at the end.
  /// - Returns: One-line warnings: a passing scene kept, or one that could not be removed.
  package func finish(_ state: AppState) -> [String] {
    if let front = frontToRecord, front.scene == state.activeSceneName,
      sessions.needsFrontRecorded(front.scene, at: front.date)
    {
      // No command saved the scene this run put in front: its file says so now.
      frontToRecord = nil
      do {
        try sessions.recordFront(state.activeScene, at: front.date)
      } catch {
        return [
          "scene '\(front.scene)' was not saved as the one in front: \(error.localizedDescription)"
        ]
      }
    }
    guard let name = passingScene else { return [] }
    passingScene = nil
    if let scene = state.scene(named: name.rawValue),
      let draft = scene.unsavedDraftName(in: state.catalog)
    {
      do {
        try saveSession(state, released: [], keepingFront: true)
        return [
          "kept scene '\(name)', which has an unsaved draft of '\(draft)'; type 'scene switch \(name)' in the catalog to open it"
        ]
      } catch {
        return [error.localizedDescription]
      }
    }
    // Its file goes once the activities it made current are in the history; while the history
    // cannot take them, the file stays to keep them (unlisted, as a crash would leave it), and
    // the next scene of its name inherits them.
    var notes: [String] = []
    let saved: Bool
    do {
      saved = try CatalogActivityHistory(
        writer: environment.historyWriter, catalog: state.catalog
      ).save(sessions.pendingActivities(of: name))
    } catch {
      saved = false
      notes.append(
        "the activities of scene '\(name)' were not saved in the history: \(error.localizedDescription)"
      )
    }
    notes += environment.historyWriter.takeNotes()
    guard saved else {
      environment.releaseScene(name)
      return notes
    }
    do {
      try directory.remove(SceneFile.path(for: name))
    } catch {
      return notes + [error.localizedDescription]
    }
    environment.releaseScene(name)
    return notes
  }

  /// Records that the app reached its prompt, which forgives the crashes at launch before it.
  ///
  /// - Returns: A one-line warning when that could not be recorded.
  package func markReady() -> [String] {
    sessions.endLaunch(reachedPrompt: true).map(\.description)
  }

  /// Saves what a command changed: the product edits, the scenes whose storage differs, the
  /// scenes closed, and the session when the scenes or the active one changed, with any saves
  /// put off before (``hasDeferredSave``). When this returns, it is all on disk — unless this
  /// save is put off too (``mayDeferNextSave``).
  ///
  /// The scene files are written and flushed beside their old versions first, then the
  /// catalog, and only then are the scene files put in place: a failure before that (a full
  /// disk, a conflicting edit) leaves the catalog and every scene as they were.
  ///
  /// - Parameters:
  ///   - old: The state before the command.
  ///   - new: The state after it; its catalog becomes the catalog as saved, with what other
  ///     processes saved meanwhile.
  ///   - catalogChanges: The product edits the command made.
  ///   - refreshingActivity: Whether the command showed a product, whose activity then
  ///     becomes current even if it was in front already.
  ///   - reachesOutside: Whether `effects` reach beyond the process: its save is then never
  ///     put off (``mayDeferNextSave``).
  ///   - effects: What the command does outside its state (``Effect``), run once the scene
  ///     files are written and before anything is put in place: a command that fails to save
  ///     has done nothing.
  /// - Throws: A `CatalogError` or `StateRestorationError` when something cannot be saved, or
  ///   what `effects` throws.
  /// - Returns: One-line warnings: the activity history could not be written, say. The
  ///   scenes and the session are saved all the same.
  @discardableResult
  package func commit(
    from old: AppState, to new: inout AppState, catalogChanges: [CatalogChange] = [],
    refreshingActivity: Bool = false, reachesOutside: Bool = true,
    performing effects: () throws -> Void = {}
  ) throws -> [String] {
    var notes: [String] = []
    // The active scene's activity becomes current when it changes or its scene comes to the
    // front. It goes into the scene's file with its date, listed as pending (durable before
    // the output, like the rest), and into the history with the scene's next batch.
    var current: UserActivityRecord?
    // A product `done` adds is shown before the catalog has it: its activity is the one it
    // advertises once saved.
    for case .insert(let product) in catalogChanges
    where new.activeScene.userActivity == nil
      && new.activeScene.path.topProduct == product.identifier
    {
      new.activeScene.userActivity = ProductActivity.show(product)
    }
    // Showing a product (`select`, `push`) makes its activity current even when it was in front.
    if refreshingActivity || new.activeScene.userActivity != old.activeScene.userActivity
      || old.activeSceneName != new.activeSceneName
    {
      current = new.activeScene.userActivity
      current?.lastActiveDate = environment.now
    }
    let oldScenes = Dictionary(
      old.scenes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    var changed: [Scene] = []
    for scene in new.scenes {
      let isCurrent = scene.name == new.activeSceneName && current != nil
      guard
        isCurrent || oldScenes[scene.name]?.storage != scene.storage
          || oldScenes[scene.name]?.userActivity != scene.userActivity
      else { continue }
      var saved = scene
      if isCurrent { saved.userActivity = current }
      changed.append(saved)
    }
    // Scenes this process held and no longer has: closed, including a saved scene the command
    // opened only to close it for good.
    let closed = Set(old.scenes.map(\.name)).union(environment.ownedScenes)
      .subtracting(new.scenes.map(\.name))
    // The scene in front is saved with a close (it keeps what a closed scene's file kept for
    // the activity history when the history cannot take it), and when it comes to the front,
    // its file saying so: the session file is written only when its scenes change.
    let front = sessionShown(by: new).activeScene
    let frontChanged = front != nil && old.activeSceneName != new.activeSceneName
    if !closed.isEmpty || frontChanged,
      !changed.contains(where: { $0.name == new.activeSceneName })
    {
      changed.append(new.activeScene)
    }
    // A file this process has not read, in the way of a scene it opens anew, is set aside.
    // Every file is written (a full disk stops the change here, before any is replaced or the
    // catalog changes) and, when the catalog commits too, the scenes' flushed while it does:
    // the two waits on the disk overlap.
    var save = CommandSave()
    save.scenes = changed
    save.session =
      old.session.scenes != new.session.scenes || !closed.isEmpty ? sessionShown(by: new) : nil
    // The file of a scene that came to the front says when: the scene made active last, in
    // this process or another, is in front at the next launch.
    if let front, frontChanged { frontToRecord = (front, sessions.activationDate()) }
    if let record = frontToRecord, record.scene == front,
      changed.contains(where: { $0.name == record.scene })
    {
      save.activating = record
    }
    save.closing = closed
    save.catalogChanges = catalogChanges
    save.activities = current.map { [(new.activeSceneName, $0)] } ?? []
    if let deferred { save = save.including(deferred.save) }
    if mayDeferNextSave && !reachesOutside && save.catalogChanges.isEmpty
      && save.closing.isEmpty
    {
      deferred = (save, deferred?.base ?? old, (deferred?.commands ?? 0) + 1)
      environment.bringToFront(new.activeSceneName)
      return notes
    }
    let (catalog, saveNotes) = try withoutActuallyEscaping(effects) { effects in
      try save.perform(
        scenes: sessions, catalog: environment.catalog,
        activities: CatalogActivityHistory(
          writer: environment.historyWriter, catalog: new.catalog),
        effects: reachesOutside ? effects : nil)
    }
    deferred = nil
    if save.activating != nil { frontToRecord = nil }
    notes += saveNotes
    if let catalog {
      new.catalog = catalog
      new.updateActivities()
    }
    environment.bringToFront(new.activeSceneName)
    return notes
  }

  /// Saves what commands put off (``hasDeferredSave``), as one.
  ///
  /// - Returns: One-line warnings, as ``commit(from:to:catalogChanges:refreshingActivity:reachesOutside:performing:)``
  ///   returns.
  /// - Throws: What saving throws; the saves stay put off (``dropDeferredSave()``).
  package func saveDeferred() throws -> [String] {
    guard let deferred else { return [] }
    let (_, saveNotes) = try deferred.save.perform(
      scenes: sessions, catalog: environment.catalog,
      activities: CatalogActivityHistory(
        writer: environment.historyWriter, catalog: deferred.base.catalog))
    self.deferred = nil
    if deferred.save.activating != nil { frontToRecord = nil }
    return saveNotes + environment.historyWriter.takeNotes()
  }

  /// Gives up the saves put off, after ``saveDeferred()`` failed.
  ///
  /// - Returns: The state before the first command whose save was put off, and how many
  ///   commands' saves are given up; nil when none was put off.
  package func dropDeferredSave() -> (state: AppState, commands: Int)? {
    defer { deferred = nil }
    return deferred.map { ($0.base, $0.commands) }
  }

  /// The state with the catalog as other processes may have changed it.
  ///
  /// - Parameters:
  ///   - state: The state in memory.
  ///   - command: The command about to run: one that needs no server
  ///     (``AppState/needsCatalogServer(for:)``) runs on the products read before while the
  ///     server cannot be reached.
  /// - Returns: The state with the latest readable catalog.
  /// - Throws: ``CatalogError/unreachable(location:reason:)`` when the catalog's server cannot be
  ///   reached and the command needs it (it then changes nothing, and the next one connects
  ///   again).
  package func refreshed(_ state: AppState, for command: Command? = nil) throws -> (
    state: AppState, notes: [String]
  ) {
    var state = state
    let catalog: Catalog
    do {
      var ahead = CatalogReadAhead()
      if let named = command?.namedProduct { ahead.add(named: named) }
      catalog = try environment.refreshed(state.catalog, readingAhead: ahead)
    } catch let error as CatalogError {
      guard let command, !state.needsCatalogServer(for: command) else { throw error }
      return (state, [])
    }
    guard catalog != state.catalog else { return (state, []) }
    state.catalog = catalog
    // A product another process deleted leaves every path that showed it.
    var notes: [String] = []
    for index in state.scenes.indices {
      if let note = state.scenes[index].validate(against: catalog) {
        notes.append("scene '\(state.scenes[index].name)': \(note)")
      }
    }
    return (state, notes)
  }

  private func saveScene(_ scene: Scene) throws {
    try sessions.commit(sessions.prepare(saving: [scene]))
  }

  /// This process's scenes and the one in front, as the shared session should list them: a
  /// passing scene is not the session's — not listed, never the one in front next time.
  private func sessionShown(by state: AppState, keepingFront: Bool = false) -> SessionState {
    SessionState(
      scenes: state.scenes.map(\.name).filter { $0 != passingScene },
      activeScene: state.activeSceneName == passingScene || keepingFront || leavesFrontAlone
        ? nil : state.activeSceneName)
  }

  private func saveSession(
    _ state: AppState, released: Set<SceneName>, keepingFront: Bool = false
  ) throws {
    let shown = sessionShown(by: state, keepingFront: keepingFront)
    try sessions.saveSession(
      owned: shown.scenes, released: released, activeScene: shown.activeScene)
  }

  /// Sets an unreadable line history aside, so that it is saved again; a session at a terminal
  /// checks the activity history too (``ActivityHistoryWriter/check()``), which another run
  /// checks when it first uses it.
  ///
  /// - Parameters:
  ///   - options: The launch's options.
  ///   - warnings: Where to add what was set aside and why.
  private func checkHistories(_ options: LaunchOptions, warnings: inout [String]) {
    if options.isInteractive {
      environment.historyWriter.check()
      warnings += environment.historyWriter.takeNotes()
    }
    do {
      if options.readsLineHistory { _ = try HistoryFile.read(in: directory) }
    } catch {
      warnings.append(
        directory.quarantine(
          HistoryFile.path, because: error, consequence: "the line history starts empty"))
    }
  }

  private func loadSession(warnings: inout [String]) throws -> SessionState {
    let (session, warning) = try sessions.restoreSession()
    if let warning { warnings.append(warning) }
    return session
  }

  /// Loads a scene, checked against the catalog.
  private func loadScene(_ name: SceneName, catalog: Catalog, warnings: inout [String]) throws
    -> Scene
  {
    let restored = try sessions.restoreScene(name)
    if let setAside = restored.setAside {
      warnings.append(
        "\(setAside.reason); moved it to '\(setAside.keptAs)' and scene '\(name)' starts fresh")
    }
    guard restored.wasSaved else { return Scene(name: name) }
    var saved = restored.scene.userActivity
    saved?.lastActiveDate = nil
    var scene = Scene(name: name, storage: restored.scene.storage)
    // What it advertised, until the check reads its product (a failed read leaves it as saved).
    scene.userActivity = saved
    let note = scene.validate(against: catalog)
    if let note {
      // What was dropped (a path, a draft) may be wanted again, if the catalog was replaced
      // by mistake: the file as it was is kept.
      let kept: String
      do {
        kept =
          "; kept the saved scene as '\(try directory.quarantineCopy(of: SceneFile.path(for: name)))'"
      } catch {
        kept = "; the saved scene could not be kept (\(error.localizedDescription))"
      }
      warnings.append("scene '\(name)': \(note)\(kept)")
    }
    if note != nil || scene.userActivity != saved {
      do {
        try saveScene(scene)
      } catch {
        warnings.append("scene '\(name)': \(error.localizedDescription)")
      }
    }
    return scene
  }

  /// Performs a command: the one path every command takes, typed at the prompt, `catalog open`
  /// from the shell, or delivered by another process. It sees what other processes saved
  /// (their notes go to `warn`), applies the command to the state, and saves what it changed;
  /// when it returns, the change is on disk and the output may be printed.
  ///
  /// - Parameters:
  ///   - command: The command.
  ///   - state: The state; on return, the state after the command, or, when it throws, the
  ///     state with the catalog as other processes left it.
  ///   - warn: Where notes about other processes' changes go, before the command runs.
  /// - Returns: What the command printed, with the notes of saving it in its warnings.
  /// - Throws: What applying the command, performing its effects (``Effect``) or saving it
  ///   throws; nothing was saved.
  package func perform(
    _ command: Command, on state: inout AppState, warn: (String) -> Void
  ) throws -> CommandResult {
    do {
      return try performing(command, on: &state, warn: warn)
    } catch CatalogError.editConflict(let name, let field, let theirs, let yours, let keep, nil) {
      // On a catalog the user's machines share, the change may be another machine's: named.
      let machine = state.activeScene.path.topProduct.flatMap {
        environment.database?.handoff?.machine(thatLastChanged: $0)
      }
      throw CatalogError.editConflict(
        product: name, field: field, theirs: theirs, yours: yours, keepTheirs: keep,
        machine: machine)
    }
  }

  private func performing(
    _ command: Command, on state: inout AppState, warn: (String) -> Void
  ) throws -> CommandResult {
    let old = state
    // A scene whose product another process deleted leaves it, and is saved so with this
    // command.
    let (before, notes) = try refreshed(state, for: command)
    for note in notes { warn(note) }
    state = before
    // A command that reopens a saved scene asks for it; the scene is claimed and read, and the
    // command applied again.
    defer { environment.forgetRestoredScenes() }
    var result: CommandResult
    var requests = 0
    while true {
      do {
        result = try before.applying(command, environment: environment)
        break
      } catch CatalogCoreError.sceneToRestore(let name) where requests < 8 {
        requests += 1
        try environment.restoreScene(name)
      }
    }
    try environment.perform(result.effects.filter(\.isClaim), for: &result)
    var next = result.state
    var performed = result
    let warnings = try commit(
      from: old, to: &next, catalogChanges: result.catalogChanges,
      refreshingActivity: result.showsProduct,
      reachesOutside: result.effects.contains(where: \.reachesOutside)
    ) {
      try environment.perform(result.effects.filter(\.reachesOutside), for: &performed)
    }
    result = performed
    // What the activity history's first use this run found (a file set aside), too.
    result.warnings += warnings + environment.historyWriter.takeNotes()
    state = next
    result.state = next
    return result
  }
}

extension SceneFile {
  /// The products scene files show, each once and at most 64, for a catalog on a server to
  /// read with its state as it opens (``CatalogStore/load(readingAhead:)``) rather than one
  /// request each as the scenes are checked against it.
  ///
  /// - Parameter files: The scene files, as read.
  /// - Returns: The products' identifiers, in the files' order.
  static func productsToReadAhead(in files: [SceneFile]) -> [UUID] {
    var seen: Set<UUID> = []
    var products: [UUID] = []
    for file in files {
      for product in Scene(name: file.name, storage: file.storage).savedProducts
      where seen.insert(product).inserted {
        products.append(product)
        if products.count == 64 { return products }
      }
    }
    return products
  }
}
