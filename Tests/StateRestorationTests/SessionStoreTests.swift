import ActivityIndex
import Foundation
import StateRestoration
import SystemSupport
import TestSupport
import Testing

private struct ListView {
  @SceneStorage("ListView.items") var items: [String] = []
  @SceneStorage("ListView.selection") var selection: Int?
}

@Suite struct SessionStoreTests {
  /// The store is `Sendable`: changes saved as they are made on several threads, while the
  /// program saves and opens another scene, all reach the disk.
  @Test func aSessionUsedFromManyThreadsSavesEveryChange() async throws {
    let temporary = TemporaryDirectory()
    do {
      let session = try SessionStore(directory: temporary.path + "/state")
      session.savesEveryChange = true
      let store = try session.open(.main)
      await withTaskGroup(of: Void.self) { group in
        for worker in 0..<4 {
          group.addTask {
            for value in 1...25 {
              store[SceneStorageKey<Int>("worker\(worker)", default: 0)] = value
            }
          }
        }
        group.addTask { for _ in 0..<10 { try? session.save() } }
        group.addTask { _ = try? session.open("second") }
      }
      try session.save()
      #expect(session.warnings.isEmpty, "\(session.warnings)")
    }
    let reopened = try SessionStore(directory: temporary.path + "/state")
    let store = try reopened.open(.main)
    for worker in 0..<4 {
      #expect(store[SceneStorageKey<Int>("worker\(worker)", default: 0)] == 25)
    }
  }

  @Test func sceneStorageSavedThroughTheStoreComesBackInTheNextOne() throws {
    let temporary = TemporaryDirectory()
    do {
      let session = try SessionStore(directory: temporary.path)
      let view = SceneStore.$current.withValue(try session.open(.main)) { ListView() }
      view.items.append("milk")
      view.selection = 0
      try session.save()
    }
    let session = try SessionStore(directory: temporary.path)
    let view = SceneStore.$current.withValue(try session.open(.main)) { ListView() }
    #expect(view.items == ["milk"])
    #expect(view.selection == 0)
    #expect(try session.readSession() == SessionState(scenes: [.main], activeScene: .main))
    #expect(session.warnings.isEmpty)
  }

