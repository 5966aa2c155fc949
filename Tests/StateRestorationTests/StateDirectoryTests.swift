import Foundation
import StateRestoration
import Synchronization
import SystemSupport
import TestSupport
import Testing

@Suite struct StateDirectoryTests {
  @Test func createsDirectoriesPrivateAndFilesOwnerOnly() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path + "/a/b")
    try directory.save(TestSceneFile(storage: SceneStorageValues()), to: "scenes/main.json")
    let attributes = try FileManager.default.attributesOfItem(atPath: directory.path)
    #expect((attributes[.posixPermissions] as? Int) == 0o700)
    let scenes = try FileManager.default.attributesOfItem(atPath: directory.path(of: "scenes"))
    #expect((scenes[.posixPermissions] as? Int) == 0o700)
    let file = try FileManager.default.attributesOfItem(
      atPath: directory.path(of: "scenes/main.json"))
    #expect((file[.posixPermissions] as? Int) == 0o600)
  }

  @Test func aWriteLeavesNoTemporaryFileBehind() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    for index in 0..<5 {
      try directory.save(
        TestSceneFile(storage: SceneStorageValues(["i": .int(index)])), to: "x.json")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["x.json"])
    #expect(try directory.load(TestSceneFile.self, from: "x.json")?.storage.entries["i"] == .int(4))
  }

  @Test func aFailedWriteKeepsTheOldFile() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/file.json"
    try DurableFile.write(Data("old".utf8), to: path)
    #expect(throws: SystemError.self) {
      try DurableFile.write(Data("new".utf8), to: temporary.path + "/missing-dir/file.json")
    }
    #expect(try DurableFile.read(path, limit: 100) == Data("old".utf8))
  }

  @Test func aFileOverTheLimitIsRefusedUnread() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/big.json"
    try DurableFile.write(Data(count: 2000), to: path)
    #expect(throws: SystemError.tooLarge(path: path, size: 2000, limit: 1000)) {
      try DurableFile.read(path, limit: 1000)
    }
  }

  static let badFiles: [(String, String)] = [
    ("{\"formatVersion\": 1, \"storage\": {\"k\": {\"type\": \"int\", \"val", "truncated"),
    ("not json at all", "not JSON"),
    (
      "{\"formatVersion\": 1, \"storage\": {\"k\": {\"type\": \"int\", \"value\": \"seven\"}}}",
      "wrong value type"
    ),
    (
      "{\"formatVersion\": 1, \"storage\": {\"k\": {\"type\": \"rocket\", \"value\": 1}}}",
      "unknown type tag"
    ),
    ("{\"formatVersion\": \"1\", \"storage\": {}}", "version as a string"),
    ("{\"formatVersion\": 0, \"storage\": {}}", "version zero"),
    ("[1, 2, 3]", "an array"),
    ("", "empty"),
  ]

  @Test(arguments: badFiles)
  func aMalformedFileThrowsMalformed(_ contents: String, _ label: String) throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    try DurableFile.write(Data(contents.utf8), to: directory.path(of: "s.json"))
    #expect(throws: SystemError.self, "\(label)") {
      try directory.load(TestSceneFile.self, from: "s.json")
    }
    do {
      _ = try directory.load(TestSceneFile.self, from: "s.json")
    } catch let error as SystemError {
      guard case .malformed = error else {
        Issue.record("\(label): \(error)")
        return
      }
    }
  }

  @Test func aNewerFormatVersionIsRecognized() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    try DurableFile.write(
      Data("{\"formatVersion\": 9, \"storage\": {}, \"future\": true}".utf8),
      to: directory.path(of: "s.json"))
    #expect(
      throws: SystemError.newerFormatVersion(
        path: directory.path(of: "s.json"), found: 9, supported: 1)
    ) {
      try directory.load(TestSceneFile.self, from: "s.json")
    }
  }

  @Test func quarantineKeepsEveryFileUnderADistinctName() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    let date = Date(timeIntervalSince1970: 1_795_000_000.25)
    var destinations: [String] = []
    for contents in ["first", "second"] {
      try DurableFile.write(Data(contents.utf8), to: directory.path(of: "scenes-dir-less.json"))
      destinations.append(try directory.quarantine("scenes-dir-less.json", at: date))
    }
    #expect(destinations[0] != destinations[1])
    #expect(destinations[0].hasSuffix("quarantine/scenes-dir-less.20261118T110640.250Z.json"))
    #expect(try DurableFile.read(destinations[0], limit: 100) == Data("first".utf8))
    #expect(try DurableFile.read(destinations[1], limit: 100) == Data("second".utf8))
    #expect(!directory.contains("scenes-dir-less.json"))
  }

  @Test func aHeldLockRefusesASecondHolderUntilReleased() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    var first: FileLock? = try directory.lock("locks/main.lock")
    #expect(first != nil)
    // flock locks belong to open file descriptions, so a second open in the same process
    // conflicts exactly as another process would.
    #expect(
      throws: SystemError.locked(
        path: directory.path(of: "locks/main.lock"), owner: getpid())
    ) {
      try directory.lock("locks/main.lock")
    }
    first = nil
    _ = try directory.lock("locks/main.lock")
  }

  /// A holder's record is its identity and note, whatever the file held before; a record
  /// shorter than the last is cut to its length, and the same record again is not written.
  @Test func aLockRecordsItsHolderOnceAndOnlyWhatItIs() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    let path = directory.path(of: "locks/main.lock")
    try FileManager.default.createDirectory(
      atPath: directory.path(of: "locks"), withIntermediateDirectories: true)
    try Data(repeating: UInt8(ascii: "x"), count: 200).write(to: URL(fileURLWithPath: path))
    let identity = ProcessIdentity.current
    let line = "\(identity.pid) \(identity.startTime.map(String.init) ?? "-")\n"
    func contents() throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
    func modified() throws -> Date? {
      try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
    }
    let lock = try directory.lock("locks/main.lock", note: "terminal one")
    #expect(try contents() == line + "terminal one\n")
    lock.record(note: nil)
    #expect(try contents() == line)
    lock.record(note: "a longer note than before")
    #expect(try contents() == line + "a longer note than before\n")
    let written = try modified()
    usleep(20_000)
    lock.record(note: "a longer note than before")
    #expect(try modified() == written)
    #expect(FileLock.holder(of: path)?.note == "a longer note than before")
  }

  /// A holder that waited for the lock cuts what the holder before it wrote meanwhile, however
  /// long, to its own record.
  @Test func aLockTakenAfterAWaitCutsTheRecordWrittenMeanwhile() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    let path = directory.path(of: "locks/main.lock")
    var first: FileLock? = try directory.lock("locks/main.lock")
    let taken = DispatchSemaphore(value: 0)
    let second = Mutex<FileLock?>(nil)
    DispatchQueue.global().async {
      let lock = try? directory.lockWaiting("locks/main.lock")
      second.withLock { $0 = lock }
      taken.signal()
    }
    // The waiter has looked at the file and waits for the lock; the holder writes more.
    usleep(100_000)
    first?.record(note: "a note much longer than the identity it follows")
    first = nil
    taken.wait()
    #expect(second.withLock { $0 } != nil)
    let identity = ProcessIdentity.current
    #expect(
      try String(contentsOfFile: path, encoding: .utf8)
        == "\(identity.pid) \(identity.startTime.map(String.init) ?? "-")\n")
  }
}

