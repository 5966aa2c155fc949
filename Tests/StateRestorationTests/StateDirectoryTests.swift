import Foundation
import StateRestoration
import Synchronization
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
    #expect(throws: StateRestorationError.self) {
      try DurableFile.write(Data("new".utf8), to: temporary.path + "/missing-dir/file.json")
    }
    #expect(try DurableFile.read(path, limit: 100) == Data("old".utf8))
  }

  @Test func aFileOverTheLimitIsRefusedUnread() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/big.json"
    try DurableFile.write(Data(count: 2000), to: path)
    #expect(throws: StateRestorationError.tooLarge(path: path, size: 2000, limit: 1000)) {
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
    #expect(throws: StateRestorationError.self, "\(label)") {
      try directory.load(TestSceneFile.self, from: "s.json")
    }
    do {
      _ = try directory.load(TestSceneFile.self, from: "s.json")
    } catch let error as StateRestorationError {
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
      throws: StateRestorationError.newerFormatVersion(
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
      throws: StateRestorationError.locked(
        path: directory.path(of: "locks/main.lock"), owner: getpid())
    ) {
      try directory.lock("locks/main.lock")
    }
    first = nil
    _ = try directory.lock("locks/main.lock")
  }
}

@Suite struct SessionStateTests {
  let a = SceneName("a")
  let b = SceneName("b")
  let c = SceneName("c")

  @Test func mergingKeepsOtherProcessesScenesInPlace() {
    let shared = SessionState(scenes: [a, b], activeScene: a)
    let merged = shared.merging(owned: [c], released: [], activeScene: c)
    #expect(merged == SessionState(scenes: [a, b, c], activeScene: c))
  }

  @Test func mergingRemovesReleasedScenes() {
    let shared = SessionState(scenes: [a, b, c], activeScene: b)
    let merged = shared.merging(owned: [a], released: [b], activeScene: a)
    #expect(merged == SessionState(scenes: [a, c], activeScene: a))
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

/// The channel other processes deliver links and activities through.
@Suite struct DeliveryChannelTests {
  static let link = DeliveryChannel.Message(
    kind: .openURL, url: "catalog://products", sender: "pid 1")

  @Test func aMessageIsAnsweredOnlyWhenTheReceiverReplies() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let arrived = DispatchSemaphore(value: 0)
    let channel = try DeliveryChannel(in: state) { arrived.signal() }
    defer { channel.close() }
    let mode = try FileManager.default.attributesOfItem(atPath: channel.path)[.posixPermissions]
    #expect(mode as? Int == 0o600)
    let answer = Mutex<DeliveryChannel.Reply?>(nil)
    let sent = DispatchSemaphore(value: 0)
    // A thread of its own, not Dispatch's: its few worker threads may all be busy with other
    // tests, and the sender must run within the wait below.
    Thread.detachNewThread {
      let reply = try? DeliveryChannel.deliver(Self.link, to: getpid(), in: state)
      answer.withLock { $0 = reply }
      sent.signal()
    }
    #expect(arrived.wait(timeout: .now() + 10) == .success)
    let pending = channel.takePending()
    #expect(pending.map(\.message) == [Self.link])
    // No answer before the reply.
    #expect(sent.wait(timeout: .now() + 0.2) == .timedOut)
    pending.first?.reply(.init(ok: true, text: "Opened."))
    #expect(sent.wait(timeout: .now() + 10) == .success)
    #expect(answer.withLock { $0 } == .init(ok: true, text: "Opened."))
    // Removed on close, and no longer reachable.
    channel.close()
    #expect(!FileManager.default.fileExists(atPath: channel.path))
    #expect(throws: StateRestorationError.notListening(pid: getpid())) {
      try DeliveryChannel.deliver(Self.link, to: getpid(), in: state)
    }
  }

  /// Closing a channel again — as its `deinit` does after `close()` — must not touch the
  /// descriptor number it had, which by then may be another channel's.
  @Test func closingTwiceLeavesANewerChannelAlone() throws {
    for _ in 0..<20 {
      let first = TemporaryDirectory()
      let second = TemporaryDirectory()
      let old = try DeliveryChannel(in: try StateDirectory(creating: first.path)) {}
      old.close()
      // Its accept loop closes the descriptor; the next socket is likely to get its number.
      Thread.sleep(forTimeInterval: 0.01)
      let state = try StateDirectory(creating: second.path)
      let channel = try DeliveryChannel(in: state) {}
      defer { channel.close() }
      old.close()
      let answering = Thread {
        for _ in 0..<1_000 {
          if let delivery = channel.takePending().first {
            delivery.reply(.init(ok: true, text: "Opened."))
            return
          }
          Thread.sleep(forTimeInterval: 0.005)
        }
      }
      answering.start()
      let reply = try DeliveryChannel.deliver(Self.link, to: getpid(), in: state)
      #expect(reply == .init(ok: true, text: "Opened."))
    }
  }

  @Test func aStaleSocketOfADeadProcessIsRemoved() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    // A pid no process has: the socket file it left is stale.
    let stale = state.path(of: "4194303.socket")
    #expect(FileManager.default.createFile(atPath: stale, contents: Data()))
    DeliveryChannel.removeStaleSockets(in: state)
    #expect(!FileManager.default.fileExists(atPath: stale))
  }

  /// Another user's process is refused by its credentials, even where the socket's mode would
  /// let it connect.
  @Test func aPeerOfAnotherUserIsRefused() throws {
    guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
      FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    else {
      print("skipped: needs root, /usr/bin/setpriv and /usr/bin/python3 to run a peer as nobody")
      return
    }
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let channel = try DeliveryChannel(in: state) {}
    defer { channel.close() }
    chmod(directory.path, 0o711)
    chmod(channel.path, 0o666)
    let peer = Process()
    peer.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
    peer.arguments = [
      "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
      """
      import socket, sys
      s = socket.socket(socket.AF_UNIX)
      s.connect(sys.argv[1])
      try:
          s.sendall(b'{"kind": "open", "url": "catalog://products", "sender": "x"}\\n')
          s.shutdown(socket.SHUT_WR)
      except OSError:
          pass  # refused before it was read: the answer is waiting all the same
      print(s.recv(4096).decode())
      """, channel.path,
    ]
    let output = Pipe()
    peer.standardOutput = output
    peer.standardError = output
    try peer.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    peer.waitUntilExit()
    #expect(text.contains("refused: another user"), "\(text)")
    #expect(channel.takePending().isEmpty)
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
