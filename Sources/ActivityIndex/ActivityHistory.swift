import SQLite
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
#endif

/// The saved activity history: a SQLite database of activities that became current while
/// eligible for search, one row per persistent identifier, or type and target (the newest
/// kept).
///
/// Saving one activity writes one row, in a transaction committed with a full `fsync`, so the
/// history grows to a million entries at the cost of one. Several processes may share the
/// database; SQLite serializes their writes. A database that cannot be read is never written:
/// the error says so, and nothing in it is lost.
public struct ActivityHistory: ActivityStore, Hashable {
  /// The directory holding the database.
  package let directory: StateDirectory
  /// The database's path in the directory.
  package let path: String
  /// The most entries kept; the least recently active go first.
  public let capacity: Int
  /// The connection this history and its copies share, opened at the first use.
  let connection: SharedConnection

  /// The largest write-ahead log a write leaves; a larger one is copied into the file and
  /// emptied.
  static let largestLog = 1 << 20

  /// The schema version of the database (`PRAGMA user_version`): 2 numbers each change, for
  /// the search index file to know what it has not seen.
  package static var schemaVersion: Int { migrator.newestVersion }

  /// Creates the history of a state directory, `activities.sqlite` in it: the directory a
  /// `SessionStore` keeps its scenes in, so that one folder holds a program's state.
  ///
  /// Nothing is read or created until the history is first used.
  ///
  /// - Parameters:
  ///   - path: The state directory.
  ///   - capacity: The most entries kept; the least recently active go first.
  public init(directory path: String, capacity: Int = 1_000_000) {
    self.init(directory: StateDirectory(existing: path), capacity: capacity)
  }

  /// Creates the history of a state directory given as a file URL, `activities.sqlite` in it.
  ///
  /// - Parameters:
  ///   - url: The state directory.
  ///   - capacity: The most entries kept; the least recently active go first.
  public init(directory url: URL, capacity: Int = 1_000_000) {
    self.init(directory: url.directoryPath, capacity: capacity)
  }

  /// Creates a history.
  ///
  /// - Parameters:
  ///   - directory: The directory holding the database.
  ///   - path: The database's path in the directory; `activities.sqlite` by default.
  ///   - capacity: The most entries kept.
  package init(
    directory: StateDirectory, path: String = "activities.sqlite", capacity: Int = 1_000_000
  ) {
    self.directory = directory
    self.path = path
    self.capacity = capacity
    connection = SharedConnection(path: directory.path(of: path))
  }

  /// Whether two histories are of the same file with the same capacity.
  public static func == (left: ActivityHistory, right: ActivityHistory) -> Bool {
    (left.directory, left.path, left.capacity) == (right.directory, right.path, right.capacity)
  }

