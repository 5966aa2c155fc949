import Synchronization
package import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A program's saved scenes in a state directory: what an Apple app gets from the system when
/// it is relaunched — its windows back, each with its scene storage.
///
/// A store claims the scenes this process shows (a lock each, held by the store and released
/// by ``close(_:)`` or when the store goes away, and by the kernel when the
/// process dies), restores each one from `scenes/NAME.json` — a file that cannot be read goes
/// to `quarantine/` with a warning and that scene starts fresh; a readable one is never
/// touched —, rebuilds `session.json` from the scene files when it is lost, counts launches
/// that died before they were ready, and saves a set of scene changes all or nothing: every
/// file is written and flushed beside its old version first, and only then renamed into place.
///
/// The shortest way to adopt it, with `@SceneStorage`:
///
/// ```swift
/// let session = try SessionStore(directory: stateDirectory)
/// let scene = try session.open(.main)
/// let view = SceneStore.$current.withValue(scene) { ListView() }
/// view.items.append("milk")   // a @SceneStorage property
/// try session.save()          // durable now; restored at the next launch, even after kill -9
/// ```
///
/// Its public API may be called from any thread: a save, a scene opened and a change saved as
/// it is made (``savesEveryChange``) are serialized. The package's own lower-level calls
/// (preparing and committing scenes as values) belong to one thread.
public final class SessionStore: @unchecked Sendable {
  /// The state directory.
  package let directory: StateDirectory
  /// One-line warnings for the user from opening the directory and its scenes — a directory
  /// open to other users, a scene file that could not be read and was set aside — and from
  /// ``save(activeScene:)``: a stored value the program could not read, kept aside when it set
  /// that key.
  public var warnings: [StateRestorationWarning] { saving.withLock { _ in collectedWarnings } }
  private var collectedWarnings: [StateRestorationWarning] = []
  /// The terminal this process's scenes are shown on, recorded in their lock files.
  package var terminal: String? = SceneOwner.currentTerminal

  // Keyed by a scene name's text: keyed by `SceneName`, these sets' and dictionaries' storage
  // would be built at run time after a search of every protocol conformance in the program,
  // in each process that claims a scene (a library's generic types are built from their
  // mangled names).
  /// The locks of the scenes this process owns, by name.
  private var locks: [String: FileLock] = [:]
  /// The scene in front, as recorded in the lock files.
  private var frontScene: SceneName?
  /// The scenes whose file this process read, found missing or wrote: saving them never sets
  /// a file aside.
  private var knownFiles: Set<String> = []
  /// The activities each scene's file lists as pending (``PendingActivity``), as this process
  /// last read or wrote them, by scene name.
  private var pendingLists: [String: [PendingActivity]] = [:]
  /// When each scene's file says its scene was made active (``SceneFile/activatedAt``), as this
  /// process read it, by scene name.
  private var activations: [String: Date] = [:]
  /// The newest date a session file this process read says its active scene became active.
  private var sessionActivatedAt: Date?
  /// The scenes opened with ``open(_:)``, in order, with the change count last saved.
  private var openScenes: [OpenScene] = []
  /// Serializes what the public API does: saves (the program's, those made for it when it
  /// leaves, and those of each change), scenes opened and closed, warnings.
  private let saving = Mutex(())
  /// Whether the program's leaving saves this store's scenes (once a scene was opened).
  private var isSavedWhenLeaving = false

  /// Whether every change of a scene opened with ``open(_:)`` is saved at once, durably, as
  /// it is made: for a program whose every change must survive `kill -9`, at the cost of a
  /// write and a flush per change. False by default: changes are saved by
  /// ``save(activeScene:)`` and when the program leaves. A change that cannot be saved is
  /// added to ``warnings`` and written on standard error.
  public var savesEveryChange: Bool {
    get { saving.withLock { _ in changesSavedAtOnce } }
    set {
      saving.withLock { _ in
        changesSavedAtOnce = newValue
        watchChanges()
      }
    }
  }
  private var changesSavedAtOnce = false

