import Foundation
import StateRestoration
import Synchronization
import SystemSupport
import Testing

/// Links and handoffs delivered to the running catalog through its socket.
@Suite(.serialized) struct DeliveryTests {
  static func mainScene(_ sandbox: CatalogSandbox) throws -> [String: Any] {
    let state = try sandbox.stateJSON()
    return try #require(
      (state["scenes"] as? [[String: Any]])?.first { $0["name"] as? String == "main" })
  }

  /// A running REPL with Mango's detail on top: listening, with something to deliver into.
  static func replShowingMango(_ sandbox: CatalogSandbox) -> Process {
    let repl = sandbox.start()
    repl.send("select mango")
    repl.readOutput(until: "Keywords")
    return repl
  }

  static func socketPath(_ sandbox: CatalogSandbox, _ process: Process) -> String {
    sandbox.stateDirectory + "/\(process.processIdentifier).socket"
  }

  @Test(arguments: CatalogEngine.allCases)
  func aLinkFromTheShellReachesTheRunningCatalogAndIsDurableWhenAcknowledged(engine: CatalogEngine)
    throws
  {
    let sandbox = try CatalogSandbox(engine)
    let repl = Self.replShowingMango(sandbox)
    let link = "catalog://product/Cherries?tab=photo"
    let result = try sandbox.run(["open", link])
    #expect(result.status == 0, "\(result.errors)")
    #expect(
      result.output
        == "Opened '\(link)' in scene 'main' (pid \(repl.processIdentifier)).\n",
      "\(result.output)")
    // Acknowledged only once saved: the state on disk already shows it.
    let main = try Self.mainScene(sandbox)
    #expect((main["path"] as? [[String: Any]])?.first?["name"] as? String == "Cherries")
    #expect((main["storage"] as? [String: Any])?["DetailView.selectedTab"] as? String == "photo")
    // What the link shows is shown there, as if typed.
    let received = repl.readOutput(until: "Tabs")
    #expect(received.contains("Opened '\(link)' from pid"), "\(received)")
    #expect(received.contains("Cherries\n"), "\(received)")
    // The REPL goes on from there.
    repl.send("path")
    repl.readOutput(until: "Cherries")
    repl.finishInput()
    #expect(repl.terminationStatus == 0)
    #expect(!FileManager.default.fileExists(atPath: Self.socketPath(sandbox, repl)))
  }

  /// A search link delivered to a running REPL shows its results there, as if typed, and
  /// `continue 1` works on them.
  @Test func aDeliveredSearchShowsItsResults() throws {
    let sandbox = CatalogSandbox()
    let repl = Self.replShowingMango(sandbox)
    let result = try sandbox.run(["open", "catalog://search?q=fruit"])
    #expect(result.status == 0, "\(result.errors)")
    let received = repl.readOutput(until: "Type 'continue N'")
    #expect(received.contains("Opened 'catalog://search?q=fruit' from pid"), "\(received)")
    #expect(received.contains("Cherries"), "\(received)")
    repl.send("continue 1")
    repl.readOutput(until: "Keywords")
    repl.finishInput()
  }

  @Test func theLineBeingTypedSurvivesADelivery() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox)
    pty.read(until: "main")
    pty.type("select art")
    pty.read(until: "select art")
    let result = try sandbox.run(["open", "catalog://product/Mango"])
    #expect(result.status == 0, "\(result.errors)")
    let shown = pty.read(until: "from pid")
    #expect(shown.contains("Opened 'catalog://product/Mango' from pid"), "\(shown)")
    // The line comes back, under the prompt of the scene as it is now, after what the link
    // did, shown as if typed: the product's detail.
    let after = pty.read(until: "select art")
    #expect(after.contains("Mango"), "\(after.debugDescription)")
    #expect(after.contains("Keywords"), "\(after.debugDescription)")
    // What was typed is still there, the cursor at its end.
    pty.type("ichoke\r")
    pty.read(until: "Artichoke")
    #expect(pty.quit(process) == 0)
  }

  @Test(arguments: CatalogEngine.allCases)
  func aHandoffGoesToTheProcessThatHasTheScene(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let first = sandbox.start()
    first.send("select mango")
    first.readOutput(until: "Keywords")
    let second = try sandbox.run(input: "select cherries\nhandoff main\nscenes\n")
    #expect(second.status == 0, "\(second.errors)")
    #expect(
      second.output.contains(
        "Handed off 'Show Cherries product' to scene 'main' (pid \(first.processIdentifier))."),
      "\(second.output)")
    let received = first.readOutput(until: "from scene main-2")
    #expect(received.contains("Continued 'Show Cherries product' from scene main-2, pid"))
    let main = try Self.mainScene(sandbox)
    #expect((main["path"] as? [[String: Any]])?.first?["name"] as? String == "Cherries")
    // A search result continued in the other terminal's scene goes there too.
    let third = try sandbox.run(input: "search artichoke\ncontinue 1 --scene main\n")
    #expect(third.status == 0, "\(third.errors)")
    #expect(
      third.output.contains(
        "Handed off 'Show Artichoke product' to scene 'main' (pid \(first.processIdentifier))."),
      "\(third.output)")
    first.readOutput(until: "Continued 'Show Artichoke product'")
    first.finishInput()
  }

  /// A receiver that dies before it greets the sender: the sender says so, and nothing was
  /// sent.
  @Test func aReceiverKilledDuringADeliveryLeavesTheSenderWithAClearError() throws {
    let sandbox = CatalogSandbox()
    let repl = Self.replShowingMango(sandbox)
    // Stopped, it cannot answer; the link waits for it.
    kill(repl.processIdentifier, SIGSTOP)
    let sender = sandbox.start(["open", "catalog://product/Cherries"])
    Thread.sleep(forTimeInterval: 0.5)
    repl.killHard()
    sender.waitUntilExit()
    let errors = String(
      decoding: (sender.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        ?? Data(), as: UTF8.self)
    #expect(sender.terminationStatus == 1)
    #expect(errors.contains("did not answer; nothing was sent to it"), "\(errors)")
    let name = (try Self.mainScene(sandbox)["path"] as? [[String: Any]])?.first?["name"]
    #expect(["Mango", "Cherries"].contains(name as? String))
    // Its socket is stale now: the next link is opened here, as with no catalog running.
    let next = try sandbox.run(["open", "catalog://product/Ginger"])
    #expect(next.status == 0, "\(next.errors)")
    #expect(next.output.contains("Ginger"), "\(next.output)")
    #expect(!FileManager.default.fileExists(atPath: Self.socketPath(sandbox, repl)))
  }

  /// What reaches the socket is untrusted: too long, not JSON, missing fields.
  @Test func badMessagesAreRefusedAndTheCatalogGoesOn() throws {
    let sandbox = CatalogSandbox()
    let repl = Self.replShowingMango(sandbox)
    let path = Self.socketPath(sandbox, repl)
    for (message, reason) in [
      (String(repeating: "x", count: 70_000), "longer than"),
      ("not json", "not a valid message"),
      ("{\"kind\": \"open\", \"sender\": \"x\"}", "not a valid message"),
      ("{\"kind\": \"launch\", \"sender\": \"x\", \"url\": \"catalog://products\"}", "not a valid"),
    ] {
      let reply = try Self.exchange(message + "\n", at: path)
      #expect(reply.contains("\"ok\":false") && reply.contains(reason), "\(reply)")
    }
    // A link the catalog cannot open is refused with its reason, and nothing changes.
    let bad = try sandbox.run(["open", "catalog://year/1800"])
    #expect(bad.status != 0)
    repl.send("path")
    let path2 = repl.readOutput(until: "Mango")
    #expect(path2.contains("Mango"))
    repl.finishInput()
    #expect(repl.terminationStatus == 0)
  }

  /// A well-formed message without the state directory's key is refused: only a program that
  /// reads the directory can deliver.
  @Test func aMessageWithoutTheDirectorysKeyIsRefused() throws {
    let sandbox = CatalogSandbox()
    let repl = Self.replShowingMango(sandbox)
    let reply = try Self.exchange(
      "{\"kind\": \"open\", \"sender\": \"x\", \"url\": \"catalog://product/Cherries\"}\n",
      at: Self.socketPath(sandbox, repl))
    #expect(reply.contains("\"ok\":false") && reply.contains("not a valid message"), "\(reply)")
    repl.send("path")
    #expect(!repl.readOutput(until: "Mango").contains("Cherries"))
    repl.finishInput()
  }

  /// A sandbox whose scene `main` this test process holds, recorded in its lock file with a
  /// note, as a catalog process that owns it would be.
  static func sandboxWithThisProcessOwningMain(note: String) throws -> (CatalogSandbox, FileLock) {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    let directory = try StateDirectory(creating: sandbox.stateDirectory)
    let lock = try directory.lock("locks/scene-main.lock")
    lock.record(note: note)
    return (sandbox, lock)
  }

  /// A forged owner record names a live process of this user that listens on its socket but
  /// is no catalog: it is told nothing, and what it sends is never printed raw.
  @Test func aForgedOwnerThatIsNoCatalogIsToldNothing() throws {
    let (sandbox, lock) = try Self.sandboxWithThisProcessOwningMain(note: "front /dev/pts/9")
    let path = sandbox.stateDirectory + "/\(getpid()).socket"
    let listener = try Self.listen(at: path)
    defer {
      close(listener)
      unlink(path)
    }
    let received = Mutex<[UInt8]>([])
    let fake = Thread {
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { return }
      defer { close(connection) }
      let answer = Array(
        "\u{1B}[2J\u{1B}]0;owned\u{07}{\"ok\":true,\"text\":\"\u{1B}[2J hi\"}\n".utf8)
      _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      var timeout = timeval(tv_sec: 3, tv_usec: 0)
      setsockopt(
        connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      var chunk = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        received.withLock { $0 += Array(chunk[..<count]) }
      }
    }
    fake.start()
    let result = try sandbox.run(["open", "catalog://product/Cherries"], timeout: 30)
    #expect(result.status == 1)
    #expect(result.errors.contains("is not a program of this state directory"), "\(result.errors)")
    #expect(!result.errors.contains("\u{1B}") && !result.output.contains("\u{1B}"))
    #expect(received.withLock { $0 }.isEmpty, "the fake owner was sent a message")
    withExtendedLifetime(lock) {}
  }

  /// The owner of the link's scene does not answer on a socket: the link is opened here, and
  /// the shell is told so and where.
  @Test func aLinkWhoseOwnerDoesNotAnswerIsOpenedHereAndSaysSo() throws {
    let (sandbox, lock) = try Self.sandboxWithThisProcessOwningMain(note: "front -")
    let result = try sandbox.run(["open", "catalog://product/Cherries"])
    #expect(result.status == 0, "\(result.errors)")
    #expect(
      result.errors.contains("does not answer on its socket; opening the link here instead"),
      "\(result.errors)")
    #expect(
      result.errors.contains("this run uses a scene of its own, 'main-2'"), "\(result.errors)")
    #expect(result.output.contains("Cherries"))
    withExtendedLifetime(lock) {}
  }

  /// Idle peers and one that sends a byte at a time hold up no delivery.
  @Test func idleAndSlowPeersDoNotHoldUpADelivery() throws {
    let sandbox = CatalogSandbox()
    let repl = Self.replShowingMango(sandbox)
    let path = Self.socketPath(sandbox, repl)
    var idle: [Int32] = []
    for _ in 0..<40 {
      if let descriptor = try? Self.connected(to: path) { idle.append(descriptor) }
    }
    defer { for descriptor in idle { close(descriptor) } }
    let slow = try Self.connected(to: path)
    defer { close(slow) }
    let loris = Thread {
      for byte in Array("{\"kind\": \"open\"".utf8) {
        _ = withUnsafeBytes(of: byte) { send(slow, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
        Thread.sleep(forTimeInterval: 0.5)
      }
    }
    loris.start()
    let result = try sandbox.run(["open", "catalog://product/Cherries"], timeout: 30)
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("Opened 'catalog://product/Cherries'"), "\(result.output)")
    repl.readOutput(until: "Opened 'catalog://product/Cherries'")
    repl.finishInput()
  }

  /// A listening socket at a path.
  static func listen(at path: String) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = Self.address(path)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try #require(bound == 0 && Glibc.listen(descriptor, 8) == 0)
    return descriptor
  }

  /// A socket connected to a path.
  static func connected(to path: String) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = Self.address(path)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else {
      close(descriptor)
      throw POSIXError(.ECONNREFUSED)
    }
    return descriptor
  }

  static func address(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      let bytes = Array(path.utf8)
      buffer.copyBytes(from: bytes)
      buffer[bytes.count] = 0
    }
    return address
  }

  /// Sends raw bytes to a socket and returns what comes back.
  static func exchange(_ text: String, at path: String) throws -> String {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      let bytes = Array(path.utf8)
      buffer.copyBytes(from: bytes)
      buffer[bytes.count] = 0
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try #require(connected == 0)
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let count = bytes[offset...].withUnsafeBytes {
        send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if count <= 0 { break }
      offset += count
    }
    shutdown(descriptor, Int32(SHUT_WR))
    var reply: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count <= 0 { break }
      reply += chunk[..<count]
    }
    return String(decoding: reply, as: UTF8.self)
  }
}
