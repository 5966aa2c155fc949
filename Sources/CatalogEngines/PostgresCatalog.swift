import CatalogModel
import Foundation
import PostgreSQL
import StateRestoration
import Synchronization
import SystemSupport

/// The user's catalog on a PostgreSQL server, shared by every machine that names it: the same
/// rows, list numbers, change log and identity as ``CatalogDatabase``, in a schema of its own
/// (`catalog` by default), created and migrated on first use.
///
/// Writes are transactions that first take the row of the catalog's generation (`UPDATE …
/// RETURNING`), so that writers from any machine follow one another and a search index can
/// follow their changes in order; an edit reads its product `FOR UPDATE` and is merged field by
/// field with what was saved meanwhile, as on SQLite. Reads are single statements (one
/// snapshot each) or read-only `REPEATABLE READ` transactions.
///
/// A lost connection fails the request that needed it — a read answers as if the product were
/// missing and says why in ``takeReadFailure()``; a write throws
/// ``CatalogError/unreachable(location:reason:)``. Until the next ``refresh()`` connects again,
/// reads answer from the products read before (``ProductsRead``) without asking the server.
package final class PostgresCatalog: CatalogStorage, @unchecked Sendable {
  /// The oldest server this program works with: window functions over `blocks`,
  /// `ON CONFLICT`, `COPY` and `LISTEN` are older, but 12 is the oldest version still
  /// maintained when this was written.
  package static let oldestServer = 120_000

  /// The server and database.
  package let address: PostgresAddress
  /// The schema holding the catalog's tables.
  package let schema: String
  /// The name this machine's edits are noted under (`changed_by`).
  package let machine: String?
  /// The address, for messages: a URI without the password.
  package var location: String { address.description }

  // Touched only inside `lock`, which no request takes twice: one request at a time on the
  // connection.
  private let connection: PostgresConnection
  private let lock = Mutex(())
  /// What the last requests found, and the products read at its generation.
  private let shared = Mutex(Shared())
  private let skipped = SkippedRows()

  private struct Shared {
    var cached = State()
    var read = ProductsRead()
    var failures = ReadFailures()
    /// The generation whose group counts were last found to agree with its state.
    var groupsCheckedAt: Int?
  }

  private struct State {
    var generation = 0
    var count = 0
    var identity: UInt64?
    var isSeeded = false
    /// Why the server could not be reached at the last request; nil once it answers again.
    var unreachable: String?
    /// Statements of other programs that changed the products or the block counts since the
    /// blocks were last counted.
    var foreignChanges = 0
    /// The schema's version, as the state was read.
    var schemaVersion = 0
    /// The position of list number 1 when the positions run without a gap (no product was
    /// deleted but from the ends): number `n` is then at `firstPosition + n - 1`. Nil when
    /// they do not, or when another program changed the rows since the blocks were counted.
    var firstPosition: Int?
  }

  /// Connects to a catalog, creating its schema or migrating it when this program's is newer.
  ///
  /// - Parameters:
  ///   - address: The server and database.
  ///   - schema: The schema's name: letters, digits and underscores.
  ///   - machine: The name this machine's edits are noted under, which a conflict on another
  ///     machine names.
  ///   - ahead: Products to read with the catalog's state, in its request, for reads soon
  ///     after: those a launch restores, and the one a command from the shell names. Found
  ///     while the server starts the session.
  ///   - meanwhile: Work of the caller's to do while the server reads the state, once the
  ///     session has started (not done when the state is not read that way).
  /// - Throws: ``CatalogError/cannotConnect(location:reason:)`` when the server cannot be
  ///   reached, refuses the user or is too old; ``CatalogError/newerSchema(found:supported:)``
  ///   when a newer program made the catalog.
  package init(
    address: PostgresAddress, schema: String = "catalog", machine: String? = nil,
    readingAhead ahead: @autoclosure () -> CatalogReadAhead = CatalogReadAhead(),
    whileReadingState meanwhile: () -> Void = {}
  ) throws {
    guard Self.isPlainName(schema) else {
      throw CatalogError.cannotConnect(
        location: address.description,
        reason:
          "'\(schema)' is not a schema name this program uses; use lower-case letters, digits and '_'"
      )
    }
    self.address = address
    self.schema = schema
    self.machine = machine
    let opened: PostgresConnection
    var readAhead = CatalogReadAhead()
    do {
      // The session says it is this program's: its writes keep the block counts, which the
      // schema's triggers leave to it (see the migration "note other programs' changes").
      opened = try PostgresConnection(
        address, applicationName: "catalog", settings: Self.sessionSettings,
        whileConnecting: { readAhead = ahead() })
    } catch let error as PostgresError {
      throw CatalogError.cannotConnect(
        location: address.description, reason: Self.advice(for: error, address: address))
    }
    guard opened.serverVersion >= Self.oldestServer else {
      let version = opened.serverVersion
      throw CatalogError.cannotConnect(
        location: address.description,
        reason:
          "the server runs PostgreSQL \(version / 10_000).\(version % 10_000 / 100 == 0 ? version % 100 : version % 10_000 / 100); this program needs \(Self.oldestServer / 10_000) or later"
      )
    }
    connection = opened
    do {
      let (repaired, ahead) = try using { connection in
        // The state and the schema's version in one request, with the products asked for; a
        // schema missing, older or newer than this program's (or a state that cannot be read)
        // goes through the migration, which says what is wrong.
        if let (state, read) = try? readState(
          connection, readingAhead: readAhead, whileWaiting: meanwhile),
          state.schemaVersion == Self.schemaVersion
        {
          // Products read before the blocks are counted again are read again after.
          return (
            try checkedGroupCounts(repairedIfChangedElsewhere(state, connection), connection),
            state.foreignChanges == 0 ? read : []
          )
        }
        try migrate(on: connection)
        return (
          try checkedGroupCounts(
            repairedIfChangedElsewhere(try readState(connection), connection), connection),
          []
        )
      }
      shared.withLock { shared in
        shared.cached = repaired
        shared.read.forgetUnless(generation: repaired.generation)
      }
      keep(ahead, readAt: repaired.generation)
    } catch let error as PostgresError {
      throw CatalogError.cannotConnect(
        location: address.description, reason: Self.advice(for: error, address: address))
    }
  }

  /// What to tell a user about a connection that failed.
  private static func advice(for error: PostgresError, address: PostgresAddress) -> String {
    switch error.kind {
    case .unreachable, .connectionLost:
      "\(error.message); is the server running, and is the address right?"
    case .authentication:
      "\(error.message); check the user, and the password in ~/.pgpass or PGPASSWORD"
    case .tls:
      "\(error.message) (sslmode=\(address.tlsMode ?? "prefer"))"
    case .refused where error.sqlState == "3D000":
      "\(error.message); create it (createdb), or name another database in --catalog-url or CATALOG_URL"
    case .badAddress, .refused, .noClientLibrary, .interrupted:
      error.message
    }
  }

  private static func isPlainName(_ name: String) -> Bool {
    guard let first = name.utf8.first, !(0x30...0x39).contains(first), name.utf8.count <= 63
    else { return false }
    return name.utf8.allSatisfy {
      (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F
    }
  }

  // MARK: - The connection

  /// How many times the catalog waited on the server since it connected (``PostgresConnection/roundTrips``).
  package var roundTrips: Int { lock.withLock { _ in connection.roundTrips } }

  /// Runs requests on the connection, connecting again first when it was lost.
  func using<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
    try lock.withLock { _ throws in
      if !connection.isConnected { try connection.reconnect() }
      return try body(connection)
    }
  }

  /// Runs a read; a failure is kept for ``takeReadFailure()`` and the read answers nil. While
  /// the server cannot be reached, the read is not tried until the next ``refresh()``.
  private func reading<Result>(_ body: (PostgresConnection) throws -> Result) -> Result? {
    if let reason = unreachableReason {
      shared.withLock { shared in shared.failures.note(.unreachable(reason)) }
      return nil
    }
    do {
      return try usingRetryingOnce(body)
    } catch {
      noteFailure(error)
      return nil
    }
  }

  /// Runs a read; when the connection was lost — the server closed it while it sat idle (a
  /// restart, an administrator's command, a network drop) — connects again and runs it once
  /// more, so that the first command after the server came back works. Never for a write,
  /// which may have committed before its connection was lost.
  private func usingRetryingOnce<Result>(_ body: (PostgresConnection) throws -> Result) throws
    -> Result
  {
    do {
      return try using(body)
    } catch let error as PostgresError where error.kind == .connectionLost {
      return try using(body)
    }
  }

  private func noteFailure(_ error: any Error) {
    let failure: CatalogReadFailure
    var unreachable: String?
    if let error = error as? PostgresError, error.isConnectionFailure {
      failure = .unreachable(error.message)
      unreachable = error.message
    } else if let error = error as? PostgresError {
      failure = .damaged(error.message)
    } else {
      failure = .damaged(error.localizedDescription)
    }
    shared.withLock { shared in
      shared.failures.note(failure)
      if let unreachable { shared.cached.unreachable = unreachable }
    }
  }

  /// Why the server could not be reached at the last request, until it answers again.
  private var unreachableReason: String? { shared.withLock { shared in shared.cached.unreachable } }

  /// Runs a read whose products are kept: what was read at the generation the last
  /// ``refresh()`` found (the same rows, as every write raises it) answers without asking the
  /// server again; what the server answers is kept; while it cannot be reached — since an
  /// earlier request, or since this one failed — the products read before answer, and one not
  /// read before is missing (the failure kept for ``takeReadFailure()``).
  ///
  /// - Parameters:
  ///   - body: The read.
  ///   - empty: The answer of a read that failed for another reason.
  ///   - lookup: The read, from the products read before: its answer, and whether it is whole.
  ///   - keep: Keeps the server's answer.
  /// - Returns: The answer.
  private func readingKept<Result>(
    _ body: (PostgresConnection) throws -> Result, empty: Result,
    kept lookup: (ProductsRead) -> (Result, complete: Bool),
    keep: (inout ProductsRead, Result) -> Void
  ) -> Result {
    // What was read at the generation the last refresh found answers again: the same rows.
    let known: Result? = shared.withLock { shared in
      guard shared.cached.unreachable == nil, shared.read.generation == shared.cached.generation
      else { return nil }
      let (answer, complete) = lookup(shared.read)
      return complete ? answer : nil
    }
    if let known { return known }
    if unreachableReason == nil, let answer = reading(body) {
      shared.withLock { shared in keep(&shared.read, answer) }
      return answer
    }
    let kept: Result? = shared.withLock { shared in
      guard let reason = shared.cached.unreachable else { return nil }
      let (answer, complete) = lookup(shared.read)
      if !complete { shared.failures.note(.unreachable(reason)) }
      return answer
    }
    return kept ?? empty
  }

  /// Runs a write transaction; the server's errors become ``CatalogError``.
  ///
  /// The statement that takes the next generation also returns the server's identifier of
  /// the transaction (``nextGeneration(_:noting:)``). When the connection is lost once the body
  /// has run — the server may have committed and its reply been lost — a new connection asks
  /// the server what became of that transaction (``outcome(of:)``): the write then succeeds, or
  /// is reported as not saved, or, when the server cannot say, as not known.
  ///
  /// - Parameters:
  ///   - retrying: Whether a write known not to have committed (its connection lost before
  ///     `COMMIT` reached the server, or the server says so) runs once more on a new
  ///     connection; only for a body that can run again (not one that streams a file).
  ///   - body: The transaction's requests.
  /// - Returns: What the body returned, once committed.
  /// - Throws: ``CatalogError/cannotWrite(path:reason:)`` for the server's refusal,
  ///   ``CatalogError/unreachable(location:reason:)`` when it was not committed, and
  ///   ``CatalogError/outcomeUnknown(location:reason:)`` when that cannot be found out.
  private func writing<Result>(
    retrying: Bool = false, _ body: (PostgresConnection, WriteIdentity) throws -> Result
  ) throws -> Result {
    try writing(retrying: retrying, thenReadingState: false, body).result
  }

  /// Runs a write transaction (``writing(retrying:_:)``), then, when asked, the state query
  /// (``readState(_:)``) in the round trip of its `COMMIT`.
  ///
  /// - Returns: What the body returned, and the state's row: nil when the commit was found
  ///   out by asking again, or the state was not asked for.
  private func writing<Result>(
    retrying: Bool = false, thenReadingState readsState: Bool,
    _ body: (PostgresConnection, WriteIdentity) throws -> Result
  ) throws -> (result: Result, read: PostgresResult?) {
    var attemptsLeft = retrying ? 2 : 1
    while true {
      attemptsLeft -= 1
      let identity = WriteIdentity()
      var computed: Result?
      do {
        return try using { connection in
          let (result, read) = try connection.transaction(
            thenRunning: readsState ? [(stateQuery, [])] : [],
            preparingFirstAs: readsState ? Self.stateName : nil
          ) {
            let result = try body(connection, identity)
            computed = result
            return result
          }
          return (result, read.first)
        }
      } catch let error as PostgresError {
        guard error.isConnectionFailure else {
          throw CatalogError.cannotWrite(path: location, reason: error.message)
        }
        // A body that did not finish never sent `COMMIT`.
        let committed = computed == nil ? false : outcome(of: identity)
        switch committed {
        case true?: if let computed { return (computed, nil) }
        case false? where attemptsLeft > 0: continue
        case false?: break
        case nil: throw CatalogError.outcomeUnknown(location: location, reason: error.message)
        }
        throw CatalogError.unreachable(location: location, reason: error.message)
      }
    }
  }

  /// Whether a write transaction whose connection was lost committed, as the server says on a
  /// new connection: nil when it cannot be asked, or cannot tell. A transaction the server is
  /// still ending (its session has yet to see the connection gone) is asked about again, for
  /// up to about two seconds.
  ///
  /// - Parameter identity: The transaction.
  /// - Returns: true when it committed, false when it was rolled back, nil when not known.
  private func outcome(of identity: WriteIdentity) -> Bool? {
    guard let transaction = identity.transaction else { return nil }
    for attempt in 0..<100 {
      if attempt > 0 { usleep(20_000) }
      let status = try? using { connection in
        try connection.execute("SELECT txid_status($1::bigint)", [String(transaction)])
      }
      guard let status, status.count == 1 else { return nil }
      switch status.text(0, 0) {
      case "committed": return true
      case "aborted": return false
      case "in progress": continue
      default: return nil
      }
    }
    return nil
  }

  // MARK: - State

  /// Reads the generation, the count and the identity, and checks them against what the app
  /// ever writes: another program may have written any number.
  ///
  /// - Throws: ``CatalogError/damaged(_:)`` for a number the app never writes, or a
  ///   ``PostgresError``.
  private func readState(_ connection: PostgresConnection, whileWaiting meanwhile: () -> Void = {})
    throws -> State
  {
    let read = try connection.execute(
      together: [(stateQuery, [])], preparingFirstAs: Self.stateName, whileWaiting: meanwhile)
    return try state(from: read[0])
  }

  /// The name the state query is prepared under in a session: a REPL reads the state before
  /// every command, which the server then neither parses nor plans again.
  private static let stateName = "catalog_state"

  /// Reads the state as ``readState(_:)`` does, and in the same round trip the products asked
  /// for: by identifier, those found at the generation the state was read at (a write between
  /// the statements leaves none); by list number, those at their numbers' positions when the
  /// state says the positions run without a gap and nothing changed between. A row that breaks
  /// the editor's rules is left out, as every read leaves it.
  ///
  /// - Parameters:
  ///   - connection: The connection.
  ///   - ahead: The products to read.
  ///   - meanwhile: Work of the caller's to do while the server runs the request.
  /// - Returns: The state, and the products read with their list numbers where asked by number.
  /// - Throws: ``CatalogError/damaged(_:)`` for a number the app never writes, or a
  ///   ``PostgresError``.
  private func readState(
    _ connection: PostgresConnection, readingAhead ahead: CatalogReadAhead,
    whileWaiting meanwhile: () -> Void = {}
  ) throws -> (State, [(product: Product, number: Int?)]) {
    // A number is below the largest position, and so is the first position the sum reads (a
    // larger one, which no write of this program leaves, gives none): the sum cannot overflow.
    let numbers = ahead.numbers.filter { (1..<ListNumbering.largestPosition).contains($0) }
    guard !ahead.products.isEmpty || !numbers.isEmpty else {
      return (try readState(connection, whileWaiting: meanwhile), [])
    }
    // Each row says the generation and the count of other programs' changes it was read at.
    let stamp = """
      (SELECT value FROM \(schema).info WHERE key = 'generation'),
        (SELECT value FROM \(schema).info WHERE key = 'foreign_changes')
      """
    var statements = [(stateQuery, [String]())]
    if !ahead.products.isEmpty {
      statements.append(
        (
          """
          SELECT \(Self.columns), NULL, \(stamp)
          FROM \(schema).products WHERE identifier = ANY($1::text[])
          """,
          [Self.arrayLiteral(ahead.products.map(\.canonicalText))]
        ))
    }
    if !numbers.isEmpty {
      // The numbers' positions from the first position of the same snapshot, one equality
      // each (a command names one): a new session, as every command from the shell starts,
      // plans `= ANY` of a subquery over `unnest` at several times the cost of its read.
      let first = """
        (SELECT value FROM \(schema).info WHERE key = 'first_position'
            AND value BETWEEN 1 AND \(ListNumbering.largestPosition))
        """
      let positions = numbers.indices.map { "\(first) + $\($0 + 1)::bigint - 1" }
      statements.append(
        (
          """
          SELECT \(Self.columns), position, \(stamp)
          FROM \(schema).products WHERE position IN (\(positions.joined(separator: ", ")))
          """,
          numbers.map(String.init)
        ))
    }
    let results = try connection.execute(
      together: statements, preparingFirstAs: Self.stateName, whileWaiting: meanwhile)
    let state = try state(from: results[0])
    var read: [(product: Product, number: Int?)] = []
    for result in results.dropFirst() {
      for row in 0..<result.count {
        guard result.integer(row, 8) == state.generation, result.integer(row, 9) == 0,
          let product = shown(result, row)
        else { continue }
        guard let position = result.integer(row, 7) else {
          read.append((product, nil))
          continue
        }
        // At the state's generation the first position is the state's, and number `n` is at
        // `first + n - 1`, when the positions run without a gap.
        guard let first = state.firstPosition,
          case (let number, false) = position.subtractingReportingOverflow(first - 1),
          numbers.contains(number)
        else { continue }
        read.append((product, number))
      }
    }
    return (state, read)
  }

  /// The query ``readState(_:)`` runs: `info`'s rows, one table's (see the migration "keep the
  /// count and the ends of the positions").
  private var stateQuery: String { "SELECT key, value FROM \(schema).info" }

  /// The state of the rows ``stateQuery`` read, checked as ``readState(_:)`` says.
  private func state(from result: PostgresResult) throws -> State {
    var state = State()
    var (count, first, last): (Int?, Int?, Int?)
    for row in 0..<result.count {
      let value = result.integer(row, 1)
      switch result.text(row, 0) {
      case "generation": state.generation = value ?? 0
      case "count": count = value
      case "identity": state.identity = value.map { UInt64(bitPattern: Int64($0)) }
      case "seeded": state.isSeeded = value == 1
      case "first_position": first = value
      case "last_position": last = value
      case "foreign_changes": state.foreignChanges = value ?? 0
      case "schema_version": state.schemaVersion = value ?? 0
      default: break
      }
    }
    // Counts another program may have left wrong are counted again before they are checked.
    guard state.foreignChanges == 0 else { return state }
    guard state.generation >= 0 else {
      throw CatalogError.damaged("its generation, \(state.generation), is negative")
    }
    guard let first, let last, first >= 1, last < ListNumbering.largestPosition else {
      throw CatalogError.damaged(
        "its list numbers are damaged: the ends of its positions are missing or out of range")
    }
    // Each product has a position of its own, from 1: no more products than the largest.
    guard let count, count >= 0, count <= last else {
      throw CatalogError.damaged(
        "its list numbers are damaged: its count of products does not fit its positions")
    }
    state.count = count
    // Positions from 1 and below the largest (checked above): no arithmetic here overflows.
    if count > 0, last - first + 1 == count { state.firstPosition = first }
    return state
  }

  /// The state, once the group counts agree with it: where the positions have a gap, list
  /// numbers are found from the counts (``ListNumbering``), so a count out of range, or counts
  /// that do not add up to the kept number of products, are damage — which only a program that
  /// writes as this one and keeps no counts can leave (another's writes are counted again).
  /// Checked once a generation, in the request after the state's.
  ///
  /// - Throws: ``CatalogError/damaged(_:)`` when they disagree, or a ``PostgresError``.
  private func checkedGroupCounts(_ state: State, _ connection: PostgresConnection) throws
    -> State
  {
    guard state.count > 0, state.firstPosition == nil,
      shared.withLock({ $0.groupsCheckedAt }) != state.generation
    else { return state }
    let agree = try connection.execute(
      """
      SELECT count(*) FILTER (WHERE live NOT BETWEEN 0 AND \(1 << (ListNumbering.blockShift + ListNumbering.groupShift))) = 0
        AND coalesce(sum(live), 0) = $1::bigint
      FROM \(schema).block_groups
      """, [String(state.count)])
    guard agree.text(0, 0) == "t" else {
      throw CatalogError.damaged(
        "its list numbers are damaged: its block counts do not add up to its products")
    }
    shared.withLock { $0.groupsCheckedAt = state.generation }
    return state
  }

  /// The state, after counting the blocks again when another program changed the products or
  /// the counts (the migration "note other programs' changes"): in one transaction that takes the generation row first,
  /// as every write does, and gives the catalog a new identity, so that every machine's search
  /// index is built again from rows it could not follow.
  private func repairedIfChangedElsewhere(
    _ state: State, _ connection: PostgresConnection
  ) throws -> State {
    guard state.foreignChanges != 0 else { return state }
    try connection.transaction {
      _ = try nextGeneration(connection)
      // Another process may have counted them meanwhile.
      guard
        try connection.execute(
          "SELECT value FROM \(schema).info WHERE key = 'foreign_changes' FOR UPDATE"
        ).integer != 0
      else { return }
      try connection.run(
        """
        DELETE FROM \(schema).blocks;
        INSERT INTO \(schema).blocks SELECT \(ListNumbering.block(of: "position")), count(*)
          FROM \(schema).products GROUP BY 1;
        DELETE FROM \(schema).block_groups;
        INSERT INTO \(schema).block_groups \(ListNumbering.groupCounts(of: "\(schema).blocks", from: "0"));
        \(Self.countedAgain(schema))
        UPDATE \(schema).info SET value = 0 WHERE key = 'foreign_changes';
        """)
      try connection.execute(
        "UPDATE \(schema).info SET value = $1 WHERE key = 'identity'",
        [String(Int64.random(in: 1...Int64.max))])
    }
    return try readState(connection)
  }

  @discardableResult
  package func refresh(readingAhead ahead: CatalogReadAhead) throws -> Bool {
    var read: (products: [(product: Product, number: Int?)], generation: Int) = ([], 0)
    let changed = try refresh {
      try usingRetryingOnce { connection in
        let (state, products) = try readState(connection, readingAhead: ahead)
        // Products read before the blocks are counted again are read again after.
        read = (state.foreignChanges == 0 ? products : [], state.generation)
        return try checkedGroupCounts(repairedIfChangedElsewhere(state, connection), connection)
      }
    }
    keep(read.products, readAt: read.generation)
    return changed
  }

  /// Keeps products read with the state, for reads soon after, while the catalog is still at
  /// the generation they were read at.
  private func keep(_ read: [(product: Product, number: Int?)], readAt generation: Int) {
    shared.withLock { shared in
      guard shared.cached.generation == generation, shared.read.generation == generation else {
        return
      }
      for (product, number) in read { shared.read.keep(product, number: number) }
    }
  }

  /// Makes a state read the one answers come from; the server's errors become
  /// ``CatalogError``.
  ///
  /// - Parameter read: Reads the state.
  /// - Returns: Whether the generation or the count changed.
  /// - Throws: ``CatalogError/unreachable(location:reason:)`` or
  ///   ``CatalogError/damaged(_:)``.
  @discardableResult
  private func refresh(_ read: () throws -> State) throws -> Bool {
    let state: State
    do {
      state = try read()
    } catch let error as PostgresError {
      noteFailure(error)
      throw error.isConnectionFailure
        ? CatalogError.unreachable(location: location, reason: error.message)
        : CatalogError.damaged(error.message)
    }
    return shared.withLock { shared in
      defer {
        shared.cached = state
        shared.read.forgetUnless(generation: state.generation)
      }
      return shared.cached.generation != state.generation || shared.cached.count != state.count
    }
  }

  package var generation: Int { shared.withLock { shared in shared.cached.generation } }
  package var count: Int { shared.withLock { shared in shared.cached.count } }
  package var identity: UInt64? { shared.withLock { shared in shared.cached.identity } }
  package var isSeeded: Bool { shared.withLock { shared in shared.cached.isSeeded } }

  package func takeReadFailure() -> CatalogReadFailure? {
    shared.withLock { shared in shared.failures.take() }
  }

  package var failedReads: Int { shared.withLock { shared in shared.failures.count } }

  package func takeSkippedRows() -> [String] { skipped.take() }

  // MARK: - Reading products

  /// The columns a product is read from, in the order ``shown(_:_:)`` reads them.
  private static let columns =
    "identifier, name, image_name, year, price_cents, keywords, image_directory"

  /// The product of a row, when it keeps the editor's rules; a row that breaks them is left out
  /// and reported once by ``takeSkippedRows()``.
  private func shown(_ result: PostgresResult, _ row: Int) -> Product? {
    let reason: String
    if let problem = SkippedRows.sizeProblem(
      nameBytes: result.byteCount(row, 1), imageNameBytes: result.byteCount(row, 2),
      keywordBytes: result.byteCount(row, 5))
    {
      reason = problem
    } else if let product = SkippedRows.product(
      identifier: result.text(row, 0) ?? "", name: result.text(row, 1) ?? "",
      imageName: result.text(row, 2) ?? "", year: result.integer(row, 3) ?? 0,
      cents: result.integer(row, 4) ?? 0, keywords: result.text(row, 5) ?? "",
      imageDirectory: result.text(row, 6))
    {
      guard let violation = product.ruleViolation else { return product }
      reason = violation
    } else {
      reason = "its identifier is not a UUID"
    }
    let name = result.textPrefix(row, 1, bytes: 40)
    skipped.record(
      identifier: result.textPrefix(row, 0, bytes: 40),
      name: (name, name.utf8.count < result.byteCount(row, 1)), reason: reason)
    return nil
  }

  private func products(_ sql: String, _ parameters: [String?]) -> [Product] {
    reading { connection in
      let result = try connection.execute(sql, parameters)
      return (0..<result.count).compactMap { shown(result, $0) }
    } ?? []
  }

  /// An array parameter's text (`{a,b,c}`) of elements that need no quoting: numbers and
  /// identifiers.
  static func arrayLiteral(_ elements: [String]) -> String {
    "{" + elements.joined(separator: ",") + "}"
  }

  /// The SQL that gives each position of a table `p(position)` its list number: the products
  /// of the groups before its group, of the blocks of its group before its block, and those
  /// of its block up to it — counted, unless the block is full and has every position (as
  /// ``ListNumbering`` does). A position in a block with no count (damage) has none.
  ///
  /// - Parameter positions: The SQL of the table, which may have more columns.
  /// - Returns: A query of `p`'s columns and the number.
  private func numbering(of positions: String) -> String {
    let (block, blockShift, groupShift) = (
      ListNumbering.block(of: "p.position"), ListNumbering.blockShift, ListNumbering.groupShift
    )
    return """
      SELECT p.*, (SELECT coalesce(sum(live), 0) FROM \(schema).block_groups
          WHERE grp < \(block) >> \(groupShift))
        + (SELECT coalesce(sum(live), 0) FROM \(schema).blocks
          WHERE block >= \(block) >> \(groupShift) << \(groupShift) AND block < \(block))
        + CASE WHEN k.live = \(ListNumbering.blockSize) THEN p.position - (\(block) << \(blockShift))
          ELSE (SELECT count(*) FROM \(schema).products AS q
            WHERE q.position > \(block) << \(blockShift) AND q.position <= p.position) END
      FROM (\(positions)) AS p
      CROSS JOIN LATERAL (SELECT live FROM \(schema).blocks WHERE block = \(block) AND live > 0) AS k
      """
  }

  /// The list numbers of positions, in the connection's current snapshot.
  private func numbers(
    ofPositions positions: some Collection<Int>, in connection: PostgresConnection
  )
    throws -> [Int: Int]
  {
    guard !positions.isEmpty else { return [:] }
    let array = Self.arrayLiteral(positions.map(String.init))
    let result = try connection.execute(
      numbering(of: "SELECT unnest($1::bigint[]) AS position"), [array])
    var numbers: [Int: Int] = [:]
    for row in 0..<result.count {
      if let position = result.integer(row, 0), let number = result.integer(row, 1) {
        numbers[position] = number
      }
    }
    return numbers
  }

  package func product(number: Int) -> Product? {
    products(numbers: number...number).first?.product
  }

  package func product(identifier: UUID) -> Product? {
    readingKept(
      { connection in
        let result = try connection.execute(
          "SELECT \(Self.columns) FROM \(schema).products WHERE identifier = $1",
          [identifier.canonicalText])
        return result.count == 1 ? shown(result, 0) : nil
      }, empty: nil,
      kept: { read in
        let product = read.product(identifier: identifier)
        return (product, product != nil)
      },
      keep: { read, product in product.map { read.keep($0) } })
  }

  package func number(of identifier: UUID) -> Int? {
    numbers(of: [identifier])[identifier]
  }

  package func numbers(of identifiers: [UUID]) -> [UUID: Int] {
    guard !identifiers.isEmpty else { return [:] }
    let cached = shared.withLock { $0.cached }
    return readingKept(
      { connection in
        // One statement: one snapshot, one round trip.
        let keys = Self.arrayLiteral(identifiers.map(\.canonicalText))
        let positions =
          "SELECT position, identifier FROM \(schema).products WHERE identifier = ANY($1::text[])"
        var gapless: PostgresResult?
        if let first = cached.firstPosition {
          // Positions without a gap: a number is the distance from the first position, while
          // the catalog is at the generation that said so.
          let rows = try connection.execute(
            """
            SELECT p.*, p.position - $2::bigint + 1 FROM (\(positions)) AS p
            WHERE \(unchanged(since: "$3"))
            """, [keys, String(first), String(cached.generation)])
          if rows.count > 0 { gapless = rows }
        }
        let found = try gapless ?? connection.execute(numbering(of: positions), [keys])
        var numbers: [UUID: Int] = [:]
        for row in 0..<found.count {
          if let identifier = found.text(row, 1).flatMap(UUID.init(canonical:)),
            let number = found.integer(row, 2)
          {
            numbers[identifier] = number
          }
        }
        return numbers
      }, empty: [:],
      kept: { read in
        var numbers: [UUID: Int] = [:]
        for identifier in identifiers { numbers[identifier] = read.number(of: identifier) }
        return (numbers, numbers.count == Set(identifiers).count)
      },
      keep: { read, found in
        for (identifier, number) in found { read.keep(number: number, of: identifier) }
      })
  }

  package func products(numbers: ClosedRange<Int>) -> [(number: Int, product: Product)] {
    guard numbers.lowerBound >= 1 else { return [] }
    let cached = shared.withLock { $0.cached }
    return readingKept(
      { connection in
        var contiguous: PostgresResult?
        if let first = cached.firstPosition, numbers.lowerBound <= cached.count {
          // Positions without a gap at the generation the state was read: the rows from the
          // number's position, read only if the catalog is still at that generation.
          let rows = try connection.execute(
            contiguousPage,
            [
              String(first + numbers.lowerBound - 1), String(numbers.count),
              String(cached.generation),
            ])
          if rows.count > 0 { contiguous = rows }
        }
        let result =
          try contiguous
          ?? connection.execute(
            page(from: "$1::bigint", limit: "$2"),
            [String(numbers.lowerBound), String(numbers.count)])
        var page: [(number: Int, product: Product)] = []
        for row in 0..<result.count {
          if let product = shown(result, row) { page.append((numbers.lowerBound + row, product)) }
        }
        return page
      }, empty: [],
      kept: { read in
        guard numbers.count <= ProductsRead.capacity else { return ([], false) }
        let page = numbers.compactMap { number in read.product(number: number).map { (number, $0) }
        }
        return (page, page.count == numbers.count)
      },
      keep: { read, page in
        for (number, product) in page { read.keep(product, number: number) }
      })
  }

  /// The SQL of the products from a position on, in order (`$1`, at most `$2`), when the
  /// catalog is still at a generation (`$3`) and no other program changed its rows: none
  /// otherwise. The page of a list number when the positions run without a gap
  /// (``State/firstPosition``): one table and its key, where ``page(from:limit:)`` plans a
  /// query of the block counts.
  private var contiguousPage: String {
    """
    SELECT \(Self.columns), position FROM \(schema).products
    WHERE position >= $1::bigint AND \(unchanged(since: "$3"))
    ORDER BY position LIMIT $2
    """
  }

  /// The SQL condition that the catalog is still at a generation and no other program changed
  /// its rows since its blocks were counted: what a read from a state read before relies on.
  ///
  /// - Parameter generation: The SQL of the generation, a parameter.
  /// - Returns: The condition.
  private func unchanged(since generation: String) -> String {
    """
    (SELECT value FROM \(schema).info WHERE key = 'generation') = \(generation)::bigint
      AND (SELECT value FROM \(schema).info WHERE key = 'foreign_changes') = 0
    """
  }

  /// The SQL of the products from a list number on, in order: the group, then the block,
  /// whose products reach the number, and the product of the block at it — found by counting
  /// into the block, unless the block is full and has every position (as ``ListNumbering``
  /// does).
  ///
  /// - Parameters:
  ///   - first: The SQL of the first list number.
  ///   - limit: The SQL of the most products.
  /// - Returns: A query of ``columns`` and `position`.
  private func page(from first: String, limit: String) -> String {
    let (blockShift, groupShift) = (ListNumbering.blockShift, ListNumbering.groupShift)
    return """
      WITH g AS (SELECT grp, sum(live) OVER (ORDER BY grp) AS upto, live FROM \(schema).block_groups),
      h AS (SELECT grp, upto - live AS before FROM g WHERE upto >= \(first) ORDER BY grp LIMIT 1),
      b AS (SELECT block, (SELECT before FROM h) + sum(live) OVER (ORDER BY block) AS upto, live
        FROM \(schema).blocks WHERE block >= (SELECT grp FROM h) << \(groupShift)
          AND block < ((SELECT grp FROM h) + 1) << \(groupShift)),
      f AS (SELECT block, upto - live AS before, live FROM b WHERE upto >= \(first) ORDER BY block LIMIT 1),
      s AS (SELECT CASE WHEN (SELECT live FROM f) = \(ListNumbering.blockSize)
        THEN (SELECT ((block << \(blockShift)) + \(first) - before)::bigint FROM f)
        ELSE (SELECT position FROM \(schema).products WHERE position > (SELECT block << \(blockShift) FROM f)
          ORDER BY position OFFSET (SELECT \(first) - before - 1 FROM f) LIMIT 1) END AS position)
      SELECT \(Self.columns), position FROM \(schema).products
      WHERE position >= (SELECT position FROM s) ORDER BY position LIMIT \(limit)
      """
  }

  package func products(atNumbers numbers: [Int]) -> [Int: Product] {
    let wanted = Array(Set(numbers.filter { $0 >= 1 }))
    guard !wanted.isEmpty else { return [:] }
    let cached = shared.withLock { $0.cached }
    return readingKept(
      { connection in
        // One statement: one snapshot, one round trip.
        var gapless: PostgresResult?
        if let first = cached.firstPosition, wanted.allSatisfy({ $0 <= cached.count }) {
          // Positions without a gap: each number's position, while the catalog is at the
          // generation that said so (then every one of them has a product).
          let rows = try connection.execute(
            """
            SELECT \(Self.columns), position, position - $2::bigint + 1 FROM \(schema).products
            WHERE position = ANY($1::bigint[]) AND \(unchanged(since: "$3"))
            """,
            [
              Self.arrayLiteral(wanted.map { String(first + $0 - 1) }), String(first),
              String(cached.generation),
            ])
          if rows.count == wanted.count { gapless = rows }
        }
        let result =
          try gapless
          ?? connection.execute(
            """
            SELECT p.*, n.number FROM unnest($1::bigint[]) AS n(number)
            CROSS JOIN LATERAL (\(page(from: "n.number", limit: "1"))) AS p
            """, [Self.arrayLiteral(wanted.map(String.init))])
        var found: [Int: Product] = [:]
        for row in 0..<result.count {
          if let number = result.integer(row, 8), let product = shown(result, row) {
            found[number] = product
          }
        }
        return found
      }, empty: [:],
      kept: { read in
        var found: [Int: Product] = [:]
        for number in wanted { found[number] = read.product(number: number) }
        return (found, found.count == wanted.count)
      },
      keep: { read, found in
        for (number, product) in found { read.keep(product, number: number) }
      })
  }

  package func count(year: Int) -> Int {
    reading {
      try $0.execute("SELECT count(*) FROM \(schema).products WHERE year = $1", [String(year)])
        .integer
    }.flatMap { $0 } ?? 0
  }

  package func products(year: Int, offset: Int, limit: Int) -> [(number: Int, product: Product)] {
    reading { connection in
      try connection.transaction("ISOLATION LEVEL REPEATABLE READ READ ONLY") {
        let result = try connection.execute(
          "SELECT \(Self.columns), position FROM \(schema).products WHERE year = $1 ORDER BY position LIMIT $2 OFFSET $3",
          [String(year), String(max(0, limit)), String(max(0, offset))])
        var found: [(Int, Product)] = []
        for row in 0..<result.count {
          if let product = shown(result, row), let position = result.integer(row, 7) {
            found.append((position, product))
          }
        }
        let numbers = try numbers(ofPositions: found.map(\.0), in: connection)
        return found.compactMap { position, product in numbers[position].map { ($0, product) } }
      }
    } ?? []
  }

  package func products(foldedName key: String, exact: Bool, limit: Int) -> [Product] {
    exact
      ? products(
        "SELECT \(Self.columns) FROM \(schema).products WHERE folded_name = $1 ORDER BY folded_name LIMIT $2",
        [key, String(limit)])
      : products(
        "SELECT \(Self.columns) FROM \(schema).products WHERE folded_name >= $1 AND folded_name < $2 ORDER BY folded_name, position LIMIT $3",
        [key, key + "\u{10FFFF}", String(limit)])
  }

  package func lastProduct(foldedPrefix key: String) -> Product? {
    products(
      "SELECT \(Self.columns) FROM \(schema).products WHERE folded_name >= $1 AND folded_name < $2 ORDER BY folded_name DESC, position DESC LIMIT 1",
      [key, key + "\u{10FFFF}"]
    ).first
  }

  /// The machine that last edited a product (`changed_by`), when it was another one.
  package func machine(thatLastChanged identifier: UUID) -> String? {
    let machine = reading {
      try $0.execute(
        "SELECT changed_by FROM \(schema).products WHERE identifier = $1",
        [identifier.canonicalText]
      ).text(0, 0)
    }.flatMap { $0 }
    return machine == self.machine ? nil : machine
  }

  package func count(foldedPrefix key: String) -> Int {
    reading {
      try $0.execute(
        "SELECT count(*) FROM \(schema).products WHERE folded_name >= $1 AND folded_name < $2",
        [key, key + "\u{10FFFF}"]
      ).integer
    }.flatMap { $0 } ?? 0
  }

  package func names(near foldedKey: String, limit: Int) -> [String] {
    let half = String(max(1, limit / 2))
    return reading { connection in
      var names: [String] = []
      for sql in [
        "SELECT name FROM \(schema).products WHERE folded_name < $1 ORDER BY folded_name DESC LIMIT $2",
        "SELECT name FROM \(schema).products WHERE folded_name >= $1 ORDER BY folded_name LIMIT $2",
      ] {
        let result = try connection.execute(sql, [foldedKey, half])
        names += (0..<result.count).compactMap { result.text($0, 0) }
      }
      return names
    } ?? []
  }

  /// A read-only snapshot, for reads of several statements.
  private static let begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; "

  /// The cursor that reads every product in list order.
  private var cursor: String {
    "DECLARE catalog_rows NO SCROLL CURSOR FOR SELECT \(Self.columns) FROM \(schema).products ORDER BY position"
  }

  /// Each fetch of the cursor: a thousand rows, the next asked for while the body reads these.
  private static let fetch = "FETCH 1000 FROM catalog_rows"

  /// Reads every product in list order through a cursor, a thousand rows a fetch, in one
  /// read-only snapshot; the body runs between fetches, outside the lock.
  private func forEachRow(
    start: (_ generation: Int, _ count: Int) throws -> Void = { _, _ in },
    _ body: (PostgresResult, _ row: Int, _ number: Int) throws -> Void
  ) throws {
    try using { try $0.run(Self.begin + cursor) }
    defer { _ = reading { try $0.run("COMMIT") } }
    let state = try using { try readState($0) }
    try start(state.generation, state.count)
    try using { try $0.startRepeating(Self.fetch) }
    defer { try? using { $0.endRepeating() } }
    var number = 0
    while true {
      let page = try using { try $0.nextRepeated() }
      guard page.count > 0 else { return }
      for row in 0..<page.count {
        number += 1
        try body(page, row, number)
      }
    }
  }

  package func forEachNumberedProduct(_ body: (Int, Product) throws -> Void) rethrows {
    // A read that fails part way is recorded for ``takeReadFailure()``; what was read stays.
    guard reading({ try $0.run(Self.begin + cursor) }) != nil else { return }
    defer { _ = reading { try $0.run("COMMIT") } }
    guard reading({ try $0.startRepeating(Self.fetch) }) != nil else { return }
    defer { _ = reading { $0.endRepeating() } }
    var number = 0
    while let page = reading({ try $0.nextRepeated() }), page.count > 0 {
      for row in 0..<page.count {
        number += 1
        if let product = shown(page, row) { try body(number, product) }
      }
    }
  }

  package func forEachProduct(
    start: (_ generation: Int, _ count: Int) throws -> Void,
    _ body: (_ number: Int, _ product: Product) throws -> Void
  ) throws {
    try failingAsCatalog {
      try forEachRow(start: start) { page, row, number in
        if let product = shown(page, row) { try body(number, product) }
      }
    }
  }

  package func forEachRecord(_ body: (_ number: Int, ProductRecord) throws -> Void) throws {
    try failingAsCatalog {
      try forEachRow { page, row, number in
        if page.isNull(row, 6), let cents = page.integer(row, 4), let year = page.integer(row, 3),
          let bytes = ProductBytes(
            identifier: page.bytes(row, 0), name: page.bytes(row, 1),
            imageName: page.bytes(row, 2), keywords: page.bytes(row, 5), year: year, cents: cents)
        {
          try body(number, .bytes(bytes))
        } else if let product = shown(page, row) {
          try body(number, .product(product))
        }
      }
    }
  }

  package func widestNameAndPrice(width: (String) -> Int) throws -> (name: Int, cents: Int) {
    try failingAsCatalog {
      try using { connection in
        try connection.transaction("ISOLATION LEVEL REPEATABLE READ READ ONLY") {
          let limit = "char_length(name) <= \(ProductEdit.maximumNameLength)"
          let ascii = "char_length(name) = octet_length(name)"
          let plain = try connection.execute(
            "SELECT max(char_length(name)), max(price_cents) FROM \(schema).products WHERE \(limit) AND \(ascii)"
          )
          var widest = (name: plain.integer(0, 0) ?? 0, cents: plain.integer(0, 1) ?? 0)
          let other = try connection.execute(
            "SELECT name, price_cents FROM \(schema).products WHERE \(limit) AND NOT \(ascii)")
          for row in 0..<other.count {
            guard let name = other.text(row, 0),
              !name.unicodeScalars.contains(where: \.isTerminalControl)
            else { continue }
            widest.name = max(widest.name, width(name))
            widest.cents = max(widest.cents, other.integer(row, 1) ?? 0)
          }
          return widest
        }
      }
    }
  }

  /// Runs a read that throws, its server errors as ``CatalogError``.
  private func failingAsCatalog<Result>(_ body: () throws -> Result) throws -> Result {
    do {
      return try body()
    } catch let error as PostgresError {
      noteFailure(error)
      throw error.isConnectionFailure
        ? CatalogError.unreachable(location: location, reason: error.message)
        : CatalogError.damaged(error.message)
    }
  }

  /// The server keeps its own files whole (checksums, write-ahead log): there is no file for
  /// this program to check.
  package func verifyBeforeWriting() throws {}

  package func verifyInBackground() {}

  /// Nothing to leave: the server keeps nothing of this process's to fold in at exit.
  package func leaveOpenForExit() {}

  // MARK: - Changes

  package func changes(after generation: Int, limit: Int) throws -> CatalogChanges? {
    // While the server cannot be reached, an index of the generation last read is as current
    // as the products read; another is not known to be.
    let (state, unreachable) = shared.withLock { shared in
      (shared.cached, shared.cached.unreachable)
    }
    if let unreachable {
      guard generation == state.generation else {
        throw CatalogError.unreachable(location: location, reason: unreachable)
      }
      return CatalogChanges(
        generation: generation, count: state.count, deletedPositions: [], changed: [])
    }
    return try failingAsCatalog {
      try using { connection in
        try connection.transaction("ISOLATION LEVEL REPEATABLE READ READ ONLY") {
          let state = try readState(connection)
          let counts = try connection.execute(
            """
            SELECT (SELECT count(*) FROM \(schema).deletions WHERE generation > $1),
              (SELECT count(*) FROM (SELECT 1 FROM \(schema).products WHERE changed > $1 LIMIT $2) AS c)
            """, [String(generation), String(limit + 1)])
          guard (counts.integer(0, 0) ?? 0) + (counts.integer(0, 1) ?? 0) <= limit else {
            return nil
          }
          var changes = CatalogChanges(
            generation: state.generation, count: state.count, deletedPositions: [], changed: [])
          let deletions = try connection.execute(
            "SELECT position FROM \(schema).deletions WHERE generation > $1 ORDER BY id",
            [String(generation)])
          changes.deletedPositions = (0..<deletions.count).compactMap { deletions.integer($0, 0) }
          let rows = try connection.execute(
            "SELECT \(Self.columns), position FROM \(schema).products WHERE changed > $1",
            [String(generation)])
          var changed: [(position: Int, product: Product)] = []
          for row in 0..<rows.count {
            if let product = shown(rows, row), let position = rows.integer(row, 7) {
              changed.append((position, product))
            }
          }
          let numbers = try numbers(ofPositions: changed.map(\.position), in: connection)
          changes.changed = changed.compactMap { position, product in
            numbers[position].map { ($0, product) }
          }
          changes.changed.sort { $0.position < $1.position }
          return changes
        }
      }
    }
  }

  // MARK: - Writing

  /// Takes the next generation, the row every writer takes first; in a write transaction,
  /// notes the server's identifier of the transaction, by which whether it committed can be
  /// asked after a lost reply (``outcome(of:)``).
  ///
  /// - Parameters:
  ///   - connection: The connection, in a transaction.
  ///   - identity: Where a write transaction notes its identifier; nil for none.
  ///   - waiting: Work to do while the server takes the generation; none by default.
  /// - Returns: The generation.
  /// - Throws: ``PostgresError``, or what `waiting` threw.
  private func nextGeneration(
    _ connection: PostgresConnection, noting identity: WriteIdentity? = nil,
    whileWaiting waiting: WaitingWork? = nil
  ) throws -> Int {
    let taken = try connection.execute(
      together: [(nextGenerationStatement, [])], preparingFirstAs: nil,
      whileWaiting: { waiting?.run() })[0]
    try waiting?.check()
    identity?.note(taken)
    return taken.integer ?? 0
  }

  /// The statement that takes the next generation, and says the transaction's identifier.
  /// The schema's `commits` table, where earlier versions sharing the server note their writes
  /// for the same question, is not written: a new session's first statement on a table and
  /// its indexes costs the server more than the question does.
  private var nextGenerationStatement: String {
    "UPDATE \(schema).info SET value = value + 1 WHERE key = 'generation' RETURNING value, txid_current()"
  }

  package func apply(_ changes: [CatalogChange], whileWriting meanwhile: () throws -> Void)
    throws
  {
    // The state as the write left it, read in the round trip of its `COMMIT`; the caller's
    // work done while the first request waits on the server, once, whatever is tried again.
    let (saved, read) = try withoutActuallyEscaping(meanwhile) { meanwhile in
      let waiting = WaitingWork(meanwhile)
      let written = try writing(retrying: true, thenReadingState: true) { connection, identity in
        try Transaction(
          catalog: self, connection: connection, identity: identity, waiting: waiting
        ).apply(changes)
      }
      // Every write takes the generation first, with the work; were it not done, it is not
      // skipped.
      waiting.run()
      try waiting.check()
      return written
    }
    guard let read else {
      try refresh()
      return
    }
    try refresh { try using { try repairedIfChangedElsewhere(try state(from: read), $0) } }
    // When no other write came after it, the catalog is as this one left it: the products it
    // edited or added are read without asking (the view after `done` shows one).
    shared.withLock { shared in
      guard shared.cached.generation == saved.generation,
        shared.read.generation == saved.generation
      else { return }
      for product in saved.written.values { shared.read.keep(product) }
    }
  }

  /// A write transaction's steps in PostgreSQL's SQL: rows an edit or a deletion reads are
  /// taken `FOR UPDATE`; the generation row, taken first, orders the writers. A step whose
  /// result only matters if it fails is sent with the next request (``PostgresConnection/send(_:_:)``):
  /// a saved edit takes two round trips, `BEGIN` with the generation and its product, then the
  /// update with `COMMIT`.
  fileprivate struct Transaction: CatalogTransaction {
    let catalog: PostgresCatalog
    let connection: PostgresConnection
    /// The transaction's identifier, noted as it takes the next generation.
    let identity: WriteIdentity
    /// The caller's work, done while the first request (the generation's) waits on the server.
    var waiting: WaitingWork?
    var schema: String { catalog.schema }

    func nextGeneration() throws -> Int {
      try catalog.nextGeneration(connection, noting: identity, whileWaiting: waiting)
    }

    func lockedProduct(_ identifier: UUID) throws -> Product? {
      let found = try connection.execute(
        "SELECT \(PostgresCatalog.columns) FROM \(schema).products WHERE identifier = $1 FOR UPDATE",
        [identifier.canonicalText])
      return found.count == 1 ? catalog.shown(found, 0) : nil
    }

    func nextGeneration(locking identifiers: [UUID]) throws -> (
      generation: Int, products: [UUID: Product]
    ) {
      guard !identifiers.isEmpty else { return (try nextGeneration(), [:]) }
      // In one round trip (with `BEGIN`), the generation row first, as every writer takes it.
      let keys = PostgresCatalog.arrayLiteral(identifiers.map(\.canonicalText))
      let results = try connection.execute(
        together: [
          (catalog.nextGenerationStatement, []),
          (
            "SELECT \(PostgresCatalog.columns) FROM \(schema).products WHERE identifier = ANY($1::text[]) FOR UPDATE",
            [keys]
          ),
        ], preparingFirstAs: nil, whileWaiting: { waiting?.run() })
      try waiting?.check()
      identity.note(results[0])
      var products: [UUID: Product] = [:]
      for row in 0..<results[1].count {
        if let product = catalog.shown(results[1], row) { products[product.identifier] = product }
      }
      return (results[0].integer ?? 0, products)
    }

    func contains(_ identifier: UUID) throws -> Bool {
      try connection.execute(
        "SELECT 1 FROM \(schema).products WHERE identifier = $1", [identifier.canonicalText]
      ).count > 0
    }

    func largestPosition() throws -> Int {
      try connection.execute("SELECT coalesce(max(position), 0) FROM \(schema).products")
        .integer ?? 0
    }

    func insert(_ product: Product, position: Int, generation: Int) throws {
      try connection.send(
        "INSERT INTO \(schema).products(identifier, position, name, folded_name, image_name, year, price_cents, keywords, changed, image_directory) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        [product.identifier.canonicalText, String(position)]
          + catalog.values(product, generation))
    }

    func update(_ identifier: UUID, setting columns: [(name: String, value: ColumnValue)]) throws {
      // The machine is noted with every edit, for another machine's conflict to name.
      let columns = columns + [("changed_by", catalog.machine.map(ColumnValue.text) ?? .null)]
      let assignments = columns.enumerated().map { "\($1.name) = $\($0 + 2)" }
      // Sent with the transaction's next request (`COMMIT`, for an edit alone).
      try connection.send(
        "UPDATE \(schema).products SET \(assignments.joined(separator: ", ")) WHERE identifier = $1",
        [identifier.canonicalText] + columns.map(\.value.parameter))
    }

    func lockedPosition(of identifier: UUID) throws -> Int? {
      try connection.execute(
        "SELECT position FROM \(schema).products WHERE identifier = $1 FOR UPDATE",
        [identifier.canonicalText]
      ).integer
    }

    func number(ofPosition position: Int) throws -> Int? {
      try catalog.numbers(ofPositions: [position], in: connection)[position]
    }

    func deleteRow(_ identifier: UUID) throws {
      try connection.send(
        "DELETE FROM \(schema).products WHERE identifier = $1", [identifier.canonicalText])
    }

    func logDeletion(number: Int, identifier: UUID, generation: Int) throws {
      try connection.send(
        "INSERT INTO \(schema).deletions(generation, position, identifier) VALUES ($1, $2, $3)",
        [String(generation), String(number), identifier.canonicalText])
    }

    func countAdded(at position: Int) throws {
      // In its block, its group, the kept count and the kept ends (a first product is both).
      try connection.send(
        """
        WITH b AS (INSERT INTO \(schema).blocks VALUES (\(ListNumbering.block(of: "$1::bigint")), 1)
          ON CONFLICT (block) DO UPDATE SET live = blocks.live + 1 RETURNING block),
        g AS (INSERT INTO \(schema).block_groups SELECT \(ListNumbering.group(ofBlock: "block")), 1 FROM b
          ON CONFLICT (grp) DO UPDATE SET live = block_groups.live + 1)
        UPDATE \(schema).info AS i SET value = CASE
            WHEN i.key = 'count' THEN i.value + 1
            WHEN c.value <= 0 THEN $1::bigint
            WHEN i.key = 'first_position' THEN least(i.value, $1::bigint)
            ELSE greatest(i.value, $1::bigint) END
          FROM (SELECT value FROM \(schema).info WHERE key = 'count') AS c
          WHERE i.key IN ('count', 'first_position', 'last_position')
        """, [String(position)])
    }

    func countRemoved(at position: Int) throws {
      // A block that has no count (damage) takes nothing off its group or the kept count. An
      // end removed is found again in the positions' index (the row is gone by now).
      try connection.send(
        """
        WITH b AS (UPDATE \(schema).blocks SET live = live - 1
          WHERE block = \(ListNumbering.block(of: "$1::bigint")) RETURNING block),
        g AS (UPDATE \(schema).block_groups SET live = live - 1
          WHERE grp = (SELECT \(ListNumbering.group(ofBlock: "block")) FROM b))
        UPDATE \(schema).info SET value = CASE
            WHEN key = 'count' THEN value - (SELECT count(*) FROM b)
            WHEN value <> $1::bigint THEN value
            WHEN key = 'first_position' THEN (SELECT coalesce(min(position), 1) FROM \(schema).products)
            ELSE (SELECT coalesce(max(position), 0) FROM \(schema).products) END
          WHERE key IN ('count', 'first_position', 'last_position')
        """, [String(position)])
    }
  }

  /// A product's values after its identifier and position, in the `products` table's order.
  private func values(_ product: Product, _ generation: Int) -> [String?] {
    [
      product.name, product.name.folded, product.imageName, String(product.year),
      String(product.price.cents), product.keywords.joined(separator: SkippedRows.keywordSeparator),
      String(generation), product.imageDirectory,
    ]
  }

  // MARK: - Import

  package func importProducts(
    _ products: some ProductSequence, seeding: CatalogSeeding?, options: ImportOptions,
    madeIdentifiers: () -> [UUID], progress: (ImportStage) throws -> Void
  ) throws -> CatalogImportSummary {
    let summary = try writing { connection, identity in
      let generation = try nextGeneration(connection, noting: identity)
      try connection.run(
        "CREATE TEMP TABLE import_staging(record bigint NOT NULL, identifier text NOT NULL, name text NOT NULL, folded_name text COLLATE \"C\" NOT NULL, image_name text NOT NULL, year bigint NOT NULL, price_cents bigint NOT NULL, keywords text NOT NULL, changed bigint NOT NULL, image_directory text) ON COMMIT DROP"
      )
      var read = 0
      // One COPY: the records stream to the server as the file is read.
      try connection.copy("COPY import_staging FROM STDIN") { rows in
        try products.forEachProductReadAhead { product in
          read += 1
          try rows.append(
            [String(read), product.identifier.canonicalText] + values(product, generation))
          if read % 10_000 == 0 { try progress(.reading(records: read)) }
        }
      }
      try progress(.saving(records: read))
      let summary = try Transaction(catalog: self, connection: connection, identity: identity)
        .mergeStaged(
          read: read, generation: generation, seeding: seeding, options: options,
          madeIdentifiers: madeIdentifiers)
      // The merge runs on the server and cannot be stopped part way (seconds at a million
      // records): a stop asked for meanwhile is honoured before the commit, so the catalog is
      // as it was.
      try progress(.saving(records: read))
      return summary
    }
    try refresh()
    return summary
  }
}