  private struct OpenScene {
    var name: SceneName
    var store: SceneStore
    var activity: UserActivityRecord?
    var savedChangeCount: Int?
  }

  /// The folders of a state directory.
  package static let folders = [
    "scenes", "locks", LaunchTracker.folder, StateDirectory.quarantineFolder,
  ]

  /// How many launches in a row may die before they are ready (``endLaunch(reachedPrompt:)``)
  /// before ``beginLaunch()`` sets the saved state aside.
  public static let crashLimit = LaunchTracker.failureLimit

  /// Opens a state directory: creates it 0700 when missing, makes the folders and files it
  /// made private when they were open to others, warns when the directory itself is (it may
  /// be the program's, holding other files, which are never touched), refuses a link or a
  /// file in place of one of its folders, and removes what writers killed mid-write left
  /// behind.
  ///
  /// - Parameter path: The state directory.
  /// - Throws: A ``StateRestorationError`` when the directory cannot be created or one of its
  ///   folders is not a folder.
  public init(directory path: String) throws {
    directory = try StateRestorationError.translating { try StateDirectory(creating: path) }
    if let warning = directory.makeOwnFilesPrivate(
      folders: Self.folders, files: [SessionFile.path])
    {
      collectedWarnings.append(.madePrivate(detail: warning))
    }
    // A link or a file in place of a folder is refused before anything is read through it.
    for folder in Self.folders where directory.contains(folder) {
      try StateRestorationError.translating {
        try DurableFile.createPrivateSubdirectory(directory.path(of: folder))
      }
    }
    directory.removeAbandonedTemporaryFiles(
      subfolders: ["scenes", StateDirectory.quarantineFolder])
  }

  /// Opens the state directory at a file URL, as `init(directory:)` opens it at a path.
  ///
  /// - Parameter url: The state directory.
  /// - Throws: A ``StateRestorationError`` when the directory cannot be created or one of its
  ///   folders is not a folder.
  public convenience init(directory url: URL) throws {
    try self.init(directory: url.directoryPath)
  }

  // MARK: Launches

  /// Records that this process is launching, as Apple's state restoration notices an app
  /// that crashes at launch: when the launches before it died before they were ready
  /// ``crashLimit`` times in a row, the session file and the scene files no running process
  /// owns go to quarantine, and this launch starts fresh.
  ///
  /// Call ``endLaunch(reachedPrompt:)`` once the program is ready for its user, or when it
  /// refuses to start with a message.
  ///
  /// - Returns: What the launches before this one left.
  /// - Throws: A ``StateRestorationError`` when the launch lock cannot be taken.
  public func beginLaunch() throws -> LaunchCheck {
    try StateRestorationError.translating { try LaunchTracker.begin(in: directory) }
  }

  /// Records that this process's launch ended.
  ///
  /// - Parameter reachedPrompt: Whether the program became ready for its user, which forgives
  ///   the crashes before it; false for a launch refused with a message, which is no crash.
  /// - Returns: One-line warnings when the launch could not be recorded.
  @discardableResult
  public func endLaunch(reachedPrompt: Bool) -> [StateRestorationWarning] {
    LaunchTracker.end(in: directory, reachedPrompt: reachedPrompt).map {
      .launchNotRecorded(detail: $0)
    }
  }

  // MARK: The session

  /// Reads the session: which scenes are open, in order, and which is active; rebuilt from
  /// the scene files when there is no session file.
  ///
  /// - Returns: The session.
  /// - Throws: A ``StateRestorationError`` when the session file cannot be read.
  package func readSession() throws -> SessionState {
    let session = try SessionFile.read(in: directory)
    if let date = session.activatedAt, sessionActivatedAt.map({ date > $0 }) ?? true {
      sessionActivatedAt = date
    }
    return session
  }

