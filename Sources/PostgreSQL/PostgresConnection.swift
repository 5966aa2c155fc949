import CLibPQ
import CLibPQLoader
import SystemSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A message a server sent on a channel this connection listens to (`LISTEN`, `NOTIFY`).
package struct PostgresNotification: Sendable, Hashable {
  /// The channel.
  package var channel: String
  /// What was sent with it.
  package var payload: String

  package init(channel: String, payload: String) {
    self.channel = channel
    self.payload = payload
  }
}

/// One connection to a PostgreSQL server, through libpq: requests with parameters (sent apart
/// from the SQL, never spliced into it), transactions, `COPY … FROM STDIN`, and notifications.
///
/// Not safe to use from two threads at once; a caller that shares one keeps it behind a lock.
/// A lost connection makes each request fail with a ``PostgresError`` of kind
/// `connectionLost` until ``reconnect()`` succeeds.
package final class PostgresConnection {
  /// The server and database.
  package let address: PostgresAddress
  private var handle: OpaquePointer
  /// The requests that set a new session up.
  private let setup: String

  /// The server's version as a number (`150018` for 15.18).
  package var serverVersion: Int { Int(PQserverVersion(handle)) }
  /// Whether the connection is up, as of the last request: libpq may still call a connection
  /// good whose server closed it, so a request that found it gone marks it lost.
  package var isConnected: Bool { !isLost && PQstatus(handle) == CONNECTION_OK }
  private var isLost = false
  /// How many times this connection waited on the server: its start (however many messages
  /// authentication takes) and each request since.
  package private(set) var roundTrips = 0
  /// The statement ``startRepeating(_:)`` runs, how many of its runs are under way, whether
  /// the connection is in pipeline mode for it, and a run read early for another request.
  private var repeating: String?
  private var inFlight = 0
  private var isRepeatingInPipeline = false
  private var setAside: Swift.Result<PostgresResult, PostgresError>?
  /// Statements to send ahead of the next request, in the same round trip (``send(_:_:)``).
  private var queued: [(sql: String, parameters: [String?])] = []
  /// The statements this session prepared (``execute(together:preparingFirstAs:)``), by name;
  /// a new session, after ``reconnect()``, has none.
  private var prepared: Set<String> = []
  /// Whether libpq can send several requests before reading their results (libpq 14).
  private static let hasPipelineMode = cpq_has_pipeline_mode() == 1
  /// The connection's socket, to wait on for notifications; -1 when it is down.
  package var socket: Int32 { PQsocket(handle) }

  /// Starts loading PostgreSQL's client library on a thread of its own, for a program that
  /// will connect soon: the first connection (or address) then waits only for what is left of
  /// it, some twenty libraries to map and bind, while the program goes on meanwhile.
  package static func loadClientLibraryInBackground() {
    ClientLibrary.loadInBackground()
  }

  /// Connects.
  ///
  /// - Parameters:
  ///   - address: The server and database.
  ///   - applicationName: What the server's activity view shows.
  ///   - timeout: Seconds to wait for the server, unless the address says otherwise
  ///     (`connect_timeout`).
  ///   - settings: Settings of the session (`SET name = 'value'`), made with the connection's
  ///     first request and again on each reconnection: names and values of letters, digits,
  ///     `_` and `.`.
  ///   - interruption: A file descriptor that, once readable, gives the attempt up: the
  ///     connecting thread stops within one step of it.
  ///   - meanwhile: Work of the caller's to do while the server starts the session (a new
  ///     process on the server, authentication): called once, when the connection first
  ///     waits for the server's answer, and not at all when connecting fails before; to an
  ///     address of several hosts that nothing can give up, before connecting.
  /// - Throws: ``PostgresError``: `unreachable`, `authentication`, `tls`, `refused` (no
  ///   such database), or `interrupted`.
  package init(
    _ address: PostgresAddress, applicationName: String, timeout: Int = 5,
    settings: [(name: String, value: String)] = [], interruptedBy interruption: Int32? = nil,
    whileConnecting meanwhile: () -> Void = {}
  ) throws {
    self.address = address
    let plain = { (text: String) in
      !text.isEmpty
        && text.utf8.allSatisfy {
          (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0)
            || $0 == 0x5F || $0 == 0x2E
        }
    }
    let made = [("client_min_messages", "warning")] + settings.filter { plain($0) && plain($1) }
    // libpq reads 1 as 2.
    let timeout = address.connectTimeout.map { $0 == 1 ? 2 : $0 } ?? timeout
    // `connect_timeout` for `PQreset`, which reconnects in one blocking call.
    var keywords = ["connect_timeout", "application_name", "client_encoding"]
    var values = [String(timeout), applicationName, "UTF8"]
    if address.options == nil {
      // Made as the session starts (the startup message's `options`): no request of their own.
      keywords.append("options")
      values.append(made.map { "-c \($0)=\($1)" }.joined(separator: " "))
      setup = ""
    } else {
      // The address's own options (or PGOPTIONS) are the user's: kept, and these made after.
      setup = made.map { "SET \($0) = '\($1)'" }.joined(separator: "; ")
    }
    // The address's own settings come after the defaults, so they win.
    keywords.append("dbname")
    values.append(address.connectionString)
    handle = try Self.connect(
      keywords, values, interruptedBy: interruption, timeout: timeout,
      oneHost: !address.host.contains(","), meanwhile: meanwhile)
    roundTrips = 1
    // A failed connection is freed by deinit, which runs once every property is set.
    guard PQstatus(handle) == CONNECTION_OK else {
      throw Self.connectionError(handle, address: address)
    }
    if Self.setUp(handle, setup) { roundTrips += 1 }
  }

  deinit { PQfinish(handle) }

  /// Connects step by step (``finishConnecting(_:interruptedBy:timeout:meanwhile:)``); to an
  /// address of several hosts that no other thread can give up, in libpq's one blocking call,
  /// whose `connect_timeout` applies to each host in turn and moves on to the next, with
  /// `meanwhile` done first.
  private static func connect(
    _ keywords: [String], _ values: [String], interruptedBy interruption: Int32?, timeout: Int,
    oneHost: Bool, meanwhile: () -> Void
  ) throws -> OpaquePointer {
    let stepByStep = oneHost || interruption != nil
    if !stepByStep { meanwhile() }
    let keywordPointers = keywords.map { strdup($0) } + [nil]
    let valuePointers = values.map { strdup($0) } + [nil]
    defer {
      for pointer in keywordPointers + valuePointers { free(pointer) }
    }
    let started = keywordPointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { keywords in
      valuePointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
        // expand_dbname: the dbname value may be a whole URI or keyword string.
        stepByStep
          ? PQconnectStartParams(keywords.baseAddress, values.baseAddress, 1)
          : PQconnectdbParams(keywords.baseAddress, values.baseAddress, 1)
      }
    }
    guard let handle = started else {
      throw PostgresError(.unreachable, "out of memory for a connection")
    }
    // Notices (a table that already exists, a server shutting down as the connection is
    // made) are not printed on standard error: set before the steps of a connection under
    // way, and kept by `PQreset`.
    PQsetNoticeProcessor(handle, { _, _ in }, nil)
    guard stepByStep, PQstatus(handle) != CONNECTION_BAD else { return handle }
    do {
      try Self.finishConnecting(
        handle, interruptedBy: interruption, timeout: timeout, meanwhile: meanwhile)
      return handle
    } catch {
      PQfinish(handle)
      throw error
    }
  }

  /// Drives a connection started with `PQconnectStartParams` until it is made or fails,
  /// waiting on its socket and on `interruption`, and doing `meanwhile` the first time it
  /// waits for the server to answer. libpq's own `connect_timeout` does not apply to a
  /// connection made step by step: the deadline is `timeout` seconds from now (none when it
  /// is zero or less, as libpq's).
  private static func finishConnecting(
    _ handle: OpaquePointer, interruptedBy interruption: Int32?, timeout: Int,
    meanwhile: () -> Void
  ) throws {
    var deadline = timespec()
    clock_gettime(CLOCK_MONOTONIC, &deadline)
    deadline.tv_sec += min(timeout, Int(Int32.max))
    var waitingFor = PGRES_POLLING_WRITING
    var answerAwaited = false
    while true {
      var left: Int32 = -1
      if timeout > 0 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let milliseconds =
          (deadline.tv_sec - now.tv_sec) * 1000 + (deadline.tv_nsec - now.tv_nsec) / 1_000_000
        guard milliseconds > 0 else { throw PostgresError(.unreachable, "timeout expired") }
        left = Int32(clamping: milliseconds)
      }
      if waitingFor == PGRES_POLLING_READING, !answerAwaited {
        answerAwaited = true
        meanwhile()
        continue
      }
      var waiting = [
        pollfd(
          fd: PQsocket(handle),
          events: Int16(waitingFor == PGRES_POLLING_READING ? POLLIN : POLLOUT), revents: 0),
        pollfd(fd: interruption ?? -1, events: Int16(POLLIN), revents: 0),
      ]
      guard poll(&waiting, 2, left) >= 0 || errno == EINTR else {
        throw PostgresError(.unreachable, String(cString: strerror(errno)))
      }
      if waiting[1].revents != 0 {
        throw PostgresError(.interrupted, "the connection was given up")
      }
      guard waiting[0].revents != 0 else { continue }
      waitingFor = PQconnectPoll(handle)
      if waitingFor == PGRES_POLLING_OK { return }
      // Failed: the caller reads libpq's message from the handle.
      if waitingFor == PGRES_POLLING_FAILED { return }
    }
  }

  /// Sets the session up: the settings not made as it started are made, in one request.
  ///
  /// - Returns: Whether that took a request.
  @discardableResult
  private static func setUp(_ handle: OpaquePointer, _ setup: String) -> Bool {
    guard !setup.isEmpty else { return false }
    if let result = PQexec(handle, setup) { PQclear(result) }
    return true
  }

  /// What a failed connection says, as an error of the right kind, without the password.
  private static func connectionError(_ handle: OpaquePointer, address: PostgresAddress)
    -> PostgresError
  {
    let message = PostgresAddress.redacting(
      String(cString: PQerrorMessage(handle)), passwordsOf: address.connectionString)
    let line = PostgresError.oneLine(message)
    let lowered = message.lowercased()
    if lowered.contains("password authentication failed")
      || lowered.contains("no password supplied")
      || lowered.contains("authentication failed") || lowered.contains("pg_hba.conf")
      || (lowered.contains("role") && lowered.contains("does not exist"))
    {
      return PostgresError(.authentication, line)
    }
    if lowered.contains("ssl") || lowered.contains("certificate") {
      return PostgresError(.tls, line)
    }
    if lowered.contains("database") && lowered.contains("does not exist") {
      return PostgresError(.refused, line, sqlState: "3D000")
    }
    return PostgresError(.unreachable, line)
  }

  /// Connects again after the connection was lost.
  ///
  /// - Throws: ``PostgresError`` when the server still cannot be reached.
  package func reconnect() throws {
    queued.removeAll()
    prepared.removeAll()
    (repeating, inFlight, isRepeatingInPipeline, setAside) = (nil, 0, false, nil)
    PQreset(handle)
    roundTrips += 1
    isLost = false
    guard PQstatus(handle) == CONNECTION_OK else {
      throw Self.connectionError(handle, address: address)
    }
    if Self.setUp(handle, setup) { roundTrips += 1 }
  }

  /// Runs one statement with parameters, sent as text apart from the SQL (`$1`, `$2`, …).
  ///
  /// - Parameters:
  ///   - sql: The statement.
  ///   - parameters: Its parameters; nil is SQL NULL.
  /// - Returns: The rows.
  /// - Throws: ``PostgresError``.
  @discardableResult
  package func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
    setRepeatingAside()
    guard queued.isEmpty else {
      let statements = queued + [(sql, parameters)]
      queued.removeAll()
      return try pipelined(statements)[statements.count - 1]
    }
    roundTrips += 1
    return try withParameters(parameters) { values in
      try checked(PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0))
    }
  }

  /// Runs statements in one round trip (libpq's pipeline mode; one after another without it),
  /// after those queued by ``send(_:_:)``.
  ///
  /// - Parameter statements: Each statement and its parameters.
  /// - Returns: Each statement's rows.
  /// - Throws: ``PostgresError``: the first failure; the server skipped what came after it.
  package func execute(together statements: [(sql: String, parameters: [String?])]) throws
    -> [PostgresResult]
  {
    try execute(together: statements, preparingFirstAs: nil)
  }

  /// Runs statements in one round trip (as ``execute(together:)`` does), the first prepared
  /// in the session under a name: parsed and planned by the server the first time, in the same
  /// round trip, then run by name, its plan kept for the session. Without pipeline mode, every
  /// statement runs as ``execute(_:_:)`` runs it.
  ///
  /// - Parameters:
  ///   - statements: Each statement and its parameters.
  ///   - name: The name the first statement is prepared under; always the same statement's.
  ///   - meanwhile: Work of the caller's to do once the statements are sent, while the server
  ///     runs them.
  /// - Returns: Each statement's rows.
  /// - Throws: ``PostgresError``: the first failure; the server skipped what came after it.
  package func execute(
    together statements: [(sql: String, parameters: [String?])], preparingFirstAs name: String?,
    whileWaiting meanwhile: () -> Void = {}
  ) throws -> [PostgresResult] {
    guard Self.hasPipelineMode else {
      meanwhile()
      return try statements.map { try execute($0.sql, $0.parameters) }
    }
    let sent = queued + statements
    let preparing = statements.isEmpty ? nil : name.map { (index: queued.count, name: $0) }
    queued.removeAll()
    let results = try pipelinedEach(sent, preparing: preparing, meanwhile: meanwhile).map {
      try $0.get()
    }
    return Array(results.suffix(statements.count))
  }

  /// Starts running a statement without parameters again and again — `FETCH` from a cursor —
  /// each run sent before the rows of the last are read (libpq's pipeline mode), so that the
  /// server makes a page while the caller uses the one before: ``nextRepeated()`` gives each
  /// run's rows, ``endRepeating()`` ends it. Another request meanwhile first reads the run under
  /// way, kept for the next ``nextRepeated()``.
  ///
  /// - Parameter sql: The statement.
  /// - Throws: ``PostgresError``.
  package func startRepeating(_ sql: String) throws {
    endRepeating()
    try sendQueued()
    repeating = sql
    guard Self.hasPipelineMode else { return }
    try sendRepeated()
  }

  /// The rows of the next run of the statement ``startRepeating(_:)`` started; the run after it
  /// is sent first, unless this one has no rows.
  ///
  /// - Returns: The rows; none once the statement gives none.
  /// - Throws: ``PostgresError``.
  package func nextRepeated() throws -> PostgresResult {
    guard let sql = repeating else { throw PostgresError(.refused, "nothing is repeating") }
    guard Self.hasPipelineMode else { return try execute(sql) }
    let page: PostgresResult
    if let early = setAside {
      setAside = nil
      page = try early.get()
    } else {
      if inFlight == 0 { try sendRepeated() }
      page = try receivedRepeated()
    }
    if page.count > 0 { try sendRepeated() }
    return page
  }

  /// Ends what ``startRepeating(_:)`` started: a run still under way is read and dropped, and the
  /// connection takes single requests again.
  package func endRepeating() {
    guard repeating != nil else { return }
    repeating = nil
    setAside = nil
    while inFlight > 0, !isLost { _ = try? receivedRepeated() }
    inFlight = 0
    leaveRepeatingPipeline()
  }

  /// Before another request: the run under way is read and kept for ``nextRepeated()``, and the
  /// connection leaves pipeline mode.
  private func setRepeatingAside() {
    guard isRepeatingInPipeline else { return }
    if inFlight > 0, !isLost {
      do {
        setAside = .success(try receivedRepeated())
      } catch let error as PostgresError {
        setAside = .failure(error)
      } catch {
        setAside = .failure(PostgresError(.refused, "\(error)"))
      }
    }
    leaveRepeatingPipeline()
  }

  private func leaveRepeatingPipeline() {
    guard isRepeatingInPipeline else { return }
    isRepeatingInPipeline = false
    if !isLost, PQexitPipelineMode(handle) != 1 { isLost = true }
  }

  /// Sends the next run (in pipeline mode, entered again if another request left it).
  private func sendRepeated() throws {
    if !isRepeatingInPipeline {
      guard PQenterPipelineMode(handle) == 1 else { throw lostOrFailed(nil) }
      isRepeatingInPipeline = true
    }
    guard let sql = repeating,
      PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0) == 1, PQpipelineSync(handle) == 1
    else {
      isLost = true
      throw lostOrFailed(nil)
    }
    roundTrips += 1
    inFlight += 1
  }

  /// The rows of the run under way, then the end of its results and its synchronization point.
  private func receivedRepeated() throws -> PostgresResult {
    inFlight -= 1
    let result = PQgetResult(handle)
    if result != nil {
      while let extra = PQgetResult(handle) { PQclear(extra) }
      if let sync = PQgetResult(handle) { PQclear(sync) }
    }
    return try checked(result)
  }

  /// Queues a statement whose result matters only if it fails, to be sent with the next
  /// request, in the same round trip (libpq's pipeline mode); its failure is that request's.
  /// Without pipeline mode, it runs at once.
  ///
  /// - Parameters:
  ///   - sql: The statement.
  ///   - parameters: Its parameters; nil is SQL NULL.
  /// - Throws: ``PostgresError`` when it ran at once and failed.
  package func send(_ sql: String, _ parameters: [String?] = []) throws {
    guard Self.hasPipelineMode else {
      try execute(sql, parameters)
      return
    }
    queued.append((sql, parameters))
  }

  /// Runs statements without parameters, several separated by semicolons, in one request.
  ///
  /// - Throws: ``PostgresError``.
  package func run(_ sql: String) throws {
    setRepeatingAside()
    try sendQueued()
    roundTrips += 1
    _ = try checked(PQexec(handle, sql))
  }

  /// Calls a body with parameters as C strings.
  private func withParameters<Result>(
    _ parameters: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws -> Result
  ) rethrows -> Result {
    let pointers = parameters.map { $0.map { strdup($0) } ?? nil }
    defer { for pointer in pointers { free(pointer) } }
    return try pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
      try body(values.baseAddress)
    }
  }

  /// Sends the queued statements, if any, and reads their results.
  private func sendQueued() throws {
    guard !queued.isEmpty else { return }
    let statements = queued
    queued.removeAll()
    _ = try pipelined(statements)
  }

  /// Sends statements one after another without waiting, then a synchronization point, and
  /// reads their results: one round trip. After a statement fails the server skips the rest
  /// (inside a transaction, which is then aborted).
  ///
  /// - Returns: Each statement's result.
  /// - Throws: The first failure.
  private func pipelined(_ statements: [(sql: String, parameters: [String?])]) throws
    -> [PostgresResult]
  {
    try pipelinedEach(statements, preparing: nil).map { try $0.get() }
  }

  /// Sends statements as ``pipelined(_:)`` does, one of them run as prepared in the session
  /// under a name (prepared first, in the same round trip, unless it was before), and gives
  /// each statement's outcome as ``pipelinedEach(_:)`` does.
  ///
  /// - Parameters:
  ///   - statements: The statements.
  ///   - preparing: The statement to run prepared, by its index, and its name; nil for none.
  ///   - meanwhile: Work of the caller's to do once they are sent.
  /// - Returns: Each statement's outcome.
  /// - Throws: ``PostgresError`` when the connection is lost before everything is sent.
  private func pipelinedEach(
    _ statements: [(sql: String, parameters: [String?])], preparing: (index: Int, name: String)?,
    meanwhile: () -> Void = {}
  ) throws -> [Swift.Result<PostgresResult, PostgresError>] {
    var requests: [Request] = []
    // Where each statement's own result is among the requests'.
    var results: [Int] = []
    for (index, statement) in statements.enumerated() {
      if let preparing, preparing.index == index {
        if !prepared.contains(preparing.name) {
          requests.append(.prepare(preparing.name, statement.sql))
        }
        requests.append(.prepared(preparing.name, statement.parameters))
      } else {
        requests.append(.statement(statement.sql, statement.parameters))
      }
      results.append(requests.count - 1)
    }
    let outcomes = try pipelinedEach(requests, meanwhile: meanwhile)
    for (request, outcome) in zip(requests, outcomes) {
      if case .prepare(let name, _) = request, case .success = outcome { prepared.insert(name) }
    }
    return results.map { outcomes[$0] }
  }

  /// A request of a pipeline.
  private enum Request {
    /// A statement and its parameters.
    case statement(String, [String?])
    /// Preparing a statement under a name, for the session.
    case prepare(String, String)
    /// Running the statement prepared under a name, with parameters.
    case prepared(String, [String?])
  }

  /// Sends requests as ``pipelined(_:)`` does, and gives each one's outcome: a request the
  /// server skipped after a failure, or whose result never came, has that failure.
  private func pipelinedEach(_ requests: [Request], meanwhile: () -> Void = {}) throws
    -> [Swift.Result<PostgresResult, PostgresError>]
  {
    setRepeatingAside()
    guard PQenterPipelineMode(handle) == 1 else { throw lostOrFailed(nil) }
    for request in requests {
      let sent: Int32
      switch request {
      case .statement(let sql, let parameters):
        sent = withParameters(parameters) { values in
          PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
      case .prepare(let name, let sql):
        sent = PQsendPrepare(handle, name, sql, 0, nil)
      case .prepared(let name, let parameters):
        sent = withParameters(parameters) { values in
          PQsendQueryPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
        }
      }
      guard sent == 1 else {
        // Nothing more can be sent, nor read in order: the connection is unusable.
        isLost = true
        throw lostOrFailed(nil)
      }
    }
    guard PQpipelineSync(handle) == 1 else {
      isLost = true
      throw lostOrFailed(nil)
    }
    roundTrips += 1
    meanwhile()
    var failure: PostgresError?
    var outcomes: [Swift.Result<PostgresResult, PostgresError>] = []
    for _ in requests {
      if let failure, failure.kind == .connectionLost {
        outcomes.append(.failure(failure))
        continue
      }
      // A statement's result, then nil to end it.
      let result = PQgetResult(handle)
      if result != nil {
        while let extra = PQgetResult(handle) { PQclear(extra) }
      }
      if let result, PQresultStatus(result) == PGRES_PIPELINE_ABORTED, let failure {
        PQclear(result)
        outcomes.append(.failure(failure))
        continue
      }
      do {
        outcomes.append(.success(try checked(result)))
      } catch let error as PostgresError {
        failure = failure ?? error
        outcomes.append(.failure(error))
      }
    }
    if !isLost {
      // The synchronization point's result; then the connection takes single requests again.
      if let sync = PQgetResult(handle) { PQclear(sync) }
      if PQexitPipelineMode(handle) != 1 { isLost = true }
    }
    return outcomes
  }

  /// Runs a body in a transaction, committed when it returns and rolled back when it throws.
  ///
  /// - Parameters:
  ///   - mode: What follows `BEGIN`: `ISOLATION LEVEL REPEATABLE READ`, say.
  ///   - body: The work.
  /// - Returns: What the body returns.
  /// - Throws: ``PostgresError``, or what the body throws.
  @discardableResult
  package func transaction<Result>(_ mode: String = "", _ body: () throws -> Result) throws
    -> Result
  {
    try transaction(mode, thenRunning: [], body).result
  }

  /// Runs a body in a transaction (``transaction(_:_:)``), then statements in the round trip
  /// of its `COMMIT`, each in a transaction of its own: what the caller reads once it
  /// committed, without a request of its own.
  ///
  /// - Parameters:
  ///   - mode: What follows `BEGIN`.
  ///   - statements: The statements to run after `COMMIT`; skipped when it fails.
  ///   - name: The name the first of them is prepared under in the session, as
  ///     ``execute(together:preparingFirstAs:)`` prepares it; nil to prepare none.
  ///   - body: The work.
  /// - Returns: What the body returns, and each statement's rows.
  /// - Throws: ``PostgresError``, or what the body throws.
  package func transaction<Result>(
    _ mode: String = "", thenRunning statements: [(sql: String, parameters: [String?])],
    preparingFirstAs name: String? = nil, _ body: () throws -> Result
  ) throws -> (result: Result, read: [PostgresResult]) {
    // Sent with the body's first request, and its last with `COMMIT`.
    let start = queued.count
    try send(mode.isEmpty ? "BEGIN" : "BEGIN " + mode)
    let result: Result
    do {
      result = try body()
    } catch {
      if queued.count > start {
        // Nothing of the transaction reached the server.
        queued.removeSubrange(start...)
      } else if isConnected {
        try? run("ROLLBACK")
      }
      throw error
    }
    // What the body left queued, `COMMIT`, then the statements: what fails after `COMMIT`
    // succeeded leaves nothing to read, and the transaction committed.
    let sent = queued + [("COMMIT", [])] + statements
    queued.removeAll()
    let outcomes: [Swift.Result<PostgresResult, PostgresError>]
    do {
      outcomes =
        Self.hasPipelineMode
        ? try pipelinedEach(
          sent,
          preparing: statements.isEmpty
            ? nil : name.map { (index: sent.count - statements.count, name: $0) })
        : [.success(try execute("COMMIT"))]
          + statements.map { statement in
            Swift.Result { try execute(statement.sql, statement.parameters) }
              .mapError { $0 as? PostgresError ?? PostgresError(.refused, "\($0)") }
          }
      for outcome in outcomes.prefix(sent.count - statements.count) { _ = try outcome.get() }
    } catch {
      // A statement sent with it failed, leaving the transaction aborted.
      if isConnected { try? run("ROLLBACK") }
      throw error
    }
    let read = outcomes.suffix(statements.count).compactMap { try? $0.get() }
    return (result, read.count == statements.count ? read : [])
  }

  /// Sends rows with `COPY … FROM STDIN` (text format): the fastest way into a table.
  ///
  /// - Parameters:
  ///   - sql: The `COPY` statement.
  ///   - body: Writes the rows; what it throws ends the copy, which the server then discards.
  /// - Returns: The number of rows copied.
  /// - Throws: ``PostgresError``, or what the body throws.
  @discardableResult
  package func copy(_ sql: String, _ body: (inout PostgresCopyRows) throws -> Void) throws -> Int {
    try sendQueued()
    setRepeatingAside()
    guard let started = PQexec(handle, sql) else { throw lostOrFailed(nil) }
    guard PQresultStatus(started) == PGRES_COPY_IN else { return try checked(started).changes }
    PQclear(started)
    var rows = PostgresCopyRows(connection: handle)
    do {
      try body(&rows)
      try rows.flush()
    } catch {
      PQputCopyEnd(handle, "stopped by the client")
      while let result = PQgetResult(handle) { PQclear(result) }
      throw error
    }
    guard PQputCopyEnd(handle, nil) == 1 else { throw lostOrFailed(nil) }
    var copied = 0
    var failure: (any Error)?
    while let result = PQgetResult(handle) {
      do {
        copied = try checked(result).changes
      } catch {
        failure = failure ?? error
      }
    }
    if let failure { throw failure }
    return copied
  }

  /// The notifications received since the last call, reading what has arrived on the socket
  /// without waiting.
  ///
  /// - Throws: ``PostgresError`` of kind `connectionLost` when the connection is gone.
  package func notifications() throws -> [PostgresNotification] {
    setRepeatingAside()
    guard PQconsumeInput(handle) == 1 else { throw lostOrFailed(nil) }
    var received: [PostgresNotification] = []
    while let notification = PQnotifies(handle) {
      received.append(
        PostgresNotification(
          channel: String(cString: notification.pointee.relname),
          payload: String(cString: notification.pointee.extra)))
      PQfreemem(notification)
    }
    return received
  }

  /// A result, or the error it carries.
  private func checked(_ result: OpaquePointer?) throws -> PostgresResult {
    guard let result else { throw lostOrFailed(nil) }
    switch PQresultStatus(result) {
    case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_COPY_OUT, PGRES_COPY_IN, PGRES_EMPTY_QUERY:
      return PostgresResult(result)
    default:
      defer { PQclear(result) }
      throw lostOrFailed(result)
    }
  }

  /// The error of a failed request: the connection lost (then marked so, for ``reconnect()``),
  /// or the server's refusal.
  private func lostOrFailed(_ result: OpaquePointer?) -> PostgresError {
    var error = classified(result)
    error.message = PostgresAddress.redacting(
      error.message, passwordsOf: address.connectionString)
    if error.kind == .connectionLost { isLost = true }
    return error
  }

  private func classified(_ result: OpaquePointer?) -> PostgresError {
    if PQstatus(handle) != CONNECTION_OK {
      return PostgresError(.connectionLost, String(cString: PQerrorMessage(handle)))
    }
    guard let result else {
      return PostgresError(.connectionLost, String(cString: PQerrorMessage(handle)))
    }
    let field = { (code: Int32) -> String? in
      PQresultErrorField(result, code).map { String(cString: $0) }
    }
    let state = field(Int32(UInt8(ascii: "C")))
    let message = field(Int32(UInt8(ascii: "M"))) ?? String(cString: PQresultErrorMessage(result))
    // The server going away (an administrator's shutdown) ends the session as surely; libpq's
    // own report of a closed socket comes without a state, sometimes before the connection is
    // marked bad.
    if let state, state.hasPrefix("57P") || state.hasPrefix("08") {
      return PostgresError(.connectionLost, message, sqlState: state)
    }
    if state == nil,
      PQstatus(handle) != CONNECTION_OK || message.contains("server closed the connection")
        || message.contains("no connection to the server")
    {
      return PostgresError(.connectionLost, message)
    }
    return PostgresError(.refused, message, sqlState: state)
  }
}