/// Work a write does once while its first request waits on the server, whatever attempt that
/// is; what it throws is kept, to be thrown once the request is answered.
private final class WaitingWork {
  private var work: (() throws -> Void)?
  private var failure: (any Error)?

  /// Keeps work to do.
  ///
  /// - Parameter work: The work.
  init(_ work: @escaping () throws -> Void) {
    self.work = work
  }

  /// Does the work, the first time only.
  func run() {
    guard let work else { return }
    self.work = nil
    do {
      try work()
    } catch {
      failure = error
    }
  }

  /// Throws what the work threw.
  ///
  /// - Throws: The work's error, if it threw one.
  func check() throws {
    if let failure { throw failure }
  }
}

/// The server's identifier of a write transaction, noted as the transaction takes the next
/// generation: by it, whether the transaction committed is asked after its connection was lost.
private final class WriteIdentity {
  /// The transaction's identifier (`txid_current()`); nil until noted.
  private(set) var transaction: Int?

  /// Notes the identifier that the statement taking the next generation returned.
  ///
  /// - Parameter taken: That statement's result.
  func note(_ taken: PostgresResult) {
    transaction = taken.integer(0, 1)
  }
}

extension ColumnValue {
  /// The value as a PostgreSQL parameter: text, or NULL.
  var parameter: String? {
    switch self {
    case .text(let text): text
    case .integer(let integer): String(integer)
    case .null: nil
    }
  }
}

