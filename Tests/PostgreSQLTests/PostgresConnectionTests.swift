import Foundation
import PostgreSQL
import TestSupport
import Testing

@Suite struct PostgresConnectionTests {
  /// A connection to a new, empty database on the tests' server.
  private func connectionToNewDatabase() throws -> PostgresConnection {
    let server = try PostgresTestServer.shared
    return try PostgresConnection(
      PostgresAddress(server.socketURL(database: try server.makeDatabase())),
      applicationName: "tests")
  }

  @Test func parametersTravelApartFromTheStatement() throws {
    let server = try PostgresTestServer.shared
    let database = try server.makeDatabase()
    let connection = try PostgresConnection(
      PostgresAddress(server.socketURL(database: database)), applicationName: "tests")
    try connection.run("CREATE TABLE t(a text, b bigint)")
    let hostile = "'); DROP TABLE t; --\ttab\nline\\"
    try connection.execute("INSERT INTO t VALUES ($1, $2)", [hostile, "42"])
    let result = try connection.execute("SELECT a, b, NULL FROM t")
    #expect(result.count == 1)
    #expect(result.text(0, 0) == hostile)
    #expect(result.integer(0, 1) == 42)
    #expect(result.isNull(0, 2))
    #expect(result.text(0, 2) == nil)
  }

  /// A value reads as an integer only when all of it is one that fits.
  @Test func integersReadWholeAndInRange() throws {
    let connection = try connectionToNewDatabase()
    let values: [(String?, Int?)] = [
      ("0", 0), ("42", 42), ("-7", -7), ("+5", 5), ("9223372036854775807", .max),
      ("-9223372036854775808", .min), ("9223372036854775808", nil),
      ("-9223372036854775809", nil), ("", nil), ("-", nil), ("12a", nil), (" 1", nil),
      ("1.5", nil), (nil, nil),
    ]
    let result = try connection.execute(
      "SELECT unnest($1::text[])",
      [
        "{" + values.map { $0.0.map { "\"\($0)\"" } ?? "NULL" }.joined(separator: ",") + "}"
      ])
    #expect(result.count == values.count)
    for (row, (text, expected)) in values.enumerated() {
      #expect(result.integer(row, 0) == expected, "\(text ?? "NULL")")
    }
  }

  @Test func copyEscapesWhatTheTextFormatWouldMisread() throws {
    let connection = try connectionToNewDatabase()
    try connection.run("CREATE TABLE t(n bigint, a text)")
    let values = ["plain", "tab\there", "new\nline", "back\\slash", "\\N", "cr\rx", "ünï €"]
    let copied = try connection.copy("COPY t FROM STDIN") { rows in
      for (number, value) in values.enumerated() { try rows.append([String(number), value]) }
      try rows.append(["99", nil])
    }
    #expect(copied == values.count + 1)
    let result = try connection.execute("SELECT a FROM t ORDER BY n")
    #expect((0..<values.count).map { result.text($0, 0) } == values)
    #expect(result.isNull(values.count, 0))
  }