@Suite struct SessionStateTests {
  let a = SceneName("a")
  let b = SceneName("b")
  let c = SceneName("c")

  @Test func mergingKeepsOtherProcessesScenesInPlace() {
    let shared = SessionState(scenes: [a, b], activeScene: a)
    let merged = shared.merging(owned: [c], released: [], activeScene: c)
    #expect(merged.scenes == [a, b, c] && merged.activeScene == c)
  }

  @Test func mergingRemovesReleasedScenes() {
    let shared = SessionState(scenes: [a, b, c], activeScene: b)
    let merged = shared.merging(owned: [a], released: [b], activeScene: a)
    #expect(merged.scenes == [a, c] && merged.activeScene == a)
  }

  @Test func aNewActiveSceneIsDatedAndAnUnchangedOneKeepsItsDate() throws {
    let then = Date(timeIntervalSinceReferenceDate: 1000)
    let shared = SessionState(scenes: [a, b], activeScene: a, activatedAt: then)
    let before = Date()
    #expect(
      try #require(shared.merging(owned: [b], released: [], activeScene: b).activatedAt) >= before)
    #expect(shared.merging(owned: [a], released: [], activeScene: a) == shared)
    #expect(shared.merging(owned: [c], released: [], activeScene: nil).activatedAt == then)
    // A front that goes with its scene takes its date along.
    let released = shared.merging(owned: [b], released: [a], activeScene: nil)
    #expect(released.activeScene == nil && released.activatedAt == nil)
  }