/// An import's merge in PostgreSQL's SQL: the staged records are the temporary
/// `import_staging`, each with its record's number, dropped at the commit.
extension PostgresCatalog.Transaction: ImportTransaction {
  private var products: String { "\(schema).products" }

  /// Into a catalog with no products the records need no index: a repeated identifier fails
  /// the products' primary key as they are appended (``appendNew(after:rebuildingIndexes:matched:)``),
  /// and only then is looked up to be named. Nor statistics: nothing joins them to products
  /// then, and the planner counts a table never analyzed from its size.
  func prepareStaged() throws {
    guard try hasProducts() else { return }
    try connection.run("CREATE INDEX ON import_staging(identifier); ANALYZE import_staging")
  }

  /// Whether the catalog has a product.
  private func hasProducts() throws -> Bool {
    try connection.execute("SELECT EXISTS (SELECT FROM \(products))").text(0, 0) == "t"
  }

  func matchByName(_ made: [UUID], _ policy: ImportOptions.DuplicateNames) throws {
    guard !made.isEmpty, policy != .allow else { return }
    // Names are looked up only for records without an identifier: the index is built for them.
    try connection.run(
      "CREATE INDEX ON import_staging(folded_name); CREATE TEMP TABLE import_unidentified(identifier text PRIMARY KEY) ON COMMIT DROP"
    )
    try connection.copy("COPY import_unidentified FROM STDIN") { rows in
      for identifier in Set(made) { try rows.append([identifier.canonicalText]) }
    }
    let unidentified = "s.identifier IN (SELECT identifier FROM import_unidentified)"
    for (condition, error) in policy.refusals(products: products, staging: "import_staging") {
      let found = try connection.execute(
        "SELECT count(*), min(s.name) FROM import_staging AS s WHERE \(unidentified) AND \(condition)"
      )
      if let count = found.integer, count > 0 { throw error(count, found.text(0, 1) ?? "") }
    }
    guard policy == .update else { return }
    try connection.run(
      ImportOptions.DuplicateNames.matching(
        products: products, staging: "import_staging", order: "record",
        unidentified: unidentified))
  }