  @Test func aFailedCopyLeavesNothingAndTheConnectionWorks() throws {
    struct Stop: Error {}
    let connection = try connectionToNewDatabase()
    try connection.run("CREATE TABLE t(n bigint)")
    #expect(throws: Stop.self) {
      try connection.copy("COPY t FROM STDIN") { rows in
        try rows.append(["1"])
        throw Stop()
      }
    }
    #expect(throws: PostgresError.self) {
      try connection.copy("COPY t FROM STDIN") { rows in try rows.append(["not a number"]) }
    }
    #expect(try connection.execute("SELECT count(*) FROM t").integer == 0)
  }

  /// The caller's settings are made as the session starts, in no request of their own; an
  /// address that gives options of its own keeps them, and the settings are made after.
  @Test func settingsAreMadeAsTheSessionStarts() throws {
    let server = try PostgresTestServer.shared
    let url = server.socketURL(database: try server.makeDatabase())
    let settings = [(name: "app.writer", value: "tests")]
    let connection = try PostgresConnection(
      PostgresAddress(url), applicationName: "tests", settings: settings)
    #expect(connection.roundTrips == 1)
    #expect(try connection.execute("SHOW app.writer").text(0, 0) == "tests")
    #expect(try connection.execute("SHOW client_min_messages").text(0, 0) == "warning")
    #expect(connection.roundTrips == 3)
    let separator = url.contains("?") ? "&" : "?"
    let withOptions = try PostgresConnection(
      PostgresAddress(url + separator + "options=-c%20statement_timeout%3D4321"),
      applicationName: "tests", settings: settings)
    #expect(try withOptions.execute("SHOW statement_timeout").text(0, 0) == "4321ms")
    #expect(try withOptions.execute("SHOW app.writer").text(0, 0) == "tests")
  }

  /// Statements sent ahead travel with the next request: one round trip; one that fails is
  /// that request's failure, the transaction is rolled back, and the connection goes on.
  @Test func statementsSentAheadGoWithTheNextRequest() throws {
    let connection = try connectionToNewDatabase()
    try connection.run("CREATE TABLE t(n bigint CHECK (n < 100))")
    let before = connection.roundTrips
    let (sum, read) = try connection.transaction(
      thenRunning: [("SELECT count(*) FROM t", []), ("SELECT max(n) FROM t", [])]
    ) {
      try connection.send("INSERT INTO t VALUES ($1)", ["1"])
      try connection.send("INSERT INTO t VALUES ($1)", ["2"])
      return try connection.execute("SELECT sum(n) FROM t").integer
    }
    #expect(sum == 3)
    #expect(read.map(\.integer) == [2, 2])
    #expect(connection.roundTrips == before + 2)
    #expect(throws: PostgresError.self) {
      try connection.transaction {
        try connection.send("INSERT INTO t VALUES ($1)", ["3"])
        try connection.send("INSERT INTO t VALUES ($1)", ["300"])
        try connection.send("INSERT INTO t VALUES ($1)", ["4"])
      }
    }
    #expect(try connection.execute("SELECT sum(n) FROM t").integer == 3)
    // What fails after `COMMIT` leaves nothing to read; the transaction committed.
    let (_, none) = try connection.transaction(thenRunning: [("SELECT * FROM missing", [])]) {
      try connection.send("INSERT INTO t VALUES ($1)", ["5"])
    }
    #expect(none.isEmpty)
    #expect(try connection.execute("SELECT sum(n) FROM t").integer == 8)
  }

  /// A statement prepared under a name is prepared once a session, in the round trip that
  /// first runs it, with what was sent ahead and after a transaction's `COMMIT` alike; one that
  /// fails to prepare is prepared again next time; a new session prepares it again.
  @Test func aStatementPreparedUnderANameIsPreparedOnceASession() throws {
    let connection = try connectionToNewDatabase()
    try connection.run("CREATE TABLE t(n bigint)")
    func named() throws -> [String] {
      let rows = try connection.execute("SELECT name FROM pg_prepared_statements ORDER BY name")
      return (0..<rows.count).compactMap { rows.text($0, 0) }
    }
    let sum = "SELECT coalesce(sum(n), 0) + $1::bigint FROM t"
    let before = connection.roundTrips
    try connection.send("INSERT INTO t VALUES (1)")
    let first = try connection.execute(together: [(sum, ["10"])], preparingFirstAs: "sum")
    #expect(first.map(\.integer) == [11])
    #expect(connection.roundTrips == before + 1)
    let (_, read) = try connection.transaction(
      thenRunning: [(sum, ["20"]), ("SELECT count(*) FROM t", [])], preparingFirstAs: "sum"
    ) {
      try connection.send("INSERT INTO t VALUES (2)")
    }
    #expect(read.map(\.integer) == [23, 2])
    #expect(try named() == ["sum"])
    let later = "SELECT count(*) FROM later"
    #expect(throws: PostgresError.self) {
      try connection.execute(together: [(later, [])], preparingFirstAs: "later")
    }
    #expect(try named() == ["sum"])
    try connection.run("CREATE TABLE later(n bigint)")
    #expect(
      try connection.execute(together: [(later, [])], preparingFirstAs: "later").map(\.integer)
        == [0])
    #expect(try named() == ["later", "sum"])
    try connection.reconnect()
    #expect(try named().isEmpty)
    #expect(
      try connection.execute(together: [(sum, ["0"])], preparingFirstAs: "sum").map(\.integer)
        == [3])
    #expect(try named() == ["sum"])
  }

  /// A cursor read a page at a time, the next page asked for while this one is read: every
  /// row once, in order, another request between pages or not; ended early, the page under way
  /// is dropped and the connection goes on.
  @Test func pagesOfACursorArriveInOrder() throws {
    let connection = try connectionToNewDatabase()
    try connection.run(
      "BEGIN; DECLARE rows NO SCROLL CURSOR FOR SELECT n FROM generate_series(1, 2500) AS n")
    try connection.startRepeating("FETCH 1000 FROM rows")
    var seen: [Int] = []
    while true {
      let page = try connection.nextRepeated()
      guard page.count > 0 else { break }
      seen += (0..<page.count).compactMap { page.integer($0, 0) }
      // Another request between pages: the page under way is kept for the next.
      #expect(
        try connection.execute("SELECT $1::int + 1", [String(seen.count)]).integer
          == seen.count + 1)
    }
    connection.endRepeating()
    try connection.run("COMMIT")
    #expect(seen == Array(1...2500))
    try connection.run(
      "BEGIN; DECLARE rows NO SCROLL CURSOR FOR SELECT n FROM generate_series(1, 2500) AS n")
    try connection.startRepeating("FETCH 1000 FROM rows")
    #expect(try connection.nextRepeated().count == 1000)
    connection.endRepeating()
    #expect(try connection.execute("FETCH 1000 FROM rows").integer == 2001)
    try connection.run("COMMIT")
    #expect(try connection.execute("SELECT 42").integer == 42)
  }

  @Test func aTransactionThatThrowsIsRolledBack() throws {
    struct Stop: Error {}
    let connection = try connectionToNewDatabase()
    try connection.run("CREATE TABLE t(n bigint)")
    #expect(throws: Stop.self) {
      try connection.transaction {
        try connection.execute("INSERT INTO t VALUES (1)")
        throw Stop()
      }
    }
    try connection.transaction { try connection.execute("INSERT INTO t VALUES (2)") }
    #expect(try connection.execute("SELECT sum(n) FROM t").integer == 2)
  }

  @Test func aRefusedStatementSaysWhyWithItsState() throws {
    let connection = try connectionToNewDatabase()
    do {
      try connection.execute("SELECT * FROM missing")
      Issue.record("a missing table was read")
    } catch let error as PostgresError {
      #expect(error.kind == .refused)
      #expect(error.sqlState == "42P01")
      #expect(error.description == #"relation "missing" does not exist"#)
    }
  }

  @Test func notificationsArriveOnTheListeningConnection() throws {
    let server = try PostgresTestServer.shared
    let address = try PostgresAddress(server.socketURL(database: try server.makeDatabase()))
    let listener = try PostgresConnection(address, applicationName: "tests")
    let sender = try PostgresConnection(address, applicationName: "tests")
    try listener.run("LISTEN handoff")
    try sender.execute("SELECT pg_notify('handoff', $1)", ["hello, other machine"])
    var received: [PostgresNotification] = []
    for _ in 0..<100 where received.isEmpty {
      received = try listener.notifications()
      if received.isEmpty { usleep(10_000) }
    }
    #expect(received == [PostgresNotification(channel: "handoff", payload: "hello, other machine")])
  }

  @Test func aWrongPasswordIsAnAuthenticationFailureThatNamesNoPassword() throws {
    let server = try PostgresTestServer.shared
    let url = server.tcpURL(database: "postgres", password: "wrong-password")
    do {
      _ = try PostgresConnection(PostgresAddress(url), applicationName: "tests")
      Issue.record("a wrong password was let in")
    } catch let error as PostgresError {
      #expect(error.kind == .authentication)
      #expect(error.description.contains("password authentication failed"))
      #expect(!error.description.contains("wrong-password"))
      #expect(!error.description.contains("\n"))
    }
    // The right one works over TCP.
    _ = try PostgresConnection(
      PostgresAddress(server.tcpURL(database: "postgres")), applicationName: "tests")
  }

  /// A connection that another thread can give up makes the same connection (a password over
  /// TCP) and fails the same way.
  @Test func anInterruptibleConnectionConnectsAndFailsAsAnyOther() throws {
    let server = try PostgresTestServer.shared
    let wake = try WakePipe()
    try withExtendedLifetime(wake) {
      let connection = try PostgresConnection(
        PostgresAddress(server.tcpURL(database: "postgres")), applicationName: "tests",
        interruptedBy: wake.reader)
      #expect(try connection.execute("SELECT 41 + 1").integer == 42)
      do {
        _ = try PostgresConnection(
          PostgresAddress(server.tcpURL(database: "postgres", password: "wrong-password")),
          applicationName: "tests", interruptedBy: wake.reader)
        Issue.record("a wrong password was let in")
      } catch let error as PostgresError {
        #expect(error.kind == .authentication, "\(error)")
      }
    }
  }

  /// A server that never answers: the attempt ends when the pipe is written, long before its
  /// timeout, and at its timeout when it is not.
  @Test func aConnectionToASilentServerIsGivenUpOrTimesOut() throws {
    let silent = try SilentServer()
    let address = try PostgresAddress(
      "postgresql://nobody@127.0.0.1:\(silent.port)/catalog?sslmode=disable&gssencmode=disable")
    // Both pipes and the server outlive every connection: a descriptor closed under a
    // connection would be another file's soon after.
    let (wake, idle) = (try WakePipe(), try WakePipe())
    /// How connecting ends: with an error, never with a connection.
    func failure(timeout: Int, interruptedBy pipe: WakePipe) -> PostgresError? {
      do {
        _ = try PostgresConnection(
          address, applicationName: "tests", timeout: timeout, interruptedBy: pipe.reader)
        Issue.record("connected to a server that never answers")
      } catch {
        return error as? PostgresError
      }
      return nil
    }
    withExtendedLifetime((silent, wake, idle)) {
      let writer = wake.writer
      let start = ContinuousClock.now
      Thread.detachNewThread {
        usleep(200_000)
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
      }
      let givenUp = failure(timeout: 60, interruptedBy: wake)
      #expect(givenUp?.kind == .interrupted, "\(String(describing: givenUp))")
      #expect(ContinuousClock.now - start < .seconds(30))
      let timedOut = failure(timeout: 1, interruptedBy: idle)
      #expect(timedOut?.kind == .unreachable, "\(String(describing: timedOut))")
      #expect(timedOut?.message == "timeout expired")
    }
  }

  /// The caller's work is done while the server starts the session: once, with a server that
  /// answers and with one that never does (which the address's `connect_timeout` then ends,
  /// not the caller's longer default); never when no server takes the connection.
  @Test func theCallersWorkIsDoneWhileTheServerStartsTheSession() throws {
    func connect(_ url: String) -> (
      connection: PostgresConnection?, error: PostgresError?, calls: Int
    ) {
      var calls = 0
      do {
        let connection = try PostgresConnection(
          PostgresAddress(url), applicationName: "tests", whileConnecting: { calls += 1 })
        return (connection, nil, calls)
      } catch {
        return (nil, error as? PostgresError, calls)
      }
    }
    let answered = connect(try PostgresTestServer.shared.tcpURL(database: "postgres"))
    #expect(answered.calls == 1)
    #expect(try answered.connection?.execute("SELECT 41 + 1").integer == 42)

    let silent = try SilentServer()
    withExtendedLifetime(silent) {
      let start = ContinuousClock.now
      let unanswered = connect(
        "postgresql://nobody@127.0.0.1:\(silent.port)/catalog?sslmode=disable&gssencmode=disable&connect_timeout=2"
      )
      #expect(unanswered.calls == 1)
      #expect(unanswered.error?.kind == .unreachable)
      #expect(unanswered.error?.message == "timeout expired")
      #expect(ContinuousClock.now - start < .milliseconds(4500))
    }

    let refused = connect("postgresql://nobody@127.0.0.1:1/catalog?connect_timeout=2")
    #expect(refused.calls == 0)
    #expect(refused.error?.kind == .unreachable)
  }

  /// The caller's work given with statements is done once they are sent, while the server runs
  /// them: another session sees them running before it ends.
  @Test func theCallersWorkIsDoneWhileTheServerRunsTheStatements() throws {
    let address = try PostgresAddress(try PostgresTestServer.shared.tcpURL(database: "postgres"))
    let connection = try PostgresConnection(address, applicationName: "tests")
    let watcher = try PostgresConnection(address, applicationName: "tests")
    let pid = try #require(try connection.execute("SELECT pg_backend_pid()").integer)
    var (calls, seenRunning) = (0, false)
    let results = try connection.execute(
      together: [("SELECT pg_sleep(0.2), 7", [])], preparingFirstAs: nil,
      whileWaiting: {
        calls += 1
        for _ in 0..<300 where !seenRunning {
          let running = try? watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query LIKE '%pg_sleep%'",
            [String(pid)])
          seenRunning = running?.integer == 1
          if !seenRunning { usleep(10_000) }
        }
      })
    #expect(calls == 1)
    #expect(seenRunning)
    #expect(results.first?.integer(0, 1) == 7)
  }

  /// `connect_timeout` is read as libpq reads it, and one it would refuse is refused at once;
  /// with several hosts, a host that never answers is given up after it, for the next.
  @Test func theConnectTimeoutIsLibpqsAndEachHostHasIt() throws {
    let spaced = try PostgresAddress("postgresql://h/db?connect_timeout=%207%20")
    #expect(spaced.connectTimeout == 7)
    do {
      _ = try PostgresAddress("postgresql://h/db?connect_timeout=10s")
      Issue.record("a timeout libpq refuses was taken")
    } catch let error as PostgresError {
      #expect(error.kind == .badAddress, "\(error)")
    }
    let server = try PostgresTestServer.shared
    let silent = try SilentServer()
    try withExtendedLifetime(silent) {
      let url =
        "host=127.0.0.1,127.0.0.1 port=\(silent.port),\(server.port) dbname=postgres user=\(server.user) password=\(server.password) sslmode=disable gssencmode=disable connect_timeout=2"
      var calls = 0
      let connection = try PostgresConnection(
        PostgresAddress(url), applicationName: "tests", whileConnecting: { calls += 1 })
      #expect(try connection.execute("SELECT 41 + 1").integer == 42)
      #expect(calls == 1)
    }
  }

  @Test func noServerAtAnAddressIsUnreachable() throws {
    let url = "postgresql://nobody@127.0.0.1:1/catalog?connect_timeout=2"
    do {
      _ = try PostgresConnection(PostgresAddress(url), applicationName: "tests")
      Issue.record("connected to nothing")
    } catch let error as PostgresError {
      #expect(error.kind == .unreachable)
      #expect(error.description.contains("Connection refused"), "\(error)")
    }
  }

  /// libpq's own messages quote the connection string it could not parse: none of them may
  /// show the password, in any form it was written.
  @Test(arguments: [
    "postgresql://bob:s3cr%zzet@127.0.0.1:5432/db",
    "postgresql://bob:s3cr%00et@127.0.0.1:5432/db",
    "postgresql://bob:s3cret@[::1/db",
    "postgresql:///db?host=/tmp&password=s3cr%zzet",
    "postgres://bob:s3c@r%zzet@127.0.0.1/db",
    "host=127.0.0.1 password='s3cret port=5432",
    "host=127.0.0.1 password = s3cret port=5432 junk",
    "host=127.0.0.1 password='s3c\\'ret' sslmode=bogus",
  ])
  func aMalformedAddressNamesNoPassword(_ url: String) throws {
    do {
      let address = try PostgresAddress(url)
      _ = try PostgresConnection(address, applicationName: "tests", timeout: 1)
      Issue.record("connected with '\(url)'")
    } catch let error as PostgresError {
      for secret in ["s3c", "cret", "r%zz", "r%00"] {
        #expect(!error.description.contains(secret), "\(error.description)")
      }
    }
  }

  @Test(arguments: [
    ("postgresql://ann:pw@host/db", ["pw"]),
    ("postgresql://ann@host/db?sslmode=require&password=p%26w", ["p%26w"]),
    ("postgresql://ann@host/db", []),
    ("postgresql://host/db?application_name=password=x", []),
    ("user=ann password=pw dbname=shop", ["pw"]),
    ("user=ann password = 'p w' dbname=shop", ["'p w'"]),
    ("password='open", ["'open"]),
    ("host=db", []),
  ])
  func passwordsAreFoundAsWritten(_ url: String, _ expected: [String]) {
    let found = PostgresAddress.passwordRanges(in: url).map { String(url[$0]) }
    #expect(found == expected)
  }

  @Test func anAddressDescribesItselfWithoutItsPassword() throws {
    let address = try PostgresAddress(
      "postgresql://ann:s3cret@db.example:6543/shop?sslmode=require")
    #expect(address.description == "postgresql://ann@db.example:6543/shop")
    #expect(address.tlsMode == "require")
    #expect(!address.description.contains("s3cret"))
    let keywords = try PostgresAddress("host=/run/pg dbname=shop user=ann")
    #expect(keywords.description == "postgresql://ann@/shop?host=/run/pg&port=5432")
    // No user named: libpq's, the login name of the process's user, whatever `USER` says.
    let login = String(cString: try #require(getpwuid(geteuid())?.pointee.pw_name))
    let unnamed = try PostgresAddress("host=/run/pg dbname=shop", environment: [:])
    #expect(unnamed.user == login)
    #expect(throws: PostgresError.self) { try PostgresAddress("postgresql://[bad") }
  }
}

/// A pipe whose reading end a test hands to a connection to give it up.
private final class WakePipe {
  let reader: Int32
  let writer: Int32

  init() throws {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { throw CocoaError(.fileWriteUnknown) }
    (reader, writer) = (descriptors[0], descriptors[1])
  }

  deinit {
    close(reader)
    close(writer)
  }
}