  /// A program's own directory, shared with its other files: the store makes its own folders
  /// and files private and leaves everything else — a script's execute bit, a folder others
  /// read — as it was, with a warning that the directory is open to others.
  /// Code written for Apple's platforms names places by file URL.
  @Test func aStateDirectoryGivenAsAURLIsTheOneAtItsPath() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/my state"
    do {
      let session = try SessionStore(directory: URL(fileURLWithPath: path))
      let store = try session.open(.main)
      store[SceneStorageKey<Int>("count", default: 0)] = 3
      try session.save()
    }
    let session = try SessionStore(directory: path)
    #expect(try session.open(.main)[SceneStorageKey<Int>("count", default: 0)] == 3)
    #expect(
      ActivityHistory(directory: URL(fileURLWithPath: path)) == ActivityHistory(directory: path))
  }

  @Test func filesTheStoreDidNotMakeKeepTheirModes() throws {
    let temporary = TemporaryDirectory()
    let script = temporary.path + "/run.sh"
    let folder = temporary.path + "/shared"
    #expect(FileManager.default.createFile(atPath: script, contents: Data("exit 0\n".utf8)))
    #expect(chmod(script, 0o755) == 0)
    #expect(mkdir(folder, 0o755) == 0)
    #expect(chmod(folder, 0o755) == 0)
    #expect(chmod(temporary.path, 0o755) == 0)
    do {
      let session = try SessionStore(directory: temporary.path)
      _ = try session.open(.main)
      try session.save()
    }
    #expect(chmod(temporary.path + "/scenes", 0o755) == 0)
    #expect(chmod(temporary.path + "/scenes/main.json", 0o644) == 0)
    let session = try SessionStore(directory: temporary.path)
    func mode(_ path: String) -> mode_t {
      var status = stat()
      return stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0
    }
    #expect(mode(script) == 0o755)
    #expect(mode(folder) == 0o755)
    #expect(mode(temporary.path) == 0o755)
    #expect(mode(temporary.path + "/scenes") == 0o700)
    #expect(mode(temporary.path + "/scenes/main.json") == 0o600)
    #expect(session.warnings.count == 1, "\(session.warnings)")
    guard case .madePrivate(let detail) = session.warnings.first else {
      Issue.record("expected the directory made private, got \(session.warnings)")
      return
    }
    #expect(detail.contains("open to other users"))
  }

  /// A scene larger than the next launch reads is refused by `save()` at once, its file left
  /// as it was; the next launch restores what was saved before, not a scene set aside.
  @Test func aSceneTheNextLaunchCouldNotReadIsRefusedWhenSaved() throws {
    let temporary = TemporaryDirectory()
    do {
      let session = try SessionStore(directory: temporary.path)
      let view = SceneStore.$current.withValue(try session.open(.main)) { ListView() }
      view.items = ["milk"]
      try session.save()
      view.items.append(String(repeating: "x", count: StateDirectory.defaultSizeLimit))
      #expect {
        try session.save()
      } throws: { error in
        "\(error)".contains("nothing was saved")
      }
    }
    let session = try SessionStore(directory: temporary.path)
    let view = SceneStore.$current.withValue(try session.open(.main)) { ListView() }
    #expect(view.items == ["milk"])
    #expect(session.warnings.isEmpty, "\(session.warnings)")
  }

  /// A value an earlier version stored as another type reads as the default and is left as it
  /// was; once the program sets the key, the old value is kept under a key of its own, saved,
  /// and a warning says so.
  @Test func aValueThatNoLongerDecodesIsKeptAside() throws {
    let temporary = TemporaryDirectory()
    do {
      let session = try SessionStore(directory: temporary.path)
      try session.open(.main).values = SceneStorageValues(["ListView.items": .string("milk")])
      try session.save()
    }
    do {
      let session = try SessionStore(directory: temporary.path)
      let view = SceneStore.$current.withValue(try session.open(.main)) { ListView() }
      #expect(view.items == [])
      view.selection = 1
      try session.save()
      #expect(session.warnings.isEmpty)
    }
    do {
      let session = try SessionStore(directory: temporary.path)
      let store = try session.open(.main)
      #expect(store.values.entries["ListView.items"] == .string("milk"))
      let view = SceneStore.$current.withValue(store) { ListView() }
      view.items = ["eggs"]
      try session.save()
      #expect(session.warnings.count == 1)
      guard case .valueSetAside(.main, let value) = session.warnings.first else {
        Issue.record("expected a value set aside, got \(session.warnings)")
        return
      }
      #expect(value.keptAs == "ListView.items.unreadable")
      #expect(
        session.warnings.first?.description.contains("kept it as 'ListView.items.unreadable'")
          == true)
    }
    let reopened = try SessionStore(directory: temporary.path)
    let values = try reopened.open(.main).values
    #expect(values.entries["ListView.items.unreadable"] == .string("milk"))
    #expect(
      SceneStorageKey<[String]>("ListView.items", default: []).value(
        from: values.entries["ListView.items"]) == ["eggs"])
  }

  /// A scene's name written in the program is a literal, as a SwiftUI scene's identifier is;
  /// a name from outside is checked and may fail.
  @Test func sceneNamesAreLiteralsInTheProgramAndCheckedFromOutside() throws {
    let inspector: SceneName = "inspector"
    #expect(inspector.rawValue == "inspector")
    #expect(SceneName("side") == SceneName(String("side")))
    for typed in ["../x", "", ".hidden", "a/b", String(repeating: "x", count: 65)] {
      #expect(SceneName(typed) == nil, "\(typed)")
    }
    let temporary = TemporaryDirectory()
    let session = try SessionStore(directory: temporary.path)
    _ = try session.open("inspector")
    #expect(session.isClaimed(inspector))
  }

  @Test func aSceneIsOwnedByOneStoreUntilItIsReleased() throws {
    let temporary = TemporaryDirectory()
    let first = try SessionStore(directory: temporary.path)
    _ = try first.open(.main)
    let second = try SessionStore(directory: temporary.path)
    let refusal = #expect(throws: StateRestorationError.self) { try second.claim(.main) }
    guard case .sceneOpenElsewhere(let scene, let pid, _) = refusal else {
      Issue.record("\(String(describing: refusal))")
      return
    }
    #expect(scene == "main" && pid == getpid())
    first.release(.main)
    try second.claim(.main)
    #expect(second.claimedScenes == [.main])
  }

  @Test func theClaimedScenesAreListedInNameOrder() throws {
    let temporary = TemporaryDirectory()
    let store = try SessionStore(directory: temporary.path)
    for name in ["zeta", "alpha", "main"] { try store.claim(try #require(SceneName(name))) }
    store.release(SceneName("main"))
    #expect(store.claimedScenes.map(\.rawValue) == ["alpha", "zeta"])
    #expect(store.isClaimed(SceneName("zeta")))
    #expect(!store.isClaimed(.main))
  }

  @Test func anUnreadableSceneIsSetAsideAndAReadableOneIsNotTouched() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    let good = SceneFile(name: .main, storage: SceneStorageValues(["k": .string("v")]))
    try directory.save(good, to: SceneFile.path(for: .main))
    let before = try Data(contentsOf: URL(fileURLWithPath: directory.path(of: "scenes/main.json")))
    try Data("{not json".utf8).write(to: URL(fileURLWithPath: directory.path(of: "scenes/b.json")))

    let session = try SessionStore(directory: temporary.path)
    let restored = try session.restoreScene(.main)
    #expect(restored.wasSaved && restored.setAside == nil)
    #expect(restored.scene.storage == good.storage)
    let broken = try session.restoreScene(SceneName("b"))
    #expect(!broken.wasSaved && broken.scene.storage.entries.isEmpty)
    let kept = try #require(broken.setAside?.keptAs)
    #expect(kept.contains("/quarantine/scenes-b."))
    #expect(FileManager.default.contents(atPath: kept) == Data("{not json".utf8))
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: directory.path(of: "scenes/main.json"))) == before)
  }

  /// A scene file read again reads what the file holds now: a file another process wrote, or
  /// made unreadable, since this one read it (and kept what it decoded) is read afresh.
  @Test func aSceneFileReadAgainIsWhatTheFileHoldsNow() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    let path = SceneFile.path(for: .main)
    try directory.save(
      SceneFile(name: .main, storage: SceneStorageValues(["k": .string("v")])), to: path)
    #expect(try SceneFile.read(.main, in: directory)?.storage.entries["k"] == .string("v"))
    #expect(try SceneFile.read(.main, in: directory)?.storage.entries["k"] == .string("v"))
    try directory.save(
      SceneFile(name: .main, storage: SceneStorageValues(["k": .string("w")])), to: path)
    #expect(try SceneFile.read(.main, in: directory)?.storage.entries["k"] == .string("w"))
    try Data("{not json".utf8).write(to: URL(fileURLWithPath: directory.path(of: path)))
    #expect(throws: (any Error).self) { try SceneFile.read(.main, in: directory) }
    try FileManager.default.removeItem(atPath: directory.path(of: path))
    #expect(try SceneFile.read(.main, in: directory) == nil)
  }

  @Test func aSceneFileKeepsWhenItsSceneCameToTheFrontUntilItComesAgain() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    let then = Date(timeIntervalSinceReferenceDate: 800_000_000)
    var file = SceneFile(name: .main, storage: SceneStorageValues(["k": .string("v")]))
    file.activatedAt = then
    try directory.save(file, to: SceneFile.path(for: .main))
    let session = try SessionStore(directory: temporary.path)
    var scene = try session.restoreScene(.main).scene
    #expect(session.activatedAt(of: .main) == then)
    // Saved again, for a change made while it stays in front: the date stays.
    scene.storage = SceneStorageValues(["k": .string("w")])
    try session.commit(session.prepare(saving: [scene]))
    #expect(try SceneFile.read(.main, in: directory)?.activatedAt == then)
    // Brought to the front again: the new date, which a clock set back cannot make older.
    #expect(session.activationDate() > then)
    let now = session.activationDate()
    try session.commit(session.prepare(saving: [scene], activating: (.main, now)))
    #expect(try SceneFile.read(.main, in: directory)?.activatedAt == now)
  }

  @Test func aLostSessionIsRebuiltFromTheSceneFiles() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    let other = SceneName("other")
    for name in [other, SceneName.main] {
      try directory.save(SceneFile(name: name, storage: .init()), to: SceneFile.path(for: name))
    }
    try Data("[]".utf8).write(to: URL(fileURLWithPath: directory.path(of: SessionFile.path)))
    let session = try SessionStore(directory: temporary.path)
    let (restored, warning) = try session.restoreSession()
    #expect(restored.scenes == [.main, other])
    #expect(warning?.contains("rebuilt the session from 2 scene files") == true)
    #expect(!directory.contains(SessionFile.path))
  }

  @Test func preparedScenesThatAreNotCommittedLeaveEveryFileAsItWas() throws {
    let temporary = TemporaryDirectory()
    let session = try SessionStore(directory: temporary.path)
    let second = SceneName("second")
    var scenes = [Scene(name: .main), Scene(name: second)]
    try session.commit(session.prepare(saving: scenes))
    scenes[0].storage = SceneStorageValues(["n": .int(1)])
    scenes[1].storage = SceneStorageValues(["n": .int(2)])
    do { _ = try session.prepare(saving: scenes) }
    for scene in [SceneName.main, second] {
      #expect(try SceneFile.read(scene, in: session.directory)?.storage.entries.isEmpty == true)
    }
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: session.directory.path(of: "scenes"))
        .sorted() == ["main.json", "second.json"])
    try session.commit(session.prepare(saving: scenes))
    #expect(try SceneFile.read(second, in: session.directory)?.storage.entries["n"] == .int(2))
  }

  @Test func aFileThisProcessHasNotReadIsSetAsideRatherThanOverwritten() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    let left = SceneName("left")
    try directory.save(
      SceneFile(name: left, storage: SceneStorageValues(["draft": .string("keep me")])),
      to: SceneFile.path(for: left))
    let session = try SessionStore(directory: temporary.path)
    let prepared = try session.prepare(saving: [Scene(name: left)])
    #expect(prepared.notes.count == 1)
    #expect(prepared.notes.first?.contains("had a saved file from before") == true)
    try session.commit(prepared)
    let quarantined = try FileManager.default.contentsOfDirectory(
      atPath: directory.path(of: StateDirectory.quarantineFolder))
    #expect(quarantined.count == 1)
    // Written once, the file is this process's: the next save writes it in place.
    #expect(try session.prepare(saving: [Scene(name: left)]).notes.isEmpty)
  }

  @Test func closingASceneRemovesItsFileAndItsPlaceInTheSession() throws {
    let temporary = TemporaryDirectory()
    let session = try SessionStore(directory: temporary.path)
    let notes = SceneName("notes")
    SceneStore.$current.withValue(try session.open(.main)) { ListView() }.items = ["a"]
    SceneStore.$current.withValue(try session.open(notes)) { ListView() }.items = ["b"]
    try session.save(activeScene: notes)
    #expect(try session.readSession() == SessionState(scenes: [.main, notes], activeScene: notes))
    try session.close(notes)
    #expect(try session.readSession().scenes == [.main])
    #expect(!session.directory.contains(SceneFile.path(for: notes)))
    #expect(!session.isClaimed(notes))
  }

  @Test func launchesThatDiedBeforeTheyWereReadySetTheStateAside() throws {
    let temporary = TemporaryDirectory()
    do {
      let session = try SessionStore(directory: temporary.path)
      _ = try session.open(.main)
      try session.save()
    }
    let session = try SessionStore(directory: temporary.path)
    // Two launches by processes that are gone, which never said they were ready.
    let dead = deadProcessIdentifier()
    try FileManager.default.createDirectory(
      atPath: session.directory.path(of: "launching"), withIntermediateDirectories: true)
    for start in 1...SessionStore.crashLimit {
      _ = FileManager.default.createFile(
        atPath: session.directory.path(of: "launching/\(dead).\(start)"), contents: nil)
    }
    let check = try session.beginLaunch()
    #expect(check.startsFresh)
    #expect(check.crashedLaunches == SessionStore.crashLimit)
    #expect(check.filesSetAside == 2)
    #expect(!session.directory.contains(SessionFile.path))
    #expect(session.endLaunch(reachedPrompt: true).isEmpty)
    // Ready once, the next launch is a normal one.
    #expect(try !session.beginLaunch().startsFresh)
  }
}