  func failIfRepeated() throws {
    // Into an empty catalog, the products' primary key finds it (``prepareStaged()``).
    guard try hasProducts() else { return }
    try nameRepeated()
  }

  /// Throws ``CatalogError/repeatedIdentifier(_:record:name:)`` naming the later record of the
  /// first identifier the staged records repeat, if they repeat one.
  private func nameRepeated() throws {
    let repeated = try connection.execute(
      "SELECT s.identifier, s.record, s.name FROM import_staging AS s WHERE EXISTS (SELECT 1 FROM import_staging AS t WHERE t.identifier = s.identifier AND t.record < s.record) ORDER BY s.record LIMIT 1"
    )
    guard repeated.count == 1 else { return }
    throw CatalogError.repeatedIdentifier(
      repeated.text(0, 0) ?? "", record: repeated.integer(0, 1) ?? 0,
      name: repeated.text(0, 2) ?? "")
  }

  func leaveOutDeleted(restoring: Bool) throws -> Int {
    let deleted = "SELECT identifier FROM \(schema).deletions WHERE identifier IS NOT NULL"
    guard try connection.execute("SELECT EXISTS (\(deleted))").text(0, 0) == "t" else { return 0 }
    // Into an empty catalog the repeats are not looked for yet (``failIfRepeated()``): a
    // repeated identifier of a deleted product must not leave with the records left out.
    if !(try hasProducts()) { try nameRepeated() }
    if restoring {
      try connection.run(
        "UPDATE \(schema).deletions SET identifier = NULL WHERE identifier IN (SELECT identifier FROM import_staging)"
      )
      return 0
    }
    return try connection.execute(
      "DELETE FROM import_staging AS s WHERE identifier IN (\(deleted)) AND NOT EXISTS (SELECT 1 FROM \(products) AS p WHERE p.identifier = s.identifier)"
    ).changes
  }