  /// Reads the session for a launch: a session file that cannot be read goes to quarantine,
  /// and the session is rebuilt from the scene files beside it, so that no scene is left
  /// unlisted.
  ///
  /// - Returns: The session, and a warning when the file was set aside.
  /// - Throws: ``StateRestorationError/cannotSetAside(problem:reason:)`` when an unreadable
  ///   file cannot be moved: it is then left unread, and never written over.
  package func restoreSession() throws -> (session: SessionState, warning: String?) {
    do {
      return (try readSession(), nil)
    } catch {
      let rebuilt = SessionFile.rebuilt(in: directory)
      let count = rebuilt.scenes.count
      let warning = try setAside(
        SessionFile.path, because: error,
        consequence: count == 0
          ? "the session starts with scene '\(SceneName.main)'"
          : "rebuilt the session from \(count.grouped) scene file\(count == 1 ? "" : "s")")
      return (rebuilt, warning)
    }
  }

  /// Merges this process's scenes into the session file that every process of the directory
  /// shares (``SessionState/merging(owned:released:activeScene:)``), under the session lock.
  ///
  /// - Parameters:
  ///   - owned: This process's scenes, in order.
  ///   - released: The scenes this process closed.
  ///   - activeScene: The scene in front; nil leaves the session's as it is.
  /// - Throws: A ``StateRestorationError`` when the file cannot be written.
  package func saveSession(
    owned: [SceneName], released: Set<SceneName> = [], activeScene: SceneName?
  ) throws {
    let lock = try directory.lockWaiting(LockFiles.session)
    defer { withExtendedLifetime(lock) {} }
    let current = try restoreSession().session
    let merged = current.merging(owned: owned, released: released, activeScene: activeScene)
    guard merged != current || !directory.contains(SessionFile.path) else { return }
    try directory.save(SessionFile(merged), to: SessionFile.path)
  }

  /// The scenes that have a file in `scenes/`, sorted by name.
  public var savedSceneNames: [SceneName] { SessionFile.sceneNamesOnDisk(in: directory) }

  // MARK: Owning scenes

  /// Makes this process the owner of a scene; claiming a scene it owns already does nothing.
  ///
  /// - Parameter name: The scene.
  /// - Throws: ``StateRestorationError/sceneOpenElsewhere(scene:pid:terminal:)`` when another
  ///   running process has it open.
  package func claim(_ name: SceneName) throws {
    guard locks[name.rawValue] == nil else { return }
    do {
      let lock = try directory.lock(
        LockFiles.scene(name),
        note: SceneOwner(process: .current, terminal: terminal, isFront: name == frontScene).note)
      locks[name.rawValue] = lock
    } catch SystemError.locked(_, let pid) {
      let owner = self.owner(of: name)
      throw StateRestorationError.sceneOpenElsewhere(
        scene: name.rawValue, pid: owner?.process.pid ?? pid, terminal: owner?.terminal)
    }
  }

  /// Gives a scene up, leaving its file as it is: another process may open it now.
  ///
  /// - Parameter name: The scene.
  package func release(_ name: SceneName) {
    locks[name.rawValue] = nil
    knownFiles.remove(name.rawValue)
    openScenes.removeAll { $0.name == name }
  }

  /// The scenes this process owns, in name order.
  package var claimedScenes: [SceneName] { locks.keys.sorted().map(SceneName.init(unchecked:)) }

  /// Whether this process owns a scene.
  ///
  /// - Parameter name: The scene.
  /// - Returns: true when this store holds the scene's lock.
  package func isClaimed(_ name: SceneName) -> Bool { locks[name.rawValue] != nil }

  /// The process that has a scene open, if a running one has.
  ///
  /// - Parameter name: The scene.
  /// - Returns: The owner, this process included.
  package func owner(of name: SceneName) -> SceneOwner? {
    guard let owner = SceneOwner(lockFile: directory.path(of: LockFiles.scene(name))) else {
      return nil
    }
    // This process's record stays in a lock it has given back.
    return owner.isThisProcess && locks[name.rawValue] == nil ? nil : owner
  }

