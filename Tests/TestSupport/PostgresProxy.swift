import Foundation
import Synchronization

/// A TCP proxy on 127.0.0.1 between a client and the tests' PostgreSQL server that can lose a
/// reply as a network would: while ``commitRepliesToDrop`` is above 0, a client's next `COMMIT`
/// (a simple query) reaches the server, which commits it, and the connection is then cut
/// before the reply comes back; while ``commitsToCut`` is above 0, the connection is cut instead
/// of passing a `COMMIT` on, so the server rolls the transaction back. Connections without TLS
/// (`sslmode=disable&gssencmode=disable`).
package final class PostgresProxy: @unchecked Sendable {
  /// The port it listens on.
  package let port: Int
  private let serverPort: Int
  private let listener: Int32
  private let dropping = Atomic<Int>(0)
  private let cutting = Atomic<Int>(0)
  private let stopped = Atomic<Bool>(false)
  /// How many `COMMIT` replies were lost so far.
  private let dropped = Atomic<Int>(0)
  private let requested = Atomic<Int>(0)

  /// How many requests clients have sent, each a round trip: simple queries, and
  /// synchronization points (`Sync`), each ending the messages sent together before it.
  package var requests: Int { requested.load(ordering: .relaxed) }

  /// How many of the next `COMMIT`s lose their replies.
  package var commitRepliesToDrop: Int {
    get { dropping.load(ordering: .relaxed) }
    set { dropping.store(newValue, ordering: .relaxed) }
  }
  /// How many `COMMIT` replies were lost.
  package var droppedReplies: Int { dropped.load(ordering: .relaxed) }
  /// How many of the next `COMMIT`s never reach the server.
  package var commitsToCut: Int {
    get { cutting.load(ordering: .relaxed) }
    set { cutting.store(newValue, ordering: .relaxed) }
  }

  /// Listens on a free port, forwarding to a server's.
  package init(serverPort: Int) throws {
    self.serverPort = serverPort
    (listener, port) = try Self.listen(backlog: 16)
    Thread.detachNewThread { [self] in acceptConnections() }
  }

  /// A socket listening on a free port of 127.0.0.1.
  ///
  /// - Parameter backlog: How many connections the kernel takes before one is accepted.
  /// - Returns: The socket and its port.
  /// - Throws: When no socket can be bound.
  package static func listen(backlog: Int32) throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard bound, Glibc.listen(descriptor, backlog) == 0 else {
      close(descriptor)
      throw CocoaError(.fileWriteUnknown)
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
  }

  deinit {
    stopped.store(true, ordering: .relaxed)
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return address
  }

  private func acceptConnections() {
    while !stopped.load(ordering: .relaxed) {
      let client = accept(listener, nil, nil)
      guard client >= 0 else { return }
      let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = Self.loopback(port: serverPort)
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      guard connected else {
        close(client)
        close(server)
        continue
      }
      let pair = Pair(client: client, server: server)
      Thread.detachNewThread { [self] in
        forwardClient(pair)
        pair.threadEnded()
      }
      Thread.detachNewThread {
        Self.forward(from: server, to: client, pair: pair)
        pair.threadEnded()
      }
    }
  }

  /// The two sockets of one connection. Cutting it shuts both down, which ends both of its
  /// threads' reads; the descriptors are closed only when both threads have ended, so that
  /// neither reads from a number the system gave to a new connection meanwhile.
  private final class Pair: @unchecked Sendable {
    let client: Int32
    let server: Int32
    private let isClosed = Atomic<Bool>(false)
    private let threadsEnded = Atomic<Int>(0)
    /// Set when the server's replies are no longer passed on.
    let isCut = Atomic<Bool>(false)

    init(client: Int32, server: Int32) {
      (self.client, self.server) = (client, server)
    }

    func close() {
      guard !isClosed.exchange(true, ordering: .relaxed) else { return }
      shutdown(client, Int32(SHUT_RDWR))
      shutdown(server, Int32(SHUT_RDWR))
    }

    /// Called by each of its two threads as it ends.
    func threadEnded() {
      close()
      guard threadsEnded.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == 2 else {
        return
      }
      Glibc.close(client)
      Glibc.close(server)
    }
  }

  private static func forward(from source: Int32, to destination: Int32, pair: Pair) {
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
      guard count > 0, !pair.isCut.load(ordering: .relaxed) else { break }
      guard sendAll(buffer[..<count], to: destination) else { break }
    }
    pair.close()
  }

  private static func sendAll(_ bytes: ArraySlice<UInt8>, to destination: Int32) -> Bool {
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
      let sent = bytes[offset...].withUnsafeBytes {
        send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else { return false }
      offset += sent
    }
    return true
  }

  /// Passes the client's messages on one at a time: the startup message (no type byte), then
  /// typed ones; a `COMMIT` query of a transaction that wrote, when commits are cut, is not
  /// passed on and the connection is cut; when replies are dropped, it is passed on and the
  /// connection cut once the server has had time to commit it.
  private func forwardClient(_ pair: Pair) {
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var started = false
    // Whether the transaction under way wrote: only its `COMMIT` is cut or loses its reply,
    // never a read's.
    var wrote = false
    // Whether a `COMMIT` whose reply is lost was passed on, and what follows it up to the
    // synchronization point is passed on too.
    var draining = false
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(pair.client, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      pending += buffer[..<count]
      while true {
        let header = started ? 5 : 4
        guard pending.count >= header else { break }
        let lengthStart = started ? 1 : 0
        let length =
          Int(pending[lengthStart]) << 24 | Int(pending[lengthStart + 1]) << 16
          | Int(pending[lengthStart + 2]) << 8 | Int(pending[lengthStart + 3])
        let total = lengthStart + length
        guard length >= 4, pending.count >= total else { break }
        let message = Array(pending[..<total])
        pending.removeFirst(total)
        // A simple query's text; a parsed statement's after its name.
        let isQuery = started && message[0] == UInt8(ascii: "Q")
        let isParse = started && message[0] == UInt8(ascii: "P")
        let text =
          isQuery || isParse ? String(decoding: message[5...], as: UTF8.self) : ""
        let statement =
          isParse ? String(text.drop { $0 != "\0" }.dropFirst()) : text
        let isCommit =
          (isQuery || isParse)
          && statement.prefix { $0 != "\0" }.trimmingCharacters(in: .whitespaces).uppercased()
            == "COMMIT"
        let isSync = started && message[0] == UInt8(ascii: "S")
        if isQuery || isSync { requested.add(1, ordering: .relaxed) }
        started = true
        if text.contains("INSERT ") || text.contains("UPDATE ") { wrote = true }
        if isCommit, wrote, cutting.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 {
          pair.isCut.store(true, ordering: .relaxed)
          pair.close()
          return
        }
        if isCommit, wrote, dropping.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 {
          pair.isCut.store(true, ordering: .relaxed)
          dropped.add(1, ordering: .relaxed)
          // A parsed `COMMIT` runs once the synchronization point after it arrives.
          draining = isParse
          if !draining {
            _ = Self.sendAll(message[...], to: pair.server)
            // The server commits; its reply is never passed on.
            usleep(300_000)
            pair.close()
            return
          }
        }
        if draining, isSync {
          _ = Self.sendAll(message[...], to: pair.server)
          usleep(300_000)
          pair.close()
          return
        }
        if isCommit { wrote = false }
        guard Self.sendAll(message[...], to: pair.server) else {
          pair.close()
          return
        }
      }
    }
    pair.close()
  }
}

/// A socket on 127.0.0.1 that takes connections (the kernel does) and never answers.
package final class SilentServer {
  /// The port it listens on.
  package let port: Int
  private let descriptor: Int32

  /// Listens on a free port.
  package init() throws {
    (descriptor, port) = try PostgresProxy.listen(backlog: 4)
  }

  deinit { close(descriptor) }
}
