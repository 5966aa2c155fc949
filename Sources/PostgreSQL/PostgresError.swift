import CLibPQLoader

/// What went wrong talking to a PostgreSQL server, in one line.
package struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of failure: whether the server was reached, and whether to try again.
  package enum Kind: Sendable, Hashable {
    /// The server could not be reached: no server at the address, a name that does not resolve,
    /// a timeout.
    case unreachable
    /// The server refused the user or the password.
    case authentication
    /// A TLS connection was asked for (`sslmode`) and could not be made.
    case tls
    /// The connection was lost during a request: the request may not have run.
    case connectionLost
    /// The server ran the request and refused it (the `sqlState` says why).
    case refused
    /// The connection string itself is wrong.
    case badAddress
    /// PostgreSQL's client library (libpq) is not installed.
    case noClientLibrary
    /// The caller gave the connecting up (``PostgresConnection/init(_:applicationName:timeout:settings:interruptedBy:)``).
    case interrupted
  }

  /// The kind of failure.
  package var kind: Kind
  /// The server's or libpq's message, on one line.
  package var message: String
  /// The SQLSTATE code of a refused request (`40001` serialization failure, …).
  package var sqlState: String?

  package init(_ kind: Kind, _ message: String, sqlState: String? = nil) {
    self.kind = kind
    self.message = Self.oneLine(message)
    self.sqlState = sqlState
  }

  /// The message.
  package var description: String { message }

  /// Whether the request may succeed if sent again on a new connection.
  package var isConnectionFailure: Bool {
    kind == .unreachable || kind == .connectionLost
  }

  /// A libpq message (several lines, a tab before hints) as one line: the first line, without
  /// libpq's "connection to server at … failed:" preamble, which the caller says better.
  static func oneLine(_ message: String) -> String {
    var line =
      message.split(whereSeparator: \.isNewline).first.map(String.init)?
      .trimmingCharacters(in: " \t") ?? ""
    if line.hasPrefix("connection to server"), let rest = line.suffix(after: "failed: ") {
      line = rest
    }
    if line.hasPrefix("FATAL:  ") { line = String(line.dropFirst(8)) }
    if line.hasPrefix("ERROR:  ") { line = String(line.dropFirst(8)) }
    return line.isEmpty ? "no reason given" : line
  }
}

extension String {
  /// What follows the first occurrence of a marker; nil when there is none.
  fileprivate func suffix(after marker: String) -> String? {
    let bytes = Array(utf8)
    let needle = Array(marker.utf8)
    guard bytes.count >= needle.count else { return nil }
    for start in 0...(bytes.count - needle.count)
    where bytes[start..<start + needle.count].elementsEqual(needle) {
      return String(decoding: bytes[(start + needle.count)...], as: UTF8.self)
    }
    return nil
  }

  fileprivate func trimmingCharacters(in set: String) -> String {
    let scalars = Set(set.unicodeScalars)
    var view = Substring(self)
    while let first = view.unicodeScalars.first, scalars.contains(first) {
      view = view.dropFirst()
    }
    while let last = view.unicodeScalars.last, scalars.contains(last) { view = view.dropLast() }
    return String(view)
  }
}

/// Loads libpq when it is first needed (`CLibPQ`): a program that never talks to a server never
/// loads it.
enum ClientLibrary {
  /// Starts loading it on a thread of its own, for a program about to connect: ``load()``
  /// then waits only for what is left of it (some twenty libraries to map and bind).
  static func loadInBackground() {
    cpq_load_in_background()
  }

  /// Loads it, once.
  ///
  /// - Throws: ``PostgresError`` of kind `noClientLibrary` when it is not installed.
  static func load() throws {
    var reason = [CChar](repeating: 0, count: 256)
    guard cpq_load(&reason, reason.count) == 1 else {
      throw PostgresError(
        .noClientLibrary,
        "PostgreSQL's client library cannot be loaded (\(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))); install it (libpq5 on Debian and Ubuntu)"
      )
    }
  }
}