/// Rows on their way to a `COPY … FROM STDIN`, in its text format, sent 64 KB at a time.
package struct PostgresCopyRows {
  private let connection: OpaquePointer
  private var buffer: [UInt8] = []

  init(connection: OpaquePointer) {
    self.connection = connection
    buffer.reserveCapacity(1 << 17)
  }

  /// Appends a row; nil is SQL NULL. Tabs, line breaks and backslashes in values are escaped.
  package mutating func append(_ values: [String?]) throws {
    for (index, value) in values.enumerated() {
      if index > 0 { buffer.append(0x09) }
      guard let value else {
        buffer.append(contentsOf: [0x5C, 0x4E])  // \N
        continue
      }
      for byte in value.utf8 {
        switch byte {
        case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
        case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
        case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
        case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
        default: buffer.append(byte)
        }
      }
    }
    buffer.append(0x0A)
    if buffer.count >= 1 << 16 { try flush() }
  }

  /// Sends what is buffered.
  mutating func flush() throws {
    guard !buffer.isEmpty else { return }
    let sent = buffer.withUnsafeBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) {
        PQputCopyData(connection, $0.baseAddress, Int32($0.count))
      }
    }
    guard sent == 1 else {
      throw PostgresError(.connectionLost, String(cString: PQerrorMessage(connection)))
    }
    buffer.removeAll(keepingCapacity: true)
  }
}