  /// Records which of this process's scenes is in front, in their lock files, for other
  /// processes that list every window's scenes.
  ///
  /// - Parameter name: The scene in front.
  package func bringToFront(_ name: SceneName) {
    guard name != frontScene else { return }
    frontScene = name
    for (scene, lock) in locks {
      lock.record(
        note: SceneOwner(process: .current, terminal: terminal, isFront: scene == name.rawValue)
          .note)
    }
  }

  // MARK: Restoring and saving scenes

  /// Claims a scene and reads it back from its file: its storage and the activity it
  /// advertised. A file that cannot be read goes to quarantine and the scene starts fresh.
  ///
  /// - Parameter name: The scene.
  /// - Returns: The scene, whether it had a file, and the file set aside, if one was.
  /// - Throws: ``StateRestorationError/sceneOpenElsewhere(scene:pid:terminal:)`` when another
  ///   process has it open; ``StateRestorationError/cannotSetAside(problem:reason:)`` when an
  ///   unreadable file cannot be moved (the scene is then not claimed, and its file untouched).
  package func restoreScene(_ name: SceneName) throws -> RestoredScene {
    try claim(name)
    let path = SceneFile.path(for: name)
    do {
      let file = try SceneFile.read(name, in: directory)
      knownFiles.insert(name.rawValue)
      pendingLists[name.rawValue] = file?.unsavedActivities
      activations[name.rawValue] = file?.activatedAt
      return RestoredScene(
        scene: Scene(name: name, storage: file?.storage ?? .init(), userActivity: file?.activity),
        wasSaved: file != nil)
    } catch {
      let reason = StateRestorationError.describing(error)
      do {
        let destination = try directory.quarantine(path)
        knownFiles.insert(name.rawValue)
        pendingLists[name.rawValue] = nil
        activations[name.rawValue] = nil
        return RestoredScene(
          scene: Scene(name: name), wasSaved: false,
          setAside: RestoredScene.SetAside(reason: reason, keptAs: destination))
      } catch let moving {
        release(name)
        throw StateRestorationError.cannotSetAside(
          problem: reason, reason: StateRestorationError.describing(moving))
      }
    }
  }

