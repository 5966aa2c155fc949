import Foundation
import PostgreSQL
import Synchronization

/// A PostgreSQL server of the tests' own: `initdb` into a temporary directory, then `pg_ctl
/// start` listening on a Unix socket in that directory and on a free port of 127.0.0.1 (as the
/// `postgres` user when the tests run as root, which the server refuses to run as). Stopped when
/// the value goes; ``shared`` is stopped and removed at exit.
///
/// Local connections are trusted; over TCP the server asks for ``password`` (SCRAM), so that a
/// test can give a wrong one. Files are not synced (`fsync=off`): a test server is thrown away.
package final class PostgresTestServer: @unchecked Sendable {
  /// The directory holding the cluster, the socket and the log.
  package let root: String
  /// The TCP port on 127.0.0.1.
  package private(set) var port: Int
  /// The superuser's name.
  package let user = "postgres"
  /// The superuser's password over TCP.
  package let password = "catalog-test-secret"
  private let binaries: String
  private let databases = Atomic<Int>(0)

  /// The server every test of a run shares, started at first use and stopped at exit.
  package static var shared: PostgresTestServer {
    get throws { try sharedServer.get() }
  }

  private static let sharedServer: Result<PostgresTestServer, any Error> = {
    Result {
      let server = try PostgresTestServer()
      sharedForExit.withLock { $0 = server }
      atexit { PostgresTestServer.sharedForExit.withLock { $0?.remove() } }
      return server
    }
  }()
  private static let sharedForExit = Mutex<PostgresTestServer?>(nil)

  /// Creates a cluster and starts its server.
  ///
  /// - Throws: When no server binaries are installed (`apt-get install postgresql`), or the
  ///   server does not start.
  package init() throws {
    guard let binaries = Self.findBinaries() else {
      throw ServerError(
        "no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql: install the postgresql package"
      )
    }
    self.binaries = binaries
    Self.stopAbandonedServers()
    root =
      NSTemporaryDirectory() + "catalog-pg-\(getpid())-" + String(UUID().uuidString.prefix(8))
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    port = 0
    try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: root + "/password"))
    if getuid() == 0 { try run("/bin/chown", ["-R", "postgres:postgres", root], asRoot: true) }
    try run(
      binaries + "/initdb",
      [
        "-D", root + "/cluster", "-U", user, "--pwfile", root + "/password", "-E", "UTF8",
        "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync",
      ])
    try start()
  }

  deinit { stop() }

  /// Starts the server (again), on a free port the first time and the same port after.
  package func start() throws {
    var lastError: (any Error)?
    for _ in 0..<5 {
      if port == 0 { port = Self.freePort() }
      do {
        try run(
          binaries + "/pg_ctl",
          [
            "-D", root + "/cluster", "-l", root + "/server.log", "-w", "-t", "30", "start", "-o",
            "-k \(root) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200",
          ])
        return
      } catch {
        lastError = error
        port = 0
      }
    }
    throw lastError ?? ServerError("the server did not start")
  }

  /// Stops the server at once (`immediate`): connections are dropped as by a crash, and every
  /// committed transaction is kept (commits are synchronous; only the files are not synced).
  package func stop() {
    try? run(binaries + "/pg_ctl", ["-D", root + "/cluster", "-m", "immediate", "-w", "stop"])
  }

  /// Stops the server and removes its files.
  package func remove() {
    stop()
    try? FileManager.default.removeItem(atPath: root)
  }

  /// A new, empty database on this server.
  ///
  /// - Returns: Its name.
  package func makeDatabase() throws -> String {
    let name = "test_\(getpid())_\(databases.add(1, ordering: .relaxed).newValue)"
    let connection = try PostgresConnection(
      PostgresAddress(socketURL(database: "postgres")), applicationName: "catalog-tests")
    try connection.run("CREATE DATABASE \(name)")
    return name
  }

  /// A URI reaching a database over the Unix socket, as the superuser (trusted, no password).
  package func socketURL(database: String) -> String {
    "postgresql:///\(database)?host=\(root)&port=\(port)&user=\(user)"
  }

  /// A URI reaching a database over TCP on 127.0.0.1, with a password (the right one unless
  /// another is given).
  package func tcpURL(database: String, password: String? = nil) -> String {
    "postgresql://\(user):\(password ?? self.password)@127.0.0.1:\(port)/\(database)"
  }

  private static func findBinaries() -> String? {
    let base = "/usr/lib/postgresql"
    let versions =
      ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [])
      .compactMap(Int.init).sorted()
    for version in versions.reversed()
    where FileManager.default.isExecutableFile(atPath: "\(base)/\(version)/bin/pg_ctl") {
      return "\(base)/\(version)/bin"
    }
    return nil
  }

  /// Servers left by test runs that were killed (their directories name their pids).
  private static func stopAbandonedServers() {
    let temporary = NSTemporaryDirectory()
    for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
    where name.hasPrefix("catalog-pg-") {
      let parts = name.split(separator: "-")
      guard parts.count >= 3, let pid = Int32(parts[2]), pid != getpid(), kill(pid, 0) != 0
      else { continue }
      let cluster = temporary + name + "/cluster/postmaster.pid"
      if let text = try? String(contentsOfFile: cluster, encoding: .utf8),
        let line = text.split(separator: "\n").first, let serverPID = Int32(line)
      {
        kill(serverPID, SIGQUIT)
      }
      try? FileManager.default.removeItem(atPath: temporary + name)
    }
  }

  private static func freePort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 ? getsockname(descriptor, $0, &length) : -1
      }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Runs a server program, as `postgres` when the tests run as root, its output to a file.
  /// (posix_spawn and waitpid: `pg_ctl start` leaves the server behind, which Foundation's
  /// `Process` can wait on forever.)
  private func run(_ executable: String, _ arguments: [String], asRoot: Bool = false) throws {
    let argv =
      getuid() == 0 && !asRoot
      ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments
      : [executable] + arguments
    let log = NSTemporaryDirectory() + "catalog-pg-output-\(getpid())-\(UUID().uuidString)"
    defer { unlink(log) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // Nothing else of the tests' own: a server holding the write end of a pipe to another
    // program (a REPL's standard input) would keep that program from ever reading its end.
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
      if let descriptor = Int32(entry), descriptor > 2 {
        posix_spawn_file_actions_addclose(&actions, descriptor)
      }
    }
    var pointers = argv.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    var pid = pid_t()
    guard posix_spawn(&pid, argv[0], &actions, nil, &pointers, environ) == 0 else {
      throw ServerError("cannot start \(argv[0])")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    guard status == 0 else {
      let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      throw ServerError(
        "\((executable as NSString).lastPathComponent) failed: "
          + output.trimmingCharacters(in: .whitespacesAndNewlines))
    }
  }

  private struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}
