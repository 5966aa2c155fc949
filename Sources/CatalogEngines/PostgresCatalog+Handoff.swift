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
final class PostgresHandoffListener: HandoffListener, @unchecked Sendable {
  private let pending = Mutex<[MachineHandoff]>([])
  private let stopped = Atomic<Bool>(false)
  // Touched only by the listening thread.
  private var connection: PostgresConnection?
  private let address: PostgresAddress
  private let schema: String
  private let channel: String
  private let party: HandoffParty
  private let onArrival: @Sendable () -> Void
  private var lastSeen = 0

  init?(
    address: PostgresAddress, schema: String, channel: String, party: HandoffParty,
    onArrival: @escaping @Sendable () -> Void
  ) {
    self.address = address
    self.schema = schema
    self.channel = channel
    self.party = party
    self.onArrival = onArrival
    guard detachThread({ [self] in listen() }) else { return nil }
  }

  /// Connects and listens; only what is published from then on is announced (older ones are
  /// in the list).
  private func connect() -> PostgresConnection? {
    guard
      let connection = try? PostgresConnection(address, applicationName: "catalog handoffs"),
      (try? connection.run("LISTEN \(channel)")) != nil
    else { return nil }
    lastSeen =
      (try? connection.execute("SELECT coalesce(max(id), 0) FROM \(schema).handoffs"))?.integer
      ?? 0
    return connection
  }

  func take() -> [MachineHandoff] {
    pending.withLock { waiting in
      defer { waiting = [] }
      return waiting
    }
  }

  func close() {
    stopped.store(true, ordering: .relaxed)
  }

  private func listen() {
    while !stopped.load(ordering: .relaxed) {
      guard let connection = connection ?? connect() else {
        // No server yet: try again every two seconds.
        sleep(2)
        continue
      }
      self.connection = connection
      guard connection.isConnected else {
        // The server went away: try again every two seconds, and listen again.
        sleep(2)
        if (try? connection.reconnect()) != nil { _ = try? connection.run("LISTEN \(channel)") }
        continue
      }
      var waiting = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
      guard poll(&waiting, 1, 500) > 0 else { continue }
      guard let notifications = try? connection.notifications(), !notifications.isEmpty else {
        continue
      }
      guard
        let arrived = try? PostgresCatalog.handoffs(
          party, limit: 10, after: lastSeen, schema: schema, connection),
        !arrived.isEmpty
      else { continue }
      lastSeen = max(lastSeen, arrived.map(\.id).max() ?? lastSeen)
      pending.withLock { $0 += arrived.reversed() }
      onArrival()
    }
  }
}