  /// Writes and flushes the files a change of scenes needs — each scene's file, and the shared
  /// session's when it changes — beside the old ones, without putting any in place: a full
  /// disk stops the change here, before any file changed. ``commit(_:)`` puts them in place.
  ///
  /// A scene file this process has not read (left by a crash while a scene was closed, say)
  /// is moved to quarantine first, with a note: a file the program has not read is never
  /// written over. The session file is merged with the session as it is now; the commit
  /// merges again, under the session lock, if another process changed it meanwhile.
  ///
  /// - Parameters:
  ///   - scenes: The scenes to save, with the activities they advertise.
  ///   - session: This process's scenes in order and the one in front (nil to leave the
  ///     session's as it is), merged into the session file; nil when the session did not
  ///     change.
  ///   - closing: Scenes this process closes: taken out of the session now, their files
  ///     removed and their locks released by the commit.
  ///   - flushingInBackground: Whether the scene files' flushes run while the caller does its
  ///     other work (another file's commit, say), ``commit(_:)`` waiting for them and
  ///     reporting a failed one: a full disk is still found here, when the files are written.
  ///     False by default: the files are on the disk when this returns.
  ///   - pendingActivities: The pending activities (``PendingActivity``) to list in some of
  ///     the scenes' files, by scene name; the others keep the list their file has.
  ///   - activating: The scene this change makes active through its own file, one of `scenes`,
  ///     and when it came to the front (``SceneFile/activatedAt``): the session's front changes
  ///     without the session file being written. The other files say what they said.
  /// - Returns: The prepared files; dropping them leaves every file as it was.
  /// - Throws: A ``StateRestorationError``: a full disk, a scene another process owns, a file
  ///   in the way that cannot be moved.
  package func prepare(
    saving scenes: [Scene], session: SessionState? = nil, closing: Set<SceneName> = [],
    flushingInBackground: Bool = false, pendingActivities: [String: [PendingActivity]] = [:],
    activating: (scene: SceneName, date: Date)? = nil
  ) throws -> PreparedScenes {
    var prepared = PreparedScenes()
    for scene in scenes {
      try claim(scene.name)
      let path = SceneFile.path(for: scene.name)
      var inherited: [PendingActivity] = []
      if !knownFiles.contains(scene.name.rawValue), directory.contains(path) {
        // The activities it keeps for the history stay with the scene of its name.
        inherited =
          ((try? SceneFile.read(scene.name, in: directory)) ?? nil)?.unsavedActivities ?? []
        do {
          let destination = try directory.quarantine(path)
          prepared.notes.append(
            "scene '\(scene.name)' had a saved file from before; kept it as '\(destination)'")
        } catch {
          throw StateRestorationError.cannotSetAside(
            problem: "scene '\(scene.name)' has a saved file from before",
            reason: StateRestorationError.describing(error))
        }
      }
      var file = SceneFile(scene)
      file.pendingActivities = inherited.reduce(
        pendingActivities[scene.name.rawValue] ?? pendingLists[scene.name.rawValue] ?? []
      ) { list, entry in PendingActivity.adding(entry, to: list) }
      file.activatedAt =
        scene.name == activating?.scene ? activating?.date : activations[scene.name.rawValue]
      prepared.writes.append(
        try directory.prepareSave(file, to: path, flushingInBackground: flushingInBackground))
      prepared.names.append(scene.name)
      prepared.pendingLists[scene.name.rawValue] = file.pendingActivities
      prepared.activations.append((scene.name.rawValue, file.activatedAt))
    }
    prepared.closing = closing
    if session != nil || !closing.isEmpty {
      let owned = session?.scenes ?? openScenes.map(\.name).filter { !closing.contains($0) }
      var change = PreparedScenes.SessionChange(
        owned: owned, released: closing, activeScene: session?.activeScene)
      change.base = try restoreSession().session
      let merged = change.merged(into: change.base)
      if merged != change.base || !directory.contains(SessionFile.path) {
        change.write = try directory.prepareSave(SessionFile(merged), to: SessionFile.path)
      }
      prepared.session = change
    }
    return prepared
  }

  /// Puts prepared files in place — the scenes', then the session's — and closes the scenes
  /// the preparation named.
  ///
  /// The session is written before closed scenes' files are removed: a crash between the two
  /// leaves an unlisted file, which the next ``prepare(saving:session:closing:flushingInBackground:)``
  /// of that name sets aside, never a listed scene whose storage is gone.
  ///
  /// - Parameter prepared: The files
  ///   ``prepare(saving:session:closing:flushingInBackground:)`` wrote.
  /// - Throws: A ``StateRestorationError`` when a file cannot be renamed or removed.
  package func commit(_ prepared: PreparedScenes) throws {
    for write in prepared.writes { try write.commit() }
    knownFiles.formUnion(prepared.names.map(\.rawValue))
    pendingLists.merge(prepared.pendingLists) { _, new in new }
    for (name, date) in prepared.activations { activations[name] = date }
    if let change = prepared.session {
      // No lock is held between the two halves (the caller's work may wait on another process
      // that saves its session): a session another process changed meanwhile is merged again.
      let lock = try directory.lockWaiting(LockFiles.session)
      defer { withExtendedLifetime(lock) {} }
      let current = try restoreSession().session
      if current == change.base {
        try change.write?.commit()
      } else {
        let merged = change.merged(into: current)
        if merged != current || !directory.contains(SessionFile.path) {
          try directory.save(SessionFile(merged), to: SessionFile.path)
        }
      }
    }
    for name in prepared.closing {
      try directory.remove(SceneFile.path(for: name))
      pendingLists[name.rawValue] = nil
      activations[name.rawValue] = nil
      release(name)
    }
  }

