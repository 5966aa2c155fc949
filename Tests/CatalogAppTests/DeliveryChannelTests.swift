import Foundation
import StateRestoration
import Synchronization
import SystemSupport
import TestSupport
import Testing

@testable import CatalogApp

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
    #expect(throws: DeliveryError.notListening(pid: getpid())) {
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