  func updateChanged() throws -> Int {
    try connection.execute(
      "UPDATE \(products) AS p SET name = s.name, folded_name = s.folded_name, image_name = s.image_name, year = s.year, price_cents = s.price_cents, keywords = s.keywords, changed = s.changed, image_directory = s.image_directory FROM import_staging AS s WHERE p.identifier = s.identifier AND (p.name, p.image_name, p.year, p.price_cents, p.keywords, p.image_directory) IS DISTINCT FROM (s.name, s.image_name, s.year, s.price_cents, s.keywords, s.image_directory)"
    ).changes
  }

  func countMatched() throws -> Int {
    try connection.execute(
      "SELECT count(*) FROM import_staging AS s WHERE EXISTS (SELECT 1 FROM \(products) AS p WHERE p.identifier = s.identifier)"
    ).integer ?? 0
  }

  func removeUnstaged(generation: Int) throws -> Int {
    let lacked =
      "NOT EXISTS (SELECT 1 FROM import_staging AS s WHERE s.identifier = \(products).identifier)"
    try connection.execute(
      "INSERT INTO \(schema).deletions(generation, position, identifier) SELECT $1, 0, identifier FROM \(products) WHERE \(lacked)",
      [String(generation)])
    return try connection.execute("DELETE FROM \(products) WHERE \(lacked)").changes
  }