  /// Whether a scene that came to the front at a date must say so in its file
  /// (``recordFront(_:at:)``): the files do not say it is in front now, and would once its
  /// file says that date (a scene another process made active since stays in front).
  ///
  /// - Parameters:
  ///   - name: The scene.
  ///   - date: When it came to the front.
  /// - Returns: true when its file should be written; false when the session file cannot be
  ///   read or does not list the scene.
  package func needsFrontRecorded(_ name: SceneName, at date: Date) -> Bool {
    guard let session = try? readSession(), session.scenes.contains(name) else { return false }
    let known = activations[name.rawValue]
    // One reading serves both questions: the files that may be newer than the date known
    // include those that may be newer than a later one.
    let others = SessionFile.activations(of: session, in: directory, knowing: [(name, known)])
      .dropFirst()
    guard session.front(among: [(name, known)] + others) != name else { return false }
    return session.front(among: [(name, max(known ?? date, date))] + others) == name
  }

  /// Writes a scene's file saying the scene was made active at a date: again as it is on disk,
  /// or, when this process has not read one there, from the scene.
  ///
  /// - Parameters:
  ///   - scene: The scene, which this process owns, as it was last saved.
  ///   - date: When it came to the front.
  /// - Throws: A ``StateRestorationError`` when the file cannot be read or written.
  package func recordFront(_ scene: Scene, at date: Date) throws {
    let name = scene.name
    if knownFiles.contains(name.rawValue),
      var file = try StateRestorationError.translating({ try SceneFile.read(name, in: directory) })
    {
      file.activatedAt = date
      try StateRestorationError.translating {
        try directory.save(file, to: SceneFile.path(for: name))
      }
      activations[name.rawValue] = date
    } else {
      try commit(prepare(saving: [scene], activating: (name, date)))
    }
  }

  /// A date for a scene coming to the front now: now, or just after the newest date this
  /// process read in the session's files, where the clock went back since.
  ///
  /// - Returns: The date.
  package func activationDate() -> Date {
    let newest = (Array(activations.values) + [sessionActivatedAt].compactMap { $0 }).max()
    return max(Date(), newest.map { $0.addingTimeInterval(0.001) } ?? .distantPast)
  }

  /// When a scene's file says its scene was made active (``SceneFile/activatedAt``), as this
  /// process last read or wrote the file.
  ///
  /// - Parameter name: The scene.
  /// - Returns: The date; nil when the file does not say, or this process has not read it.
  package func activatedAt(of name: SceneName) -> Date? {
    activations[name.rawValue]
  }

  /// The activities a scene's file lists as pending (``PendingActivity``), oldest first, as
  /// this process last read or wrote the file.
  ///
  /// - Parameter name: The scene.
  /// - Returns: The entries; empty for a scene this process has not read or saved.
  package func pendingActivities(of name: SceneName) -> [PendingActivity] {
    pendingLists[name.rawValue] ?? []
  }

  // MARK: Scenes for @SceneStorage

