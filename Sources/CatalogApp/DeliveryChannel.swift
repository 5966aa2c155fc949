import StateRestoration
import Synchronization
import SystemSupport

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

/// A running program's mailbox: a Unix domain socket in the state directory, `PID.socket`,
/// through which other processes of the same user deliver links and activities — a Linux
/// stand-in for the system delivering `onOpenURL` and `onContinueUserActivity` to an app that
/// is already running.
///
/// The socket is 0600 in the 0700 state directory, and a peer of another user is refused by its
/// credentials (`SO_PEERCRED`) before anything is read. A message is one line of JSON, at most
/// ``maximumMessageSize`` bytes, read within five seconds and parsed as untrusted input; a
/// message that breaks any rule is answered with an error and dropped. A good one waits in
/// ``takePending()`` until the program has applied it and made it durable, and only then is it
/// answered (``Delivery/reply(_:)``): a sender never hears "done" for a change a crash lost.
package final class DeliveryChannel: @unchecked Sendable {
  // The listening descriptor and path are set once; the queue is behind a mutex.

  /// What one process asks of another.
  package struct Message: Codable, Sendable, Hashable {
    /// What to do.
    package enum Kind: String, Codable, Sendable, Hashable {
      /// Open a link, as if it were typed.
      case openURL = "open"
      /// Continue an activity in a scene, as Handoff does.
      case continueActivity = "continue"
    }

    /// What to do.
    package var kind: Kind
    /// The link, for ``Kind/openURL``.
    package var url: String?
    /// The activity, for ``Kind/continueActivity``.
    package var activity: UserActivityRecord?
    /// The scene it is for, if one is named.
    package var scene: SceneName?
    /// Who sends it, for the receiver's note: `scene main, pid 14739`.
    package var sender: String
    /// The state directory's delivery key (``key(in:)``), which ``deliver(_:to:in:timeout:)``
    /// fills in: a message without it is refused.
    package var key: String?

    /// Creates a message.
    package init(
      kind: Kind, url: String? = nil, activity: UserActivityRecord? = nil, scene: SceneName? = nil,
      sender: String
    ) {
      self.kind = kind
      self.url = url
      self.activity = activity
      self.scene = scene
      self.sender = sender
    }
  }

  /// The receiver's answer: whether it did what was asked, and what it did or why not.
  package struct Reply: Codable, Sendable, Hashable {
    /// Whether the message was applied and made durable.
    package var ok: Bool
    /// What happened, for the sender to show.
    package var text: String
    /// The state directory's delivery key, in the greeting a receiver sends first: it proves
    /// that the peer is a program of this state directory, not any process that listens there.
    package var key: String?

    /// Creates a reply.
    package init(ok: Bool, text: String, key: String? = nil) {
      self.ok = ok
      self.text = text
      self.key = key
    }
  }

  /// A message received and not yet answered.
  package final class Delivery: @unchecked Sendable {
    // The descriptor is answered once, under the lock.

    /// The message.
    package let message: Message
    private let connection: Mutex<Int32>

    init(message: Message, connection: Int32) {
      self.message = message
      self.connection = Mutex(connection)
    }

    /// Answers the sender and closes the connection; later calls do nothing.
    ///
    /// - Parameter reply: The answer.
    package func reply(_ reply: Reply) {
      connection.withLock { descriptor in
        guard descriptor >= 0 else { return }
        DeliveryChannel.send(reply, on: descriptor)
        Glibc.close(descriptor)
        descriptor = -1
      }
    }

    deinit {
      // Never answered (the program is leaving): the sender learns it was not applied.
      connection.withLock { descriptor in
        if descriptor >= 0 { Glibc.close(descriptor) }
      }
    }
  }

  /// The largest message accepted, in bytes.
  package static let maximumMessageSize = 65_536
  /// How long a peer has to send its whole message, in seconds.
  package static let messageDeadline = 5.0
  /// How many connections are read at once; more are refused at once, so that idle peers
  /// cannot hold up a delivery.
  package static let maximumConnections = 256
  /// The file of the delivery key in the state directory.
  package static let keyFile = "delivery.key"

  /// The socket's path.
  package let path: String
  private let listener: Int32
  /// Until ``close()``, or until the accept loop ends.
  private let isOpen = Mutex(true)
  private let pending = Mutex<[Delivery]>([])
  private let onArrival: @Sendable () -> Void
  private let directory: StateDirectory
  /// Connections being read now.
  private let reading = Mutex(0)

  /// The socket file of a process in a state directory.
  ///
  /// - Parameters:
  ///   - pid: The process.
  ///   - directory: The state directory.
  /// - Returns: The path.
  package static func socketPath(of pid: Int32, in directory: StateDirectory) -> String {
    directory.path(of: "\(pid).socket")
  }

  /// Opens this process's channel: removes the sockets of processes no longer running, binds
  /// `PID.socket`, and answers connections on a thread of its own.
  ///
  /// - Parameters:
  ///   - directory: The state directory.
  ///   - onArrival: Called on that thread when a message is waiting in ``takePending()``.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)`` when the socket cannot be
  ///   made (its path too long, say).
  package init(in directory: StateDirectory, onArrival: @escaping @Sendable () -> Void) throws {
    Self.removeStaleSockets(in: directory)
    path = Self.socketPath(of: getpid(), in: directory)
    self.onArrival = onArrival
    self.directory = directory
    _ = try Self.key(in: directory)
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else {
      throw SystemError.cannotWrite(path: path, reason: systemErrorDescription(errno))
    }
    unlink(path)
    // Made 0600 right after it is bound. The process's umask is not narrowed for it: that
    // would change the mode of whatever another thread creates meanwhile. In the moment
    // between, the 0700 state directory keeps other users out, and `SO_PEERCRED` still would.
    let bound = Self.withAddress(path) { bind(descriptor, $0, $1) }
    if bound == 0 { chmod(path, 0o600) }
    guard bound == 0, listen(descriptor, 16) == 0 else {
      let reason = bound == -2 ? "the path is too long for a socket" : systemErrorDescription(errno)
      Glibc.close(descriptor)
      unlink(path)
      throw SystemError.cannotWrite(path: path, reason: reason)
    }
    listener = descriptor
    // A thread of its own: `accept` blocks for the life of the channel.
    guard detachThread({ [self] in acceptLoop() }) else {
      Glibc.close(descriptor)
      unlink(path)
      throw SystemError.cannotWrite(path: path, reason: "cannot start a thread")
    }
  }

  /// Closes the channel and removes its socket; messages not yet answered are dropped, and
  /// their senders learn so.
  package func close() {
    // Once only: the accept loop closes the descriptor after this, and its number may then be
    // another file's, which a second `shutdown` would cut off.
    isOpen.withLock { isOpen in
      guard isOpen else { return }
      isOpen = false
      unlink(path)
      shutdown(listener, Int32(SHUT_RDWR))
    }
    pending.withLock { $0.removeAll() }
  }

  deinit {
    close()
  }

  /// Whether messages wait to be taken.
  package var hasPending: Bool {
    pending.withLock { !$0.isEmpty }
  }

  /// The messages received since the last call, oldest first. Each must be answered.
  package func takePending() -> [Delivery] {
    pending.withLock { deliveries in
      defer { deliveries.removeAll() }
      return deliveries
    }
  }

  private func acceptLoop() {
    while true {
      let connection = accept(listener, nil, nil)
      if connection < 0 {
        if errno == EINTR || errno == ECONNABORTED { continue }
        // Shut down by `close()`, or failing for good: either way the socket goes.
        let wasOpen = isOpen.withLock { isOpen in
          defer { isOpen = false }
          return isOpen
        }
        if wasOpen { unlink(path) }
        Glibc.close(listener)
        return
      }
      _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
      // Each connection is read on a thread of its own, so that a peer that sends nothing, or
      // a byte at a time, holds up no other; past the limit, refused at once.
      let admitted = reading.withLock { count in
        guard count < Self.maximumConnections else { return false }
        count += 1
        return true
      }
      guard admitted else {
        Self.send(Reply(ok: false, text: "refused: too many connections at once"), on: connection)
        Glibc.close(connection)
        continue
      }
      let started = detachThread { [self] in
        receive(on: connection)
        reading.withLock { $0 -= 1 }
      }
      if !started {
        reading.withLock { $0 -= 1 }
        Glibc.close(connection)
      }
    }
  }

  /// Reads one message from a connection: from a peer of this user that knows the state
  /// directory's key, whole within ``messageDeadline``, bounded, well-formed.
  private func receive(on connection: Int32) {
    var credentials = PeerCredentials()
    var length = socklen_t(MemoryLayout<PeerCredentials>.size)
    guard getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
      credentials.uid == getuid()
    else {
      Self.send(Reply(ok: false, text: "refused: another user"), on: connection)
      Glibc.close(connection)
      return
    }
    guard let key = try? Self.key(in: directory) else {
      Glibc.close(connection)
      return
    }
    // The greeting first: the sender checks it before it sends anything.
    Self.send(Reply(ok: true, text: "ready", key: key), on: connection)
    var message: Message
    let deadline = Self.now() + Self.messageDeadline
    switch Self.readLine(from: connection, limit: Self.maximumMessageSize, until: deadline) {
    case .line(let bytes):
      guard let decoded = try? JSONDecoder().decode(Message.self, from: Data(bytes)),
        decoded.key == key, Self.isWellFormed(decoded)
      else {
        Self.send(Reply(ok: false, text: "refused: not a valid message"), on: connection)
        Glibc.close(connection)
        return
      }
      message = decoded
      // Checked: the key goes no further than here.
      message.key = nil
    case .tooLong:
      Self.send(
        Reply(ok: false, text: "refused: longer than \(Self.maximumMessageSize) bytes"),
        on: connection)
      Glibc.close(connection)
      return
    case .failed:
      Glibc.close(connection)
      return
    }
    pending.withLock { $0.append(Delivery(message: message, connection: connection)) }
    onArrival()
  }

  /// Whether a message carries what its kind needs, and no more than a person could mean.
  static func isWellFormed(_ message: Message) -> Bool {
    guard message.sender.count <= 200 else { return false }
    switch message.kind {
    case .openURL: return message.url.map { !$0.isEmpty && $0.utf8.count <= 4096 } ?? false
    case .continueActivity: return message.activity != nil && message.scene != nil
    }
  }

  // MARK: - Sending

  /// Sends a message to a running process and waits for its answer, which comes once the
  /// receiver has applied the message and made it durable.
  ///
  /// - Parameters:
  ///   - message: The message.
  ///   - pid: The receiving process.
  ///   - directory: The state directory the two share.
  ///   - timeout: How long to wait for the answer, in seconds.
  /// - Returns: The receiver's answer.
  /// - Throws: ``DeliveryError``.
  package static func deliver(
    _ message: Message, to pid: Int32, in directory: StateDirectory, timeout: Int = 30
  ) throws(DeliveryError) -> Reply {
    let path = socketPath(of: pid, in: directory)
    guard let key = try? key(in: directory) else { throw .notListening(pid: pid) }
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw .notListening(pid: pid) }
    defer { Glibc.close(descriptor) }
    guard withAddress(path, { connect(descriptor, $0, $1) }) == 0 else {
      throw .notListening(pid: pid)
    }
    // The peer must be the process named, and greet with the directory's key, before it is
    // told anything: a lock file's record can be forged, and any process can listen.
    var credentials = PeerCredentials()
    var length = socklen_t(MemoryLayout<PeerCredentials>.size)
    guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
      credentials.pid == pid, credentials.uid == getuid()
    else { throw .notOfThisDirectory(pid: pid) }
    switch readLine(from: descriptor, limit: 4096, until: now() + messageDeadline) {
    case .line(let bytes):
      guard let greeting = try? JSONDecoder().decode(Reply.self, from: Data(bytes)) else {
        throw .notOfThisDirectory(pid: pid)
      }
      if !greeting.ok && greeting.key == nil && greeting.text.hasPrefix("refused: too many") {
        throw .noAnswer(pid: pid)
      }
      guard greeting.key == key else { throw .notOfThisDirectory(pid: pid) }
    case .tooLong:
      throw .notOfThisDirectory(pid: pid)
    case .failed:
      throw .noAnswer(pid: pid)
    }
    var message = message
    message.key = key
    let encoder = JSONEncoder()
    guard let data = try? encoder.encode(message), data.count < maximumMessageSize else {
      throw .messageTooLarge
    }
    guard writeAll(Array(data) + [0x0A], to: descriptor) else { throw .ended(pid: pid) }
    shutdown(descriptor, Int32(SHUT_WR))
    switch readLine(from: descriptor, limit: maximumMessageSize, until: now() + Double(timeout)) {
    case .line(let bytes):
      guard let reply = try? JSONDecoder().decode(Reply.self, from: Data(bytes)) else {
        throw .ended(pid: pid)
      }
      return reply
    case .tooLong, .failed:
      throw .ended(pid: pid)
    }
  }

  /// Removes the sockets of processes that are no longer running; a socket is never trusted for
  /// its name alone.
  ///
  /// - Parameter directory: The state directory.
  package static func removeStaleSockets(in directory: StateDirectory) {
    let entries = DurableFile.entries(in: directory.path)
    for entry in entries where entry.hasSuffix(".socket") {
      guard let pid = Int32(entry.dropLast(".socket".count)), pid != getpid() else { continue }
      if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory.path(of: entry)) }
    }
  }

  // MARK: - Bytes

  /// The state directory's delivery key: random, made once, kept 0600 in ``keyFile``. Only a
  /// program that reads the directory knows it; read anew at each use, so that two processes
  /// that made it at once agree on the one that stayed.
  ///
  /// - Parameter directory: The state directory.
  /// - Returns: The key.
  /// - Throws: ``SystemError`` when it can be neither read nor made.
  package static func key(in directory: StateDirectory) throws -> String {
    let path = directory.path(of: keyFile)
    if let data = try? DurableFile.read(path, limit: 256),
      let key = String(data: data, encoding: .utf8), key.utf8.count == 64
    {
      return key
    }
    var generator = SystemRandomNumberGenerator()
    let key = (0..<4).map { _ in
      let word = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - word.count) + word
    }.joined()
    try DurableFile.write(Data(key.utf8), to: path)
    return try String(data: DurableFile.read(path, limit: 256) ?? Data(), encoding: .utf8) ?? key
  }

  private enum Read { case line([UInt8]), tooLong, failed }

  /// Seconds on the monotonic clock.
  private static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// Reads up to a newline or the end, refusing more than `limit` bytes, or anything not
  /// complete by `deadline` (``now()``).
  private static func readLine(from descriptor: Int32, limit: Int, until deadline: Double) -> Read {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let remaining = deadline - now()
      guard remaining > 0 else { return .failed }
      var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let polled = poll(&ready, 1, Int32(min(remaining * 1000, 3_600_000)) + 1)
      if polled < 0 && errno == EINTR { continue }
      guard polled > 0 else { return .failed }
      let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { return .failed }
      if count == 0 { return bytes.isEmpty ? .failed : .line(bytes) }
      bytes += chunk[..<count]
      if let newline = bytes.firstIndex(of: 0x0A) { return .line(Array(bytes[..<newline])) }
      if bytes.count > limit { return .tooLong }
    }
  }

  fileprivate static func send(_ reply: Reply, on descriptor: Int32) {
    guard let data = try? JSONEncoder().encode(reply) else { return }
    _ = writeAll(Array(data) + [0x0A], to: descriptor)
  }

  private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let count = bytes[offset...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }

  /// Calls a body with a socket address for a path; -2 when the path does not fit in one.
  private static func withAddress(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
  ) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else { return -2 }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      buffer.copyBytes(from: bytes)
      buffer[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
  }
}

/// `struct ucred` of `<sys/socket.h>`, which Swift's Glibc module leaves out: what
/// `SO_PEERCRED` reports of the process at the other end of a Unix socket.
private struct PeerCredentials {
  var pid: pid_t = 0
  var uid: uid_t = 0
  var gid: gid_t = 0
}
