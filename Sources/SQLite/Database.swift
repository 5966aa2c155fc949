import CSQLite

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#endif

/// The layer's one error type: what SQLite reported (its result code and message), or what
/// the check of a file found before SQLite opened it (``fileProblem``).
package struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
  /// The extended result code (`SQLITE_IOERR_FSYNC`, …).
  package let extendedCode: Int32
  /// SQLite's message.
  package let message: String
  /// What ``DatabaseFile/check(_:beingWritten:)`` found wrong with the file, when it was that.
  package let fileProblem: DatabaseFileProblem?

  /// An error SQLite reported.
  ///
  /// - Parameters:
  ///   - extendedCode: The extended result code.
  ///   - message: SQLite's message.
  package init(extendedCode: Int32, message: String) {
    self.extendedCode = extendedCode
    self.message = message
    fileProblem = nil
  }

  /// A problem the file check found: a file that cannot be opened (a link, not a regular
  /// file, not readable) or that is not a whole database (damage).
  ///
  /// - Parameter problem: The problem.
  package init(fileProblem problem: DatabaseFileProblem) {
    switch problem {
    case .unreadable, .symbolicLink, .notRegularFile: extendedCode = SQLITE_CANTOPEN
    case .notSQLite: extendedCode = SQLITE_NOTADB
    case .truncated: extendedCode = SQLITE_CORRUPT
    }
    message = problem.description
    fileProblem = problem
  }

  /// The primary result code (`SQLITE_IOERR`, `SQLITE_CORRUPT`, …).
  package var code: Int32 { extendedCode & 0xFF }

  /// Whether the database file is damaged or not a database at all.
  package var isDamage: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

  /// Whether a constraint failed: a unique index found two equal keys, say.
  package var isConstraint: Bool { code == SQLITE_CONSTRAINT }

  /// Whether another connection held a lock longer than the busy timeout.
  package var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

  package var description: String { message }

  /// The message: SQLite's, or what the file check found.
  package var errorDescription: String? { message }
}