  /// Opens a scene for `@SceneStorage` properties: claims it, restores its storage, and
  /// returns the store its properties bind to (``SceneStore/current``; in a program that opens
  /// one scene, storage declared anywhere). A file that could not be read is set aside with a
  /// warning in ``warnings``.
  ///
  /// From then on the scenes opened are saved when the program leaves — a normal exit with any
  /// status, Ctrl-C, `SIGTERM` or `SIGHUP` (a signal the program handles itself is left to it)
  /// — as SwiftUI saves a scene when it goes to the background. A change that must survive
  /// `kill -9` at a given point is saved by ``save(activeScene:)`` there, or every change by
  /// ``savesEveryChange``.
  ///
  /// - Parameter name: The scene.
  /// - Returns: The scene's storage; the same store each time the scene is opened.
  /// - Throws: ``StateRestorationError/sceneOpenElsewhere(scene:pid:terminal:)`` when another
  ///   process has it open, or another ``StateRestorationError``.
  public func open(_ name: SceneName) throws -> SceneStore {
    let (store, isFirst) = try saving.withLock { _ throws in
      if let open = openScenes.first(where: { $0.name == name }) { return (open.store, false) }
      let restored = try StateRestorationError.translating { try restoreScene(name) }
      if let setAside = restored.setAside {
        collectedWarnings.append(
          .sceneSetAside(scene: name, reason: setAside.reason, keptAs: setAside.keptAs))
      }
      let store = SceneStore(restored.scene.storage)
      openScenes.append(
        OpenScene(
          name: name, store: store, activity: restored.scene.userActivity,
          savedChangeCount: restored.wasSaved ? store.changeCount : nil))
      bindProgramScene()
      watchChanges()
      let isFirst = !isSavedWhenLeaving
      isSavedWhenLeaving = true
      return (store, isFirst)
    }
    // Outside the lock: leaving takes the registry's lock, then this one.
    if isFirst {
      AutomaticSaving.register(self)
    }
    return store
  }

  /// A store that goes away saves the scenes opened with it, as when the program leaves.
  deinit {
    guard isSavedWhenLeaving else { return }
    AutomaticSaving.saveGoingAway(self, hasScenes: !openScenes.isEmpty)
    if SceneStore.programScene.withLock({ $0 }) === openScenes.first?.store {
      SceneStore.programScene.withLock { $0 = nil }
    }
  }

  /// `@SceneStorage` outside a scene binds to the program's scene while it has one.
  private func bindProgramScene() {
    let only = openScenes.count == 1 ? openScenes.first?.store : nil
    SceneStore.programScene.withLock { $0 = only }
  }

  /// Saves each change of the opened scenes while ``savesEveryChange`` is set.
  private func watchChanges() {
    let owner = WeakSession(self)
    let save: @Sendable () -> Void = { owner.session?.saveChange() }
    let action = changesSavedAtOnce ? save : nil
    for scene in openScenes { scene.store.onChange(action) }
  }

  /// Saves a change as it is made; a failure is a warning, and the next change tries again.
  private func saveChange() {
    do {
      try save()
    } catch {
      let warning = StateRestorationWarning.changeNotSaved(
        reason: StateRestorationError.describing(error))
      saving.withLock { _ in collectedWarnings.append(warning) }
      _ = "warning: \(warning)\n".withCString { write(2, $0, strlen($0)) }
    }
  }

  /// Saves every scene opened with ``open(_:)`` whose storage changed since it was opened or
  /// last saved, and the session, all or nothing: when this returns, it is on disk.
  ///
  /// - Parameter activeScene: The scene in front; by default the last opened.
  /// - Throws: A ``StateRestorationError``; every file is then as it was.
  public func save(activeScene: SceneName? = nil) throws {
    try StateRestorationError.translating {
      try saving.withLock { _ throws in try saveOpenScenes(activeScene: activeScene) }
    }
  }

  private func saveOpenScenes(activeScene: SceneName?) throws {
    let changed = openScenes.indices.filter {
      openScenes[$0].savedChangeCount != openScenes[$0].store.changeCount
    }
    let counts = changed.map { openScenes[$0].store.changeCount }
    let active = activeScene ?? openScenes.last?.name
    let prepared = try prepare(
      saving: changed.map {
        Scene(
          name: openScenes[$0].name, storage: openScenes[$0].store.values,
          userActivity: openScenes[$0].activity)
      }, session: SessionState(scenes: openScenes.map(\.name), activeScene: active))
    try commit(prepared)
    for (index, count) in zip(changed, counts) { openScenes[index].savedChangeCount = count }
    for scene in openScenes {
      collectedWarnings += scene.store.takeSetAsideValues().map {
        .valueSetAside(scene: scene.name, $0)
      }
    }
    if let active { bringToFront(active) }
  }

