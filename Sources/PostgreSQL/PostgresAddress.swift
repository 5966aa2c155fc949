import CLibPQ

#if canImport(Glibc)
  import Glibc
#endif

/// Where a PostgreSQL server and database are: a `postgres://` or `postgresql://` URI, or a libpq
/// keyword string (`host=db.example port=5432 dbname=shop`), as a user wrote it, with what
/// libpq would fill in from the environment (`PGHOST`, `PGPORT`, `PGDATABASE`, `PGUSER`).
///
/// Its ``description`` names the server and the database and never the password, which stays
/// in the connection string (or comes from `~/.pgpass` or `PGPASSWORD`, as libpq reads them).
package struct PostgresAddress: Sendable, Hashable, CustomStringConvertible {
  /// What the user wrote, password and all: only ever handed to libpq.
  package let connectionString: String
  /// The host name, address or socket directory; libpq's default socket directory when none is
  /// given.
  package let host: String
  /// The port.
  package let port: String
  /// The database's name.
  package let database: String
  /// The user's name.
  package let user: String
  /// The TLS mode asked for (`sslmode`), when one is.
  package let tlsMode: String?
  /// The session's options the address or `PGOPTIONS` gives (`-c name=value …`), when they do.
  package let options: String?
  /// The seconds to wait for the server that the address or `PGCONNECT_TIMEOUT` gives
  /// (`connect_timeout`), when they do: zero or less waits as long as it takes, and libpq
  /// reads 1 as 2.
  package let connectTimeout: Int?

  /// The login name of the process's effective user, which libpq connects as when no user is
  /// named: looked up once (the user database is read again at every lookup).
  private static let loginName: String? = {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil,
      let name = entry.pw_name
    else { return nil }
    return String(cString: name)
  }()

  /// Parses a connection string.
  ///
  /// - Parameters:
  ///   - connectionString: A URI or keyword string.
  ///   - environment: The process environment, for libpq's defaults.
  /// - Throws: ``PostgresError`` of kind `badAddress`, saying what is wrong with it, or
  ///   `noClientLibrary`.
  package init(_ connectionString: String, environment: [String: String] = [:]) throws {
    try ClientLibrary.load()
    var error: UnsafeMutablePointer<CChar>?
    guard let options = PQconninfoParse(connectionString, &error) else {
      let message = error.map { String(cString: $0) } ?? "it cannot be parsed"
      if let error { PQfreemem(error) }
      throw PostgresError(
        .badAddress, Self.redacting(message, passwordsOf: connectionString))
    }
    defer { PQconninfoFree(options) }
    var values: [String: String] = [:]
    var option = options
    while let keyword = option.pointee.keyword {
      if let value = option.pointee.val, value.pointee != 0 {
        values[String(cString: keyword)] = String(cString: value)
      }
      option += 1
    }
    func value(_ keyword: String, _ variable: String) -> String? {
      values[keyword] ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }
    self.connectionString = connectionString
    // As libpq names the user when nothing does: the process's own login name.
    user = value("user", "PGUSER") ?? Self.loginName ?? environment["USER"] ?? "postgres"
    host = value("host", "PGHOST") ?? value("hostaddr", "PGHOSTADDR") ?? "/var/run/postgresql"
    port = value("port", "PGPORT") ?? "5432"
    database = value("dbname", "PGDATABASE") ?? user
    tlsMode = value("sslmode", "PGSSLMODE")
    if let text = value("connect_timeout", "PGCONNECT_TIMEOUT") {
      // As libpq reads it: a whole number, spaces around it allowed.
      let trimmed = text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
      guard let seconds = Int(String(trimmed)) else {
        throw PostgresError(
          .badAddress, "connect_timeout '\(text)' is not a whole number of seconds")
      }
      connectTimeout = seconds
    } else {
      connectTimeout = nil
    }
    // libpq reads PGOPTIONS itself: the process's own, whatever the caller passed.
    self.options =
      values["options"]
      ?? getenv("PGOPTIONS").map { String(cString: $0) }.flatMap {
        $0.isEmpty ? nil : $0
      }
  }

  /// The address as a URI without the password — `postgresql://ann@db.example:5432/shop`, or
  /// `postgresql://ann@/shop?host=/run/postgresql&port=5432` for a Unix socket: enough to tell
  /// servers apart, and safe to print.
  package var description: String {
    host.hasPrefix("/")
      ? "postgresql://\(user)@/\(database)?host=\(host)&port=\(port)"
      : "postgresql://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
  }
}