/// One connection to a SQLite database: statements, transactions and pragmas.
///
/// Not for concurrent use: a connection belongs to one thread at a time (callers serialize).
package final class Database {
  /// How a database is opened.
  package enum Mode: Sendable {
    /// Reading only; the file must exist.
    case readOnly
    /// Reading and writing; the file must exist.
    case readWrite
    /// Reading and writing; the file is created when missing.
    case create
  }

  private let handle: OpaquePointer
  /// The database file's path.
  package let path: String
  private var cache: [String: Statement] = [:]
  /// Whether closing may copy the write-ahead log into the file (SQLite's default).
  private var mayCheckpointOnClose = true
  /// The largest write-ahead log left as it is at close; nil to copy any log, as SQLite does.
  private var smallLogLimit: Int?

  /// Opens a database.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - mode: Whether to read, write or create it.
  ///   - busyTimeout: How long a statement waits for another connection's lock, in
  ///     milliseconds, before it fails with `SQLITE_BUSY`.
  /// - Throws: ``SQLiteError`` when it cannot be opened.
  package init(path: String, mode: Mode, busyTimeout: Int32 = 10_000) throws {
    // No mutex of SQLite's own: callers serialize (see above), and a lock taken at every
    // column read cost a sixth of reading a million rows.
    var flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX
    switch mode {
    case .readOnly: flags |= SQLITE_OPEN_READONLY
    case .readWrite: flags |= SQLITE_OPEN_READWRITE
    case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
    }
    var pointer: OpaquePointer?
    let status = sqlite3_open_v2(path, &pointer, flags, nil)
    guard let pointer else {
      throw SQLiteError(extendedCode: status, message: String(cString: sqlite3_errstr(status)))
    }
    guard status == SQLITE_OK else {
      let error = SQLiteError(
        extendedCode: sqlite3_extended_errcode(pointer),
        message: String(cString: sqlite3_errmsg(pointer)))
      sqlite3_close_v2(pointer)
      throw error
    }
    handle = pointer
    self.path = path
    self.busyTimeout = busyTimeout
    sqlite3_extended_result_codes(handle, 1)
    sqlite3_busy_timeout(handle, busyTimeout)
  }

  /// How long a statement waits for another connection's lock, in milliseconds.
  private let busyTimeout: Int32

  /// Copies the write-ahead log into the file and empties it, unless another connection is
  /// writing or reading an older snapshot now: then it does nothing, at once, rather than wait
  /// (a reader may hold its snapshot for seconds), and a later call does it.
  ///
  /// - Returns: Whether the log was emptied.
  @discardableResult
  package func emptyLogIfFree() -> Bool {
    sqlite3_busy_timeout(handle, 0)
    defer { sqlite3_busy_timeout(handle, busyTimeout) }
    return sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
      == SQLITE_OK
  }

  deinit {
    for statement in cache.values { statement.finalize() }
    // Set only now (SQLite's default is to copy): changing it expires every prepared
    // statement, which SQLite then prepares again at its next step.
    if logIsLeftOnClose { _ = csqlite_set_checkpoint_on_close(handle, 0) }
    if let closing {
      closing { sqlite3_close_v2(handle) }
    } else {
      sqlite3_close_v2(handle)
    }
  }

  /// Runs around the connection's close, given the close to call: for what must be done
  /// before and after SQLite copies the log into the file as it closes.
  package var closing: ((_ close: () -> Void) -> Void)?

  /// Whether closing leaves the write-ahead log as it is: checkpoints on close are off, or the
  /// log is no larger than ``leaveSmallLogOnClose(upTo:)`` allows.
  private var logIsLeftOnClose: Bool {
    guard mayCheckpointOnClose else { return true }
    guard let smallLogLimit else { return false }
    var status = stat()
    return lstat(path + "-wal", &status) != 0 || Int(status.st_size) <= smallLogLimit
  }

  /// Lets the process exit without closing the connection where closing would only close it:
  /// the log is left as it is either way (see ``leaveSmallLogOnClose(upTo:)``), and the system
  /// releases the file and its locks as the process ends, which costs the process nothing,
  /// where closing takes time of every command. A log closing would copy into the file is
  /// still copied as the last reference goes. Call it only as the process leaves: the
  /// connection then stays open, and usable, until it ends.
  package func leaveOpenForExit() {
    guard logIsLeftOnClose else { return }
    _ = Unmanaged.passRetained(self)
  }

  /// Defines a deterministic SQL function of one text argument on this connection, for SQL
  /// that needs the program's own logic (a migration that folds names as the program does). A
  /// NULL argument gives NULL.
  ///
  /// - Parameters:
  ///   - name: The function's name in SQL.
  ///   - body: The function.
  /// - Throws: ``SQLiteError`` when it cannot be defined.
  package func defineFunction(_ name: String, _ body: @escaping @Sendable (String) -> String)
    throws
  {
    let box = Unmanaged.passRetained(TextFunction(body)).toOpaque()
    let status = sqlite3_create_function_v2(
      handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
      { context, count, values in
        guard let context, count == 1, let value = values?[0],
          let text = sqlite3_value_text(value)
        else { return sqlite3_result_null(context) }
        let length = Int(sqlite3_value_bytes(value))
        let argument = String(
          decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self)
        let function = Unmanaged<TextFunction>.fromOpaque(sqlite3_user_data(context))
        var result = function.takeUnretainedValue().body(argument)
        result.withUTF8 { bytes in
          bytes.withMemoryRebound(to: CChar.self) { characters in
            guard let start = characters.baseAddress else {
              return sqlite3_result_text64(context, "", 0, nil, UInt8(SQLITE_UTF8))
            }
            sqlite3_result_text64(
              context, start, UInt64(characters.count), csqlite_transient(), UInt8(SQLITE_UTF8))
          }
        }
      }, nil, nil, { box in box.map { Unmanaged<TextFunction>.fromOpaque($0).release() } })
    guard status == SQLITE_OK else { throw lastError }
  }

  /// Runs SQL that returns no rows; several statements may be separated by semicolons.
  ///
  /// - Parameter sql: The SQL.
  /// - Throws: ``SQLiteError``.
  package func execute(_ sql: String) throws {
    var message: UnsafeMutablePointer<CChar>?
    let status = sqlite3_exec(handle, sql, nil, nil, &message)
    defer { sqlite3_free(message) }
    guard status == SQLITE_OK else { throw lastError }
  }

  /// A prepared statement for SQL, reused when the same SQL is asked for again.
  ///
  /// - Parameter sql: One SQL statement, with `?` parameters.
  /// - Returns: The statement, reset and with its bindings cleared.
  /// - Throws: ``SQLiteError`` when it does not compile.
  package func statement(_ sql: String) throws -> Statement {
    if let cached = cache[sql] {
      cached.reset()
      return cached
    }
    var pointer: OpaquePointer?
    guard
      sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        == SQLITE_OK, let pointer
    else { throw lastError }
    let statement = Statement(pointer, database: self)
    cache[sql] = statement
    return statement
  }

  /// The value of the first column of the first row of a query, as an integer.
  ///
  /// - Parameters:
  ///   - sql: The query.
  ///   - values: Its parameters.
  /// - Returns: The value, or nil when there is no row or it is NULL.
  /// - Throws: ``SQLiteError``.
  package func integer(_ sql: String, _ values: SQLiteValue...) throws -> Int? {
    try firstValue(sql, values) { $0.integer(0) }
  }

  /// The first column of the first row of a query, as a real number.
  ///
  /// - Parameters:
  ///   - sql: The query.
  ///   - values: Its parameters.
  /// - Returns: The value, or nil when there is no row or it is NULL.
  /// - Throws: ``SQLiteError``.
  package func double(_ sql: String, _ values: SQLiteValue...) throws -> Double? {
    try firstValue(sql, values) { $0.double(0) }
  }

  /// The first column of the first row of a query, read by `read`; nil when there is no row
  /// or it is NULL.
  private func firstValue<Value>(
    _ sql: String, _ values: [SQLiteValue], _ read: (Statement) -> Value
  ) throws -> Value? {
    let statement = try statement(sql)
    // Reset at once: a statement left on a row keeps its read transaction open.
    defer { statement.reset() }
    try statement.bind(values)
    guard try statement.step(), !statement.isNull(0) else { return nil }
    return read(statement)
  }

  /// Runs one statement that returns no rows.
  ///
  /// - Parameters:
  ///   - sql: The statement.
  ///   - values: Its parameters.
  /// - Throws: ``SQLiteError``.
  package func run(_ sql: String, _ values: SQLiteValue...) throws {
    let statement = try statement(sql)
    defer { statement.reset() }
    try statement.bind(values)
    while try statement.step() {}
  }

  /// Runs a body in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`), so
  /// that what it reads cannot change before it writes; committed when the body returns,
  /// rolled back when it throws.
  ///
  /// - Parameter body: The work.
  /// - Returns: What the body returns.
  /// - Throws: What the body throws, or ``SQLiteError`` when the commit fails (a full disk).
  package func writeTransaction<Result>(_ body: () throws -> Result) throws -> Result {
    try execute("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
      throw error
    }
  }

  /// Runs a body in one read transaction, so that its statements see one snapshot; inside a
  /// transaction already begun, in that one.
  ///
  /// - Parameter body: The reads.
  /// - Returns: What the body returns.
  /// - Throws: What the body throws, or ``SQLiteError``.
  package func readTransaction<Result>(_ body: () throws -> Result) throws -> Result {
    guard sqlite3_get_autocommit(handle) != 0 else { return try body() }
    try execute("BEGIN")
    defer { try? execute("COMMIT") }
    return try body()
  }

  /// Runs a body while SQLite asks `shouldStop` every so many virtual-machine instructions:
  /// when it answers true, the statement running fails with `SQLITE_INTERRUPT` (and a write
  /// transaction is rolled back by its caller).
  ///
  /// - Parameters:
  ///   - instructions: How often to ask.
  ///   - shouldStop: The question.
  ///   - body: The work.
  /// - Returns: What the body returns.
  package func checking<Result>(
    every instructions: Int32, _ shouldStop: () -> Bool, _ body: () throws -> Result
  ) rethrows -> Result {
    try withoutActuallyEscaping(shouldStop) { shouldStop in
      let box = StopCheck(shouldStop)
      sqlite3_progress_handler(
        handle, instructions,
        { context in
          guard let context else { return 0 }
          return Unmanaged<StopCheck>.fromOpaque(context).takeUnretainedValue().ask() ? 1 : 0
        }, Unmanaged.passUnretained(box).toOpaque())
      defer { sqlite3_progress_handler(handle, 0, nil, nil) }
      return try withExtendedLifetime(box) { try body() }
    }
  }

  /// The name of the VFS the database was opened through.
  package var vfsName: String? {
    var vfs: UnsafeMutablePointer<sqlite3_vfs>?
    guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) == SQLITE_OK,
      let name = vfs?.pointee.zName
    else { return nil }
    return String(cString: name)
  }

  /// Keeps the write-ahead log and its index when the last connection closes, so that the
  /// next one does not create them again (`SQLITE_FCNTL_PERSIST_WAL`).
  package func keepWriteAheadLog() {
    var on: Int32 = 1
    sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &on)
  }

  /// The size of write-ahead log the app's databases leave as it is at exit
  /// (``leaveSmallLogOnClose(upTo:)``): 256 KiB, some twenty one-product edits, small enough
  /// that a launch reading it back does not notice.
  package static let smallLog = 256 * 1024

  /// Whether closing the last connection copies the write-ahead log into the database file
  /// (SQLite's default). Off for a file not yet checked, or found damaged, which must not be
  /// written: the log is then left as it is.
  ///
  /// Only recorded here, and given to SQLite as the connection closes: SQLite's setting, when
  /// it changes, expires the connection's prepared statements.
  package func checkpointOnClose(_ enabled: Bool) {
    mayCheckpointOnClose = enabled
  }

  /// Leaves a write-ahead log of at most `bytes` as it is when the connection closes, for the
  /// next connection to read, rather than copying it into the file: a program that makes one
  /// change and exits then flushes its change once, not three times more (the log's new header,
  /// the log before the copy, the file after it). A larger log is copied and emptied as the
  /// last connection closes, so that no launch reads a long log to rebuild its index. Use with
  /// ``keepWriteAheadLog()``; ``checkpointOnClose(_:)`` with false still leaves any log.
  ///
  /// - Parameter bytes: The largest log left, in bytes.
  package func leaveSmallLogOnClose(upTo bytes: Int) {
    smallLogLimit = bytes
  }

  /// Whether the connection can only read: opened so, or opened for writing a file or in a
  /// directory this process may not write.
  package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

  /// The rows the last statement changed.
  package var changes: Int { Int(sqlite3_changes64(handle)) }

  /// The last error on this connection; for a failed read or write of a file, the operating
  /// system's reason (`No space left on device`).
  package var lastError: SQLiteError {
    let code = sqlite3_extended_errcode(handle)
    var message = String(cString: sqlite3_errmsg(handle))
    let systemError = sqlite3_system_errno(handle)
    if code & 0xFF == SQLITE_FULL || code & 0xFF == SQLITE_IOERR, systemError != 0 {
      message = String(cString: strerror(systemError)) + " (\(message))"
    } else if code & 0xFF == SQLITE_FULL {
      message = String(cString: strerror(ENOSPC)) + " (\(message))"
    }
    return SQLiteError(extendedCode: code, message: message)
  }
}