  /// Hashes what `==` compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(directory)
    hasher.combine(path)
    hasher.combine(capacity)
  }

  /// The saved activities, most recently active first.
  ///
  /// - Returns: The activities; empty when nothing was saved yet.
  /// - Throws: A `StateRestorationError` when the database cannot be read.
  public func records() throws -> [UserActivityRecord] {
    try records(limit: nil)
  }

  /// The most recently active saved activities.
  ///
  /// - Parameter limit: The most returned; nil for all.
  /// - Returns: The activities, most recently active first.
  /// - Throws: A `StateRestorationError` when the database cannot be read.
  public func records(limit: Int?) throws -> [UserActivityRecord] {
    try records(limit: limit, offset: 0)
  }

  /// A page of the saved activities, most recently active first.
  ///
  /// - Parameters:
  ///   - limit: The most returned; nil for all.
  ///   - offset: How many of the most recent to skip.
  /// - Returns: The activities.
  /// - Throws: A `StateRestorationError` when the database cannot be read.
  package func records(limit: Int?, offset: Int) throws -> [UserActivityRecord] {
    try readDatabase { database -> [UserActivityRecord] in
      let statement = try database.statement(
        "SELECT record FROM activities ORDER BY last_active DESC LIMIT ? OFFSET ?")
      defer { statement.reset() }
      try statement.bind([.integer(limit ?? -1), .integer(offset)])
      var records: [UserActivityRecord] = []
      while try statement.step() {
        records.append(try decode(statement.text(0)))
      }
      return records
    } ?? []
  }

  /// What ranking by recency needs of a saved activity, without the rest of it.
  package struct Entry: Sendable, Hashable {
    /// The activity's ``UserActivityRecord/historyKey``.
    package var historyKey: String
    /// Its type.
    package var activityType: String
    /// What it shows.
    package var targetContentIdentifier: String?
    /// When it was last current.
    package var lastActiveDate: Date?
    /// When it stops being returned.
    package var expirationDate: Date?

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - historyKey: The activity's history key.
    ///   - activityType: Its type.
    ///   - targetContentIdentifier: What it shows.
    ///   - lastActiveDate: When it was last current.
    ///   - expirationDate: When it stops being returned.
    package init(
      historyKey: String, activityType: String, targetContentIdentifier: String?,
      lastActiveDate: Date?, expirationDate: Date?
    ) {
      self.historyKey = historyKey
      self.activityType = activityType
      self.targetContentIdentifier = targetContentIdentifier
      self.lastActiveDate = lastActiveDate
      self.expirationDate = expirationDate
    }

    /// The entry of an activity.
    ///
    /// - Parameter record: The activity.
    package init(_ record: UserActivityRecord) {
      self.init(
        historyKey: record.historyKey, activityType: record.activityType,
        targetContentIdentifier: record.targetContentIdentifier,
        lastActiveDate: record.lastActiveDate, expirationDate: record.expirationDate)
    }

    /// Whether the activity has expired at a given time, as
    /// ``UserActivityRecord/isExpired(at:)`` says.
    ///
    /// - Parameter date: The time.
    /// - Returns: Whether its expiration date is at or before `date`.
    package func isExpired(at date: Date) -> Bool {
      expirationDate.map { $0 <= date } ?? false
    }
  }

  /// How many connections to the file this history and its copies have opened.
  package var connectionsOpened: Int { connection.queue.connectionsOpened }

  /// The saved activity with a history key, if there is one.
  ///
  /// - Parameter key: The ``UserActivityRecord/historyKey``.
  /// - Returns: The activity.
  /// - Throws: A `StateRestorationError` when the database cannot be read.
  package func record(historyKey key: String) throws -> UserActivityRecord? {
    try readDatabase { try record(historyKey: key, in: $0) } ?? nil
  }

  /// When an activity of a history key was last known: its entry's `lastActiveDate`, or when
  /// it was deleted, whichever is later. An activity found elsewhere (a scene's file) that is
  /// not newer than this was saved or deliberately forgotten, and must not come back.
  ///
  /// - Parameter key: The ``UserActivityRecord/historyKey``.
  /// - Returns: The time, or nil when the key was never saved nor deleted.
  /// - Throws: A `StateRestorationError` when the database cannot be read.
  package func lastKnownDate(historyKey key: String) throws -> Date? {
    try lastKnownDates(historyKeys: [key])[key]
  }

  /// ``lastKnownDate(historyKey:)`` for several keys, reading the database once: what a
  /// launch asks for every scene it restores.
  ///
  /// - Parameter keys: The ``UserActivityRecord/historyKey``s.
  /// - Returns: The time of each key that has one.
  /// - Throws: A `StateRestorationError` when the database cannot be read.
  package func lastKnownDates(historyKeys keys: some Sequence<String>) throws -> [String: Date] {
    // An array first: iterating a sequence whose type is known only at run time (as
    // `Set(keys)` does) has the runtime build its iterator's type after a search of every
    // protocol conformance in the program.
    let keys = Array(keys)
    return try readDatabase { database -> [String: Date] in
      var dates: [String: Date] = [:]
      var asked: Set<String> = []
      for key in keys where asked.insert(key).inserted {
        dates[key] = try lastKnownDate(historyKey: key, in: database)
      }
      return dates
    } ?? [:]
  }

  private func lastKnownDate(historyKey key: String, in database: Database) throws -> Date? {
    let saved = try database.double(
      "SELECT last_active FROM activities WHERE history_key = ?", .text(key)
    ).map { Date(timeIntervalSinceReferenceDate: $0) }
    let statement = try database.statement(
      "SELECT max(coalesce((SELECT deleted FROM forgotten WHERE history_key = ?), -1e300), coalesce((SELECT value FROM history_info WHERE key = 'all_deleted'), -1e300))"
    )
    defer { statement.reset() }
    try statement.bind([.text(key)])
    let deletedTime = try statement.step() ? statement.double(0) : -1e300
    let deleted = deletedTime > -1e299 ? Date(timeIntervalSinceReferenceDate: deletedTime) : nil
    switch (saved, deleted) {
    case (let saved?, let deleted?): return max(saved, deleted)
    case (let saved?, nil): return saved
    default: return deleted
    }
  }

  private func record(historyKey key: String, in database: Database) throws -> UserActivityRecord? {
    let statement = try database.statement("SELECT record FROM activities WHERE history_key = ?")
    defer { statement.reset() }
    try statement.bind([.text(key)])
    return try statement.step() ? try decode(statement.text(0)) : nil
  }

  /// The number of saved activities.
  ///
  /// - Throws: A `StateRestorationError` when the database cannot be read.
  public func count() throws -> Int {
    try readDatabase { try Self.count(in: $0) } ?? 0
  }

  /// Saves an activity, replacing the entry with the same history key; past the capacity, the
  /// least recently active entry goes.
  ///
  /// - Parameter record: The activity.
  /// - Throws: A `StateRestorationError` when the database cannot be read or written.
  /// - Complexity: O(log *n*) in the number of entries.
  public func save(_ record: UserActivityRecord) throws {
    try writeDatabase { database in
      try Self.insert(record, into: database, capacity: capacity)
    }
  }

  /// Deletes the saved activities with the given persistent identifiers, like
  /// `NSUserActivity.deleteSavedUserActivities(withPersistentIdentifiers:)`.
  ///
  /// - Parameter identifiers: The persistent identifiers.
  /// - Throws: A `StateRestorationError` when the database cannot be read or written.
  public func delete(persistentIdentifiers identifiers: some Sequence<String>) throws {
    let identifiers = Array(Set(identifiers))
    guard !identifiers.isEmpty else { return }
    let now = Date().timeIntervalSinceReferenceDate
    try writeDatabase { database in
      var removed = 0
      for identifier in identifiers {
        let keys = try database.statement(
          "SELECT history_key FROM activities WHERE persistent_identifier = ?")
        defer { keys.reset() }
        try keys.bind([.text(identifier)])
        var deletedKeys = [identifier]
        while try keys.step() { deletedKeys.append(keys.text(0)) }
        for key in Set(deletedKeys) {
          try database.run(
            "INSERT OR REPLACE INTO forgotten(history_key, deleted) VALUES (?, ?)", .text(key),
            .real(now))
        }
        try database.run(
          "DELETE FROM activities WHERE persistent_identifier = ?", .text(identifier))
        removed += database.changes
      }
      try Self.adjustCount(by: -removed, in: database)
      try Self.recordChanges(removed, in: database)
    }
  }

  /// Deletes every saved activity, like `NSUserActivity.deleteAllSavedUserActivities()`.
  ///
  /// - Throws: A `StateRestorationError` when the database cannot be written.
  public func deleteAll() throws {
    let now = Date().timeIntervalSinceReferenceDate
    try writeDatabase { database in
      try database.run("DELETE FROM activities")
      try Self.recordChanges(database.changes, in: database)
      try database.run("DELETE FROM forgotten")
      try database.run("UPDATE history_info SET value = 0 WHERE key = 'count'")
      try database.run(
        "INSERT OR REPLACE INTO history_info(key, value) VALUES ('all_deleted', ?)", .real(now))
    }
  }

  /// Saves many activities in one transaction, each unless the history last knew its key
  /// (``lastKnownDate(historyKey:)``: saved, or deliberately forgotten) at its date or later:
  /// what importing another history, or activities kept elsewhere meanwhile, needs at the cost
  /// of one flush.
  ///
  /// - Parameter records: The activities, oldest first, so that a newer one of a key wins.
  /// - Returns: How many were saved.
  /// - Throws: A `StateRestorationError` when the database cannot be read or written; nothing
  ///   was saved then.
  @discardableResult
  package func importRecords(_ records: [UserActivityRecord]) throws -> Int {
    var saved = 0
    try writeDatabase { database in
      saved = 0
      for record in records {
        if let known = try lastKnownDate(historyKey: record.historyKey, in: database),
          known >= record.lastActiveDate ?? .distantPast
        {
          continue
        }
        try Self.insert(record, into: database, capacity: capacity)
        saved += 1
      }
    }
    return saved
  }

  /// Closes the connection this history and its copies share, copying the write-ahead log into
  /// the database as the last connection to it closes; the next call opens it again. For the
  /// end of a process, so that it leaves one file behind.
  package func close() {
    connection.queue.close()
  }

  /// Lets go of the connection as the process exits: one whose log closing would leave as it is
  /// is left for the system to release (see `Database.leaveOpenForExit()`); another is closed.
  package func closeForExit() {
    connection.queue.close(forExit: true)
  }

  /// Moves a database that cannot be read to quarantine, with its write-ahead log, so that the
  /// history starts empty; its shared-memory index, which holds nothing of its own, is removed.
  ///
  /// - Returns: Where the database went.
  /// - Throws: A `StateRestorationError` when it cannot be moved.
  @discardableResult
  package func setAside() throws -> String {
    connection.queue.close()
    let date = Date()
    // A log with commits goes with the file; an empty one is only what opening it created.
    var log = stat()
    if lstat(directory.path(of: path + "-wal"), &log) == 0 {
      if log.st_size > 0 || (log.st_mode & S_IFMT) != S_IFREG {
        _ = try? directory.quarantine(path + "-wal", at: date)
      } else {
        unlink(directory.path(of: path + "-wal"))
      }
    }
    unlink(directory.path(of: path + "-shm"))
    return try StateRestorationError.translating { try directory.quarantine(path, at: date) }
  }

  // MARK: - The database

  private static let schema = """
    CREATE TABLE IF NOT EXISTS activities(
      history_key TEXT PRIMARY KEY NOT NULL,
      persistent_identifier TEXT,
      last_active REAL NOT NULL,
      record TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS activities_last_active ON activities(last_active);
    CREATE INDEX IF NOT EXISTS activities_persistent_identifier
      ON activities(persistent_identifier);
    CREATE TABLE IF NOT EXISTS history_info(key TEXT PRIMARY KEY NOT NULL, value NOT NULL)
      WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS forgotten(history_key TEXT PRIMARY KEY NOT NULL, deleted REAL NOT NULL)
      WITHOUT ROWID;
    INSERT OR IGNORE INTO history_info VALUES ('count', 0);
    """

  /// Version 2: each row has the number of the change that last wrote it, and the history a
  /// counter of changes (deletions included) and a random identity: what the search index file
  /// is built at and checked against. Adding a column leaves every row where it is.
  private static let changeNumbers = """
    ALTER TABLE activities ADD COLUMN change INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX IF NOT EXISTS activities_change ON activities(change);
    INSERT OR IGNORE INTO history_info VALUES ('change', 0);
    INSERT OR IGNORE INTO history_info VALUES ('id', random() & 9223372036854775807);
    """

  /// The history's schema.
  private static let migrator: DatabaseMigrator<Database> = {
    var migrator = DatabaseMigrator<Database>()
    migrator.registerMigration("create activities") { try $0.execute(schema) }
    migrator.registerMigration("number changes") { try $0.execute(changeNumbers) }
    return migrator
  }()

  private static func timestamp(_ date: Date?) -> Double {
    (date ?? .distantPast).timeIntervalSinceReferenceDate
  }

  /// Decodes a stored activity.
  func decode(_ text: String) throws -> UserActivityRecord {
    do {
      return try UserActivityRecord(json: JSONValue(parsing: text.utf8))
    } catch {
      throw StateRestorationError.malformed(
        path: directory.path(of: path), detail: "a saved activity does not decode")
    }
  }

  private static func count(in database: Database) throws -> Int {
    // Another program may have written any number: a count is never below zero.
    max(0, try database.integer("SELECT value FROM history_info WHERE key = 'count'") ?? 0)
  }

  /// Counts changes, and returns the number of the last.
  @discardableResult
  private static func recordChanges(_ count: Int, in database: Database) throws -> Int {
    try database.run(
      "UPDATE history_info SET value = value + ? WHERE key = 'change'", .integer(max(0, count)))
    return try database.integer("SELECT value FROM history_info WHERE key = 'change'") ?? 0
  }

  private static func adjustCount(by delta: Int, in database: Database) throws {
    guard delta != 0 else { return }
    try database.run(
      "UPDATE history_info SET value = max(0, value + ?) WHERE key = 'count'", .integer(delta))
  }

  private static func insert(_ record: UserActivityRecord, into database: Database, capacity: Int)
    throws
  {
    let text = String(decoding: record.json.serialized(sortingKeys: true), as: UTF8.self)
    let key = record.historyKey
    let identifier = record.persistentIdentifier.map(SQLiteValue.text) ?? .null
    let lastActive = SQLiteValue.real(timestamp(record.lastActiveDate))
    // An entry of the key is changed in place, its identifier only when it differs: replacing
    // the row would rewrite its entry in every index, pages the log then carries and every
    // process that opens the history reads back.
    let existing = try database.statement(
      "SELECT persistent_identifier IS ? FROM activities WHERE history_key = ?")
    let sameIdentifier: Bool?
    do {
      defer { existing.reset() }
      try existing.bind([identifier, .text(key)])
      sameIdentifier = try existing.step() ? existing.integer(0) == 1 : nil
    }
    let change = SQLiteValue.integer(try recordChanges(1, in: database))
    switch sameIdentifier {
    case true?:
      try database.run(
        "UPDATE activities SET last_active = ?, record = ?, change = ? WHERE history_key = ?",
        lastActive, .text(text), change, .text(key))
      return
    case false?:
      try database.run(
        "UPDATE activities SET persistent_identifier = ?, last_active = ?, record = ?, change = ? WHERE history_key = ?",
        identifier, lastActive, .text(text), change, .text(key))
      return
    case nil:
      try database.run(
        "INSERT INTO activities(history_key, persistent_identifier, last_active, record, change) VALUES (?, ?, ?, ?, ?)",
        .text(key), identifier, lastActive, .text(text), change)
    }
    try adjustCount(by: 1, in: database)
    let excess = try count(in: database) - capacity
    if excess > 0 {
      try database.run(
        "DELETE FROM activities WHERE history_key IN (SELECT history_key FROM activities ORDER BY last_active LIMIT ?)",
        .integer(excess))
      let evicted = database.changes
      try adjustCount(by: -evicted, in: database)
      try recordChanges(evicted, in: database)
    }
  }

  /// Runs a body on the database; nil when it does not exist yet (or has no tables yet).
  ///
  /// The connection is kept for the next call while the file at the path is the same one; a
  /// file another process moved away or replaced is opened again. It is opened for writing
  /// too where it can be, so that a process that reads and then saves opens the file once;
  /// but nothing is written through it until the file is known to be a history of this
  /// version: a file that is not one, or is damaged, stays the bytes it was (no log copied into
  /// it) for quarantine to keep.
  ///
  /// A history of an earlier version is read as it is, and brought to this one where it can be
  /// written.
  func readDatabase<Result>(_ body: (Database) throws -> Result) throws -> Result? {
    let file = directory.path(of: path)
    do {
      return try connection.use { cached in
        if let database = cached {
          // Another process may have upgraded it meanwhile past this program.
          guard try checkVersion(database, file) >= 1 else {
            cached = nil
            return nil
          }
          return try body(database)
        }
        guard FileManager.default.fileExists(atPath: file) || DatabaseFile.isSymbolicLink(file)
        else { return nil }
        try checkFile(file)
        // A file a writer created but has not given its tables yet holds nothing.
        guard let database = try openExisting(file) else { return nil }
        cached = database
        return try body(database)
      }
    } catch let error as SQLiteError {
      // A full disk or a read-only directory is not damage: the file is kept as it is.
      guard error.isDamage else {
        throw StateRestorationError.unavailable(path: file, reason: error.description)
      }
      throw StateRestorationError.malformed(path: file, detail: error.description)
    }
  }

  /// Opens the connection to an existing history of this version before its first use,
  /// reading only: for a launch with time to spare, waiting on a server. A file that is
  /// missing, of an earlier version, damaged or that cannot be opened now is left as it is, for
  /// the first use to open (and migrate, or report) as it would have.
  package func openInAdvance() {
    let file = directory.path(of: path)
    _ = try? connection.use { cached in
      guard cached == nil, FileManager.default.fileExists(atPath: file) else { return }
      try checkFile(file)
      cached = try openExisting(file, migrating: false)
    }
  }

  /// Runs a write transaction, creating the database 0600 when missing.
  private func writeDatabase(_ body: (Database) throws -> Void) throws {
    let file = directory.path(of: path)
    do {
      try connection.use(writable: true) { cached in
        let database = try cached ?? self.open(creating: true)
        cached = database
        try database.writeTransaction { try body(database) }
        // A program that saves once a run and exits never closes its connection, which would
        // copy the log into the file; the next run's SQLite reads the whole log back, and it
        // only grows. Past this size it is copied in and emptied now, unless another
        // connection reads it (a later write does it then).
        var log = stat()
        if lstat(file + "-wal", &log) == 0, Int(log.st_size) > Self.largestLog {
          database.emptyLogIfFree()
        }
      }
    } catch let error as SQLiteError {
      if error.isDamage {
        throw StateRestorationError.malformed(path: file, detail: error.description)
      }
      throw StateRestorationError.cannotWrite(path: file, reason: error.description)
    }
  }

  /// Opens an existing history for reading and, where the file and its directory allow,
  /// writing; a connection that can write is set up for it only once the file is known to be
  /// a history of this version.
  ///
  /// - Parameters:
  ///   - file: The database file.
  ///   - migrating: Whether a history of an earlier version is brought to this one; without,
  ///     it is not opened.
  /// - Returns: The connection; nil when the file holds no history yet (a writer has created
  ///   it but not given it its tables), or one of an earlier version not to be migrated.
  /// - Throws: ``SQLiteError`` when the file cannot be opened or read, or is damaged; a
  ///   ``StateRestorationError`` for a file that is not a history this program reads.
  private func openExisting(_ file: String, migrating: Bool = true) throws -> Database? {
    do {
      let database = try Database(path: file, mode: .readWrite)
      database.checkpointOnClose(false)
      let version = try checkVersion(database, file)
      guard version >= 1, migrating || version == Self.schemaVersion else { return nil }
      if !database.isReadOnly {
        if version < Self.schemaVersion { try database.migrate(with: Self.migrator) }
        try configureForWriting(database)
      }
      return database
    } catch let error as SQLiteError where !error.isDamage {
      // A read-only directory, where the log cannot be created: reading alone may still work.
      let database = try Database(path: file, mode: .readOnly)
      return try checkVersion(database, file) >= 1 ? database : nil
    }
  }

  private func open(creating: Bool) throws -> Database {
    let file = directory.path(of: path)
    let isNew = !FileManager.default.fileExists(atPath: file) && !DatabaseFile.isSymbolicLink(file)
    if !isNew { try checkFile(file) }
    // A history made before its program's session is in a state directory made for it, 0700.
    if isNew && creating {
      try StateRestorationError.translating { try DurableFile.createDirectory(directory.path) }
    }
    let database = try Database(path: file, mode: creating ? .create : .readWrite)
    if isNew { chmod(file, 0o600) }
    if try checkVersion(database, file) < Self.schemaVersion {
      // Several processes may create it at once: the schema under the write lock (waiting
      // for it), then the switch to WAL, retried while another connection holds the file.
      try database.migrate(with: Self.migrator)
      try database.enableWriteAheadLog()
    }
    try configureForWriting(database)
    return database
  }

  /// Full flushes, and as the catalog's: the log kept between runs, a small one left as it is
  /// at exit.
  private func configureForWriting(_ database: Database) throws {
    try database.execute("PRAGMA synchronous = FULL; PRAGMA journal_size_limit = 4194304")
    database.keepWriteAheadLog()
    database.leaveSmallLogOnClose(upTo: Database.smallLog)
    database.checkpointOnClose(true)
  }

  /// The file's schema version, after checking that it is one this program reads and that a
  /// file of a later version is an activity history at all (another program's database, such
  /// as the catalog, is not one of a newer version).
  ///
  /// - Returns: The version: 0 for a file not yet given its tables.
  /// - Throws: ``StateRestorationError/newerFormatVersion(path:found:supported:)`` or
  ///   ``StateRestorationError/malformed(path:detail:)``.
  private func checkVersion(_ database: Database, _ file: String) throws -> Int {
    // One snapshot: another process may be giving a new file its tables meanwhile.
    let (version, tables, others) = try database.readTransaction {
      let version = try database.integer("PRAGMA user_version") ?? 0
      // The history's tables and everything in the file, in one statement.
      let schema = try database.statement(
        "SELECT count(*) FILTER (WHERE type = 'table' AND name IN ('activities', 'history_info')), count(*) FROM sqlite_schema"
      )
      defer { schema.reset() }
      guard try schema.step() else { return (version, 0, 0) }
      return (version, schema.integer(0), schema.integer(1))
    }
    guard tables == 2 || (version == 0 && others == 0) else {
      throw StateRestorationError.malformed(path: file, detail: "it is not an activity history")
    }
    if version > Self.schemaVersion {
      throw StateRestorationError.newerFormatVersion(
        path: file, found: version, supported: Self.schemaVersion)
    }
    return version
  }

  /// Refuses a link, or a file that is not a SQLite database; the processes that share the
  /// history create and write it in place, so an empty file or one shorter than its header
  /// says is one being written.
  private func checkFile(_ file: String) throws {
    do {
      try DatabaseFile.check(file, beingWritten: true)
    } catch {
      switch error.fileProblem {
      case .symbolicLink:
        throw StateRestorationError.cannotRead(
          path: file, reason: "it is a symbolic link; remove it and try again")
      case .unreadable, .notRegularFile:
        throw StateRestorationError.cannotRead(path: file, reason: error.description)
      default:
        throw StateRestorationError.malformed(path: file, detail: error.description)
      }
    }
  }
}

/// What the copies of an ``ActivityHistory`` share: the connection to its database, opened at
/// the first use, and the search index the last search used.
final class SharedConnection: Sendable {
  /// The connection.
  let queue: DatabaseQueue
  /// The search index the last search used, with the changes it had laid over it.
  let searchIndex = Mutex<ActivitySearchIndex?>(nil)

  init(path: String) {
    queue = DatabaseQueue(path: path)
  }

  /// Runs a body with the connection, or nil when there is none for the file at the path as it
  /// is now; the body opens one by setting it. A connection that cannot write is dropped for a
  /// body that writes; one whose body fails is dropped too, closing without copying its log into
  /// the file (what failed may be damage).
  func use<Result>(writable: Bool = false, _ body: (inout Database?) throws -> Result) throws
    -> Result
  {
    try queue.use { database in
      if writable, database?.isReadOnly == true { database = nil }
      do {
        return try body(&database)
      } catch {
        database?.checkpointOnClose(false)
        database = nil
        throw error
      }
    }
  }
}