  func renewIdentity() throws {
    try connection.execute(
      "UPDATE \(schema).info SET value = $1 WHERE key = 'identity'",
      [String(Int64.random(in: 1...Int64.max))])
  }

  func productCount() throws -> Int {
    try connection.execute("SELECT count(*) FROM \(products)").integer ?? 0
  }

  func appendNew(after position: Int, rebuildingIndexes: Bool, matched: Int) throws {
    // The secondary indexes are built again in this transaction: a failure leaves them as
    // they were.
    if rebuildingIndexes {
      try connection.run(
        "DROP INDEX \(schema).products_folded_name, \(schema).products_year, \(schema).products_changed"
      )
    }
    try connection.run("SAVEPOINT append")
    do {
      try connection.execute(
        "INSERT INTO \(products) SELECT identifier, $1::bigint + row_number() OVER (ORDER BY record), name, folded_name, image_name, year, price_cents, keywords, changed, image_directory FROM import_staging AS s WHERE NOT EXISTS (SELECT 1 FROM \(products) AS p WHERE p.identifier = s.identifier) ORDER BY record",
        [String(position)])
    } catch let error as PostgresError where error.sqlState == "23505" {
      // A repeated identifier, in records appended to an empty catalog: named, as a bad
      // record is.
      try connection.run("ROLLBACK TO SAVEPOINT append")
      try nameRepeated()
      throw error
    }
    if rebuildingIndexes {
      try connection.run(PostgresCatalog.secondaryIndexes(schema))
      // The planner's statistics of the columns its ranges read, at once rather than when
      // autovacuum comes: without them it reads every row to find the few changed since a
      // search index was built. The text columns' take most of a whole analysis; autovacuum
      // still makes that, as a list of columns leaves the table's count of changes as it was.
      try connection.run("ANALYZE \(products)(changed, position, year)")
    }
  }

  func recountBlocks(from position: Int) throws {
    let block = String((position - 1) >> ListNumbering.blockShift)
    try connection.execute("DELETE FROM \(schema).blocks WHERE block >= $1", [block])
    try connection.execute(
      "INSERT INTO \(schema).blocks SELECT \(ListNumbering.block(of: "position")), count(*) FROM \(products) WHERE position > ($1::bigint << \(ListNumbering.blockShift)) GROUP BY 1",
      [block])
    // The first block's group is counted again whole: it may hold blocks before the first.
    let group = String(((position - 1) >> ListNumbering.blockShift) >> ListNumbering.groupShift)
    try connection.execute("DELETE FROM \(schema).block_groups WHERE grp >= $1", [group])
    try connection.execute(
      "INSERT INTO \(schema).block_groups \(ListNumbering.groupCounts(of: "\(schema).blocks", from: "$1::bigint"))",
      [group])
    try connection.run(PostgresCatalog.countedAgain(schema))
  }

  func markSeeded(_ seeding: CatalogSeeding) throws {
    try connection.run("UPDATE \(schema).info SET value = 1 WHERE key = 'seeded'")
  }
}
