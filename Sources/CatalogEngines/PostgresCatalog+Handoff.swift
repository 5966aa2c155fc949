import CatalogModel
import Foundation
import PostgreSQL
import StateRestoration
import Synchronization
import SystemSupport

extension PostgresCatalog: HandoffStorage {
  /// Itself: a catalog on a server hands activities off between machines.
  package var handoff: (any HandoffStorage)? { self }

  /// How long a handoff is kept for the other machines.
  static let handoffLifetime = "7 days"

  package func publishHandoff(_ activity: UserActivityRecord, from party: HandoffParty) throws {
    let encoded = String(decoding: try JSONEncoder().encode(activity), as: UTF8.self)
    do {
      try using { connection in
        try connection.transaction {
          let id = try connection.execute(
            "INSERT INTO \(schema).handoffs(machine, user_name, activity) VALUES ($1, $2, $3) RETURNING id",
            [party.machine, party.user, encoded]
          ).integer
          try connection.execute(
            "DELETE FROM \(schema).handoffs WHERE published < now() - interval '\(Self.handoffLifetime)'"
          )
          // Sent when the transaction commits: listeners then find the row.
          try connection.execute("SELECT pg_notify($1, $2)", [handoffChannel, String(id ?? 0)])
        }
      }
    } catch let error as PostgresError {
      throw error.isConnectionFailure
        ? CatalogError.unreachable(location: location, reason: error.message)
        : CatalogError.cannotWrite(path: location, reason: error.message)
    }
  }

  package func handoffs(for party: HandoffParty, limit: Int) throws -> [MachineHandoff] {
    do {
      return try using { try Self.handoffs(party, limit: limit, after: 0, schema: schema, $0) }
    } catch let error as PostgresError {
      throw error.isConnectionFailure
        ? CatalogError.unreachable(location: location, reason: error.message)
        : CatalogError.damaged(error.message)
    }
  }

  /// The user's handoffs from other machines with numbers past `after`, newest first.
  static func handoffs(
    _ party: HandoffParty, limit: Int, after id: Int, schema: String,
    _ connection: PostgresConnection
  ) throws -> [MachineHandoff] {
    let rows = try connection.execute(
      "SELECT id, machine, activity, extract(epoch FROM published) FROM \(schema).handoffs WHERE user_name = $1 AND machine <> $2 AND id > $3 AND published >= now() - interval '\(handoffLifetime)' ORDER BY id DESC LIMIT $4",
      [party.user, party.machine, String(id), String(max(0, limit))])
    return (0..<rows.count).compactMap { row in
      // A row another program wrote that is not an activity is passed over.
      guard let id = rows.integer(row, 0), let machine = rows.text(row, 1),
        let text = rows.text(row, 2),
        let activity = try? JSONDecoder().decode(UserActivityRecord.self, from: Data(text.utf8))
      else { return nil }
      let seconds = rows.text(row, 3).flatMap(Double.init) ?? 0
      return MachineHandoff(
        id: id, machine: machine, activity: activity,
        published: Date(timeIntervalSince1970: seconds))
    }
  }

  package func listenForHandoffs(
    for party: @autoclosure () -> HandoffParty, onArrival: @escaping @Sendable () -> Void
  ) -> (any HandoffListener)? {
    PostgresHandoffListener(
      address: address, schema: schema, channel: handoffChannel, party: party(),
      onArrival: onArrival)
  }
}

/// A connection of its own that listens for handoffs (`LISTEN`) on a thread, reads each new
/// one of the user's from another machine, and keeps it for ``take()``; it connects again when
/// the server comes back.
///
/// The thread connects, so that the first command does not wait for a second connection:
/// what is published before it listens is not announced, only listed (`activities
/// --elsewhere`), as what was published before the process started.
///
/// ``close()`` returns once the thread is out of libpq for good: the process may exit next,
/// and its exit handlers free what libpq's TLS and password hashing use on the thread.
final class PostgresHandoffListener: HandoffListener, @unchecked Sendable {
  private let pending = Mutex<[MachineHandoff]>([])
  private let stopped = Atomic<Bool>(false)
  /// A pipe whose reading end is readable once ``close()`` is called: it ends any wait of
  /// the thread, connecting included.
  private let wake: (reader: Int32, writer: Int32)
  /// Signalled as the thread ends.
  private let finished = DispatchSemaphore(value: 0)
  // Touched only by the listening thread.
  private var connection: PostgresConnection?
  private let address: PostgresAddress
  private let schema: String
  private let channel: String
  private let party: HandoffParty
  private let onArrival: @Sendable () -> Void
  private var lastSeen: Int?

  init?(
    address: PostgresAddress, schema: String, channel: String, party: HandoffParty,
    onArrival: @escaping @Sendable () -> Void
  ) {
    self.address = address
    self.schema = schema
    self.channel = channel
    self.party = party
    self.onArrival = onArrival
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { return nil }
    for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    wake = (descriptors[0], descriptors[1])
    guard detachThread({ [self] in listen() }) else { return nil }
  }

  deinit {
    Glibc.close(wake.reader)
    Glibc.close(wake.writer)
  }

  /// Connects and listens. Only what is published from the first connection on is announced
  /// (older ones are in the list); after a reconnection, what arrived meanwhile is read with
  /// the next notification.
  private func connect() -> PostgresConnection? {
    guard
      let connection = try? PostgresConnection(
        address, applicationName: "catalog handoffs", interruptedBy: wake.reader),
      (try? connection.run("LISTEN \(channel)")) != nil
    else { return nil }
    if lastSeen == nil {
      guard
        let newest = try? connection.execute(
          "SELECT coalesce(max(id), 0) FROM \(schema).handoffs")
      else { return nil }
      lastSeen = newest.integer ?? 0
    }
    return connection
  }

  func take() -> [MachineHandoff] {
    pending.withLock { waiting in
      defer { waiting = [] }
      return waiting
    }
  }

  func close() {
    guard !stopped.exchange(true, ordering: .relaxed) else { return }
    var byte: UInt8 = 1
    _ = write(wake.writer, &byte, 1)
    // A request the server does not answer is not waited for past this.
    _ = finished.wait(timeout: .now() + 2)
  }

  private func listen() {
    defer {
      connection = nil
      finished.signal()
    }
    while !stopped.load(ordering: .relaxed) {
      guard let connection = connection ?? connect(), connection.isConnected else {
        // No server, or it went away: try again every two seconds.
        self.connection = nil
        var waiting = pollfd(fd: wake.reader, events: Int16(POLLIN), revents: 0)
        _ = poll(&waiting, 1, 2000)
        continue
      }
      self.connection = connection
      var waiting = [
        pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wake.reader, events: Int16(POLLIN), revents: 0),
      ]
      guard poll(&waiting, 2, -1) > 0, waiting[1].revents == 0 else { continue }
      guard let notifications = try? connection.notifications(), !notifications.isEmpty else {
        continue
      }
      let after = lastSeen ?? 0
      guard
        let arrived = try? PostgresCatalog.handoffs(
          party, limit: 10, after: after, schema: schema, connection),
        !arrived.isEmpty
      else { continue }
      lastSeen = max(after, arrived.map(\.id).max() ?? after)
      pending.withLock { $0 += arrived.reversed() }
      onArrival()
    }
  }
}