/// A value bound to a statement's parameter.
package enum SQLiteValue: Sendable, Hashable {
  case integer(Int)
  case real(Double)
  case text(String)
  case null
}

/// A prepared statement: bind, step, read columns.
package final class Statement {
  private let handle: OpaquePointer
  private unowned let database: Database

  fileprivate init(_ handle: OpaquePointer, database: Database) {
    self.handle = handle
    self.database = database
  }

  fileprivate func finalize() {
    sqlite3_finalize(handle)
  }

  /// How many times SQLite has prepared the statement again since it was first prepared (a
  /// schema change, or a setting that expires statements).
  package var repreparations: Int {
    Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0))
  }

  /// Resets the statement to run again, clearing its bindings.
  package func reset() {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  /// Binds parameters in order, from the first.
  ///
  /// - Parameter values: The values.
  /// - Throws: ``SQLiteError``.
  package func bind(_ values: [SQLiteValue]) throws {
    for (offset, value) in values.enumerated() {
      switch value {
      case .integer(let number): try bind(number, at: Int32(offset + 1))
      case .real(let number):
        guard sqlite3_bind_double(handle, Int32(offset + 1), number) == SQLITE_OK else {
          throw database.lastError
        }
      case .text(let text): try bind(text, at: Int32(offset + 1))
      case .null:
        guard sqlite3_bind_null(handle, Int32(offset + 1)) == SQLITE_OK else {
          throw database.lastError
        }
      }
    }
  }

  /// Binds an integer to a parameter.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter, from 1.
  /// - Throws: ``SQLiteError``.
  package func bind(_ value: Int, at index: Int32) throws {
    guard sqlite3_bind_int64(handle, index, Int64(value)) == SQLITE_OK else {
      throw database.lastError
    }
  }

  /// Binds text to a parameter; SQLite copies it.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter, from 1.
  /// - Throws: ``SQLiteError``.
  package func bind(_ value: String, at index: Int32) throws {
    var text = value
    let status = text.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { characters in
        guard let start = characters.baseAddress else {
          return sqlite3_bind_text64(handle, index, "", 0, nil, UInt8(SQLITE_UTF8))
        }
        return sqlite3_bind_text64(
          handle, index, start, UInt64(characters.count), csqlite_transient(),
          UInt8(SQLITE_UTF8))
      }
    }
    guard status == SQLITE_OK else { throw database.lastError }
  }

  /// Binds text, or NULL for nil, to a parameter.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter, from 1.
  /// - Throws: ``SQLiteError``.
  package func bind(_ value: String?, at index: Int32) throws {
    guard let value else {
      guard sqlite3_bind_null(handle, index) == SQLITE_OK else { throw database.lastError }
      return
    }
    try bind(value, at: index)
  }

  /// Steps to the next row.
  ///
  /// - Returns: true when a row is ready to read; false when the statement is done.
  /// - Throws: ``SQLiteError``; the statement is then reset.
  package func step() throws -> Bool {
    switch sqlite3_step(handle) {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let error = database.lastError
      sqlite3_reset(handle)
      throw error
    }
  }

  /// Whether a column of the current row is NULL.
  package func isNull(_ column: Int32) -> Bool {
    sqlite3_column_type(handle, column) == SQLITE_NULL
  }

  /// A column of the current row as an integer.
  package func integer(_ column: Int32) -> Int {
    Int(sqlite3_column_int64(handle, column))
  }

  /// A column of the current row as a floating-point number.
  package func double(_ column: Int32) -> Double {
    sqlite3_column_double(handle, column)
  }

  /// The size of a column of the current row, in bytes, as text.
  package func byteCount(_ column: Int32) -> Int {
    _ = sqlite3_column_text(handle, column)
    return Int(sqlite3_column_bytes(handle, column))
  }

  /// The first bytes of a column of the current row as text, cut at a character boundary.
  ///
  /// - Parameters:
  ///   - column: The column.
  ///   - limit: The most bytes to read.
  /// - Returns: The text, whole when it is no longer than `limit`.
  package func textPrefix(_ column: Int32, bytes limit: Int) -> String {
    guard let text = sqlite3_column_text(handle, column) else { return "" }
    let size = Int(sqlite3_column_bytes(handle, column))
    var count = min(limit, size)
    // Back to the start of a character: continuation bytes are 10xxxxxx.
    while count > 0, count < size, text[count] & 0xC0 == 0x80 { count -= 1 }
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  /// A column of the current row as the bytes of its text (empty when NULL), valid until the
  /// statement steps or is reset.
  package func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
    guard let bytes = sqlite3_column_text(handle, column) else {
      return UnsafeBufferPointer(start: nil, count: 0)
    }
    return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column)))
  }

  /// A column of the current row as text (empty when NULL).
  package func text(_ column: Int32) -> String {
    guard let bytes = sqlite3_column_text(handle, column) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(
      decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
  }
}

/// The question a progress handler asks, boxed for SQLite's context pointer.
private final class StopCheck {
  let ask: () -> Bool
  init(_ ask: @escaping () -> Bool) { self.ask = ask }
}

/// A function ``Database/defineFunction(_:_:)`` hands SQLite, kept alive until SQLite lets it
/// go.
private final class TextFunction: Sendable {
  let body: @Sendable (String) -> String

  init(_ body: @escaping @Sendable (String) -> String) {
    self.body = body
  }
}