  @Test func theSceneMadeActiveLastIsInFront() {
    let session = SessionState(
      scenes: [a, b, c], activeScene: a, activatedAt: Date(timeIntervalSinceReferenceDate: 100))
    let earlier = Date(timeIntervalSinceReferenceDate: 50)
    let later = Date(timeIntervalSinceReferenceDate: 200)
    let latest = Date(timeIntervalSinceReferenceDate: 300)
    #expect(session.front(among: []) == a)
    #expect(session.front(among: [(b, earlier), (c, nil)]) == a)
    #expect(session.front(among: [(b, later), (c, latest)]) == c)
    #expect(session.front(among: [(b, latest), (c, later)]) == b)
    // A file of a scene the session does not list, or of an earlier version, says nothing.
    #expect(session.front(among: [(SceneName("d"), latest), (b, nil)]) == a)
    // A session file of an earlier version is older than any scene file that says.
    #expect(SessionState(scenes: [a, b], activeScene: a).front(among: [(b, earlier)]) == b)
    #expect(SessionState(scenes: [a, b]).front(among: [(b, nil)]) == nil)
  }

  @Test(arguments: ["main", "a", "Z9", "side-1", "a.b_c", String(repeating: "x", count: 64)])
  func validSceneNames(_ name: String) {
    #expect(SceneName(name)?.rawValue == name)
  }

  @Test(arguments: [
    "", ".hidden", "-x", "_x", "a/b", "a b", "..", "é", String(repeating: "x", count: 65), "a\u{0}",
  ])
  func invalidSceneNames(_ name: String) {
    #expect(SceneName(name) == nil)
  }
}

/// The streamed forms of a durable write: contents written through a descriptor, or a file
/// built by path, flushed beside the destination and put in place only by `commit()`.
@Suite struct StreamedWriteTests {
  struct Stop: Error {}

  @Test func aStreamedWriteReplacesTheFileOnlyWhenCommitted() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/out.txt"
    try DurableFile.write(Data("old".utf8), to: path)
    let prepared = try DurableFile.prepare(for: path) { descriptor in
      for line in ["one\n", "two\n"] {
        #expect(
          line.utf8CString.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count - 1) } == 4)
      }
    }
    #expect(try DurableFile.read(path, limit: 100) == Data("old".utf8))
    try prepared.commit()
    #expect(try DurableFile.read(path, limit: 100) == Data("one\ntwo\n".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["out.txt"])
  }

  @Test func aStreamStoppedPartWayLeavesTheOldFileAndNoTemporaryOne() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/out.txt"
    try DurableFile.write(Data("old".utf8), to: path)
    #expect(throws: Stop.self) {
      _ = try DurableFile.prepare(for: path) { descriptor in
        _ = write(descriptor, "partial", 7)
        throw Stop()
      }
    }
    #expect(throws: Stop.self) {
      _ = try DurableFile.prepare(for: path) { (built: String) in
        try Data("partial".utf8).write(to: URL(fileURLWithPath: built))
        throw Stop()
      }
    }
    #expect(try DurableFile.read(path, limit: 100) == Data("old".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["out.txt"])
  }

  @Test func aFileBuiltByPathIsFlushedAndPutInPlace() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/built.db"
    try DurableFile.prepare(for: path, permissions: 0o600) { (built: String) in
      try Data("built".utf8).write(to: URL(fileURLWithPath: built))
    }.commit()
    #expect(try DurableFile.read(path, limit: 100) == Data("built".utf8))
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
  }
}