  /// Closes a scene opened with ``open(_:)`` or claimed: as when a window is closed for good,
  /// its storage is destroyed, its file removed and the scene taken out of the session.
  ///
  /// - Parameter name: The scene.
  /// - Throws: A ``StateRestorationError`` when the session or the file cannot be written.
  public func close(_ name: SceneName) throws {
    try StateRestorationError.translating {
      try saving.withLock { _ throws in
        try claim(name)
        try commit(prepare(saving: [], closing: [name]))
        if let index = openScenes.firstIndex(where: { $0.name == name }) {
          openScenes[index].store.onChange(nil)
          openScenes.remove(at: index)
        }
        bindProgramScene()
      }
    }
  }

  /// Moves a file that could not be read to quarantine, for a warning that says so.
  private func setAside(_ path: String, because error: any Error, consequence: String) throws
    -> String
  {
    let reason = StateRestorationError.describing(error)
    do {
      let destination = try directory.quarantine(path)
      return "\(reason); moved it to '\(destination)' and \(consequence)"
    } catch let moveError {
      throw StateRestorationError.cannotSetAside(
        problem: reason, reason: StateRestorationError.describing(moveError))
    }
  }
}

/// A session store held weakly, for a scene's change handler.
private final class WeakSession: @unchecked Sendable {
  weak var session: SessionStore?
  init(_ session: SessionStore) { self.session = session }
}

/// What ``SessionStore/beginLaunch()`` found: the launches before this one that died before
/// they were ready, and what was set aside because of them.
public struct LaunchCheck: Sendable, Hashable {
  /// How many launches in a row died before they were ready; 0 unless they reached
  /// ``SessionStore/crashLimit``, when the saved state was set aside.
  public var crashedLaunches = 0
  /// How many files (the session and unowned scenes) went to quarantine.
  public var filesSetAside = 0
  /// What could not be done: a launch that could not be recorded, a record that could not be
  /// read.
  public var warnings: [StateRestorationWarning] = []

  /// Whether this launch starts fresh, its saved state set aside.
  public var startsFresh: Bool { crashedLaunches > 0 }
}

/// A scene as ``SessionStore/restoreScene(_:)`` read it back.
package struct RestoredScene: Sendable, Hashable {
  /// A file that could not be read: why, and where it was kept.
  package struct SetAside: Sendable, Hashable {
    /// Why the file could not be read, naming it.
    package var reason: String
    /// The file's path in `quarantine/`.
    package var keptAs: String
  }

  /// The scene: its storage and the activity it advertised, or a fresh scene.
  package var scene: Scene
  /// Whether the scene had a file that was read.
  package var wasSaved: Bool
  /// The file that could not be read and was moved to quarantine, if any.
  package var setAside: SetAside?
}

/// Scene files and the session file written and flushed beside their old versions, waiting
/// for ``SessionStore/commit(_:)``: dropping them leaves every file as it was.
package struct PreparedScenes {
  /// Notes for the user: files in the way that were moved to quarantine.
  package internal(set) var notes: [String] = []
  var writes: [PreparedWrite] = []
  var names: [SceneName] = []
  var pendingLists: [String: [PendingActivity]] = [:]
  var activations: [(String, Date?)] = []
  var session: SessionChange?
  var closing: Set<SceneName> = []

  /// This process's change to the shared session, and the file it makes of the session read
  /// when it was prepared.
  struct SessionChange {
    var owned: [SceneName]
    var released: Set<SceneName>
    var activeScene: SceneName?
    /// The session as read when the change was prepared.
    var base = SessionState(scenes: [], activeScene: nil)
    /// The merged file, written beside the old one; nil when the merge changed nothing.
    var write: PreparedWrite?

    func merged(into session: SessionState) -> SessionState {
      session.merging(owned: owned, released: released, activeScene: activeScene)
    }
  }

  /// No scene files: for a commit that only updates the session or closes scenes.
  package init() {}
}
