import Foundation
import SQLite
import SystemSupport
import TestSupport
import Testing

/// The SQLite layer both databases open through: the file checks before SQLite reads a byte,
/// numbered migrations, and the switch to WAL.
@Suite struct SQLiteLayerTests {
  func makeDatabase(in directory: TemporaryDirectory, name: String = "a.sqlite") throws -> String {
    let path = directory.path + "/" + name
    let database = try Database(path: path, mode: .create)
    try database.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
    return path
  }

  @Test func aWholeDatabasePassesItsFileCheck() throws {
    let directory = TemporaryDirectory()
    try DatabaseFile.check(try makeDatabase(in: directory))
  }

  /// Every database opens through SQLite's own unix VFS, which flushes the directory of a log it
  /// may have created at a connection's first commit (no VFS of ours trades that flush for
  /// speed): commits go on reading back whether the log is kept with a header, emptied by a
  /// checkpoint, or removed by another program.
  @Test func commitsReadBackWhateverStateTheLogIsIn() throws {
    let directory = TemporaryDirectory()
    let path = directory.path + "/logged.sqlite"
    func commit(_ value: Int) throws {
      let database = try Database(path: path, mode: .create)
      #expect(database.vfsName == "unix")
      try database.enableWriteAheadLog()
      database.keepWriteAheadLog()
      database.leaveSmallLogOnClose(upTo: Database.smallLog)
      try database.execute("CREATE TABLE IF NOT EXISTS t(x)")
      try database.run("INSERT INTO t VALUES (?)", .integer(value))
    }
    func values() throws -> Int? {
      try Database(path: path, mode: .readOnly).integer("SELECT sum(x) FROM t")
    }
    func emptyLog() throws {
      let database = try Database(path: path, mode: .readWrite)
      database.keepWriteAheadLog()
      try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
    try commit(1)
    try commit(2)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")).count > 32)
    #expect(try values() == 3)
    try emptyLog()
    #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")).isEmpty)
    try commit(4)
    #expect(try values() == 7)
    try emptyLog()
    try FileManager.default.removeItem(atPath: path + "-wal")
    try commit(8)
    #expect(try values() == 15)
  }

  @Test func filesThatAreNotWholeDatabasesAreRefusedBeforeSQLiteOpensThem() throws {
    let directory = TemporaryDirectory()
    let database = try makeDatabase(in: directory)
    let link = directory.path + "/link.sqlite"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: database)
    #expect(throws: SQLiteError(fileProblem: .symbolicLink)) { try DatabaseFile.check(link) }
    #expect(DatabaseFile.isSymbolicLink(link) && !DatabaseFile.isSymbolicLink(database))

    let folder = directory.path + "/folder.sqlite"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    #expect(throws: SQLiteError(fileProblem: .notRegularFile)) { try DatabaseFile.check(folder) }

    let junk = directory.path + "/junk.sqlite"
    try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: junk))
    #expect(throws: SQLiteError(fileProblem: .notSQLite)) { try DatabaseFile.check(junk) }

    let short = directory.path + "/short.sqlite"
    try Data("SQLite format 3\0".utf8).write(to: URL(fileURLWithPath: short))
    #expect(throws: SQLiteError(fileProblem: .truncated(bytes: 16, needed: 100))) {
      try DatabaseFile.check(short)
    }

    // Cut short after its header: fewer bytes than the pages the header counts.
    let whole = try Data(contentsOf: URL(fileURLWithPath: database))
    let cut = directory.path + "/cut.sqlite"
    try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
    #expect(
      throws: SQLiteError(fileProblem: .truncated(bytes: whole.count / 2, needed: whole.count))
    ) {
      try DatabaseFile.check(cut)
    }

    let empty = directory.path + "/empty.sqlite"
    try Data().write(to: URL(fileURLWithPath: empty))
    #expect(throws: SQLiteError.self) { try DatabaseFile.check(empty) }
    try DatabaseFile.check(empty, beingWritten: true)
    // A file written in place by another process may be shorter than its header says, for now.
    try DatabaseFile.check(cut, beingWritten: true)
    #expect(throws: SQLiteError.self) {
      try DatabaseFile.check(directory.path + "/missing.sqlite")
    }
  }

  /// A log left beside the file at exit (``Database/leaveSmallLogOnClose(upTo:)``) holds the
  /// latest commits: the file may be shorter than the last commit's length only by pages the log
  /// holds (a checkpoint killed halfway), and a file cut short of others is refused.
  @Test func aFileCutShortIsRefusedWhenItsLogHoldsCommits() throws {
    let directory = TemporaryDirectory()
    let path = directory.path + "/logged.sqlite"
    do {
      let database = try Database(path: path, mode: .create)
      try database.execute(
        """
        PRAGMA journal_mode = WAL; CREATE TABLE t(x);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
        INSERT INTO t SELECT randomblob(500) FROM n;
        """)
      try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
      // One small commit, left in the log at exit.
      database.keepWriteAheadLog()
      database.leaveSmallLogOnClose(upTo: Database.smallLog)
      try database.execute("UPDATE t SET x = zeroblob(10) WHERE rowid = 1")
    }
    let log = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
    #expect(log.count > 32 && log.count <= Database.smallLog)
    try DatabaseFile.check(path)
    // The last page is not in the log: the file cut short of it is damaged.
    let whole = try Data(contentsOf: URL(fileURLWithPath: path))
    try whole.prefix(whole.count - 4096).write(to: URL(fileURLWithPath: path))
    #expect(
      throws: SQLiteError(fileProblem: .truncated(bytes: whole.count - 4096, needed: whole.count))
    ) {
      try DatabaseFile.check(path)
    }
    // A commit that grows the file, left in the log: the file is rightly shorter than the
    // commit says, by the pages the log holds.
    try whole.write(to: URL(fileURLWithPath: path))
    do {
      let database = try Database(path: path, mode: .readWrite)
      database.keepWriteAheadLog()
      database.leaveSmallLogOnClose(upTo: Database.smallLog)
      try database.execute("INSERT INTO t VALUES (randomblob(9000))")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == whole.count)
    try DatabaseFile.check(path)
    #expect(try Database(path: path, mode: .readOnly).integer("SELECT count(*) FROM t") == 2001)
  }

  /// A connection left open as the process exits is one whose small log closing would leave
  /// anyway: it stays open. One with a log closing would copy is closed, and its log copied.
  @Test func onlyAConnectionWhoseLogStaysIsLeftOpenForExit() throws {
    let directory = TemporaryDirectory()
    for large in [false, true] {
      let path = directory.path + "/\(large ? "large" : "small").sqlite"
      do {
        let database = try Database(path: path, mode: .create)
        try database.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x)")
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        database.keepWriteAheadLog()
        database.leaveSmallLogOnClose(upTo: 64 * 1024)
        try database.execute(
          "INSERT INTO t SELECT randomblob(\(large ? 200_000 : 500))")
        database.leaveOpenForExit()
      }
      // A copied log's pages are in the file.
      let bytes = try Data(contentsOf: URL(fileURLWithPath: path)).count
      #expect(openDescriptors(of: path) == (large ? 0 : 1), "large: \(large)")
      #expect((bytes > 200_000) == large, "large: \(large)")
      #expect(try Database(path: path, mode: .readOnly).integer("SELECT count(*) FROM t") == 1)
    }
  }

  /// Whether closing copies the log is given to SQLite as the connection closes: SQLite's own
  /// setting, changed earlier, would expire every prepared statement.
  @Test(arguments: [false, true])
  func checkpointOnCloseIsHonouredWithoutPreparingStatementsAgain(_ copies: Bool) throws {
    let directory = TemporaryDirectory()
    let path = directory.path + "/a.sqlite"
    let counting = "SELECT count(*) FROM t"
    do {
      let database = try Database(path: path, mode: .create)
      try database.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x)")
      try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
      database.keepWriteAheadLog()
      let statement = try database.statement(counting)
      database.checkpointOnClose(false)
      #expect(try database.integer(counting) == 0)
      database.checkpointOnClose(copies)
      try database.execute("INSERT INTO t SELECT randomblob(100000)")
      #expect(try database.integer(counting) == 1)
      #expect(statement.repreparations == 0)
    }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path)).count
    #expect((bytes > 100_000) == copies)
    #expect(try Database(path: path, mode: .readOnly).integer(counting) == 1)
  }

  /// A migrator whose steps each run one statement.
  private func migrator(_ steps: [(String, String)]) -> DatabaseMigrator<Database> {
    var migrator = DatabaseMigrator<Database>()
    for (name, sql) in steps {
      migrator.registerMigration(name) { try $0.execute(sql) }
    }
    return migrator
  }

  @Test func migrationsRunInOrderOnceAndRecordTheirVersion() throws {
    let directory = TemporaryDirectory()
    let path = directory.path + "/m.sqlite"
    let steps = [
      ("create the log", "CREATE TABLE log(step TEXT)"),
      ("two", "INSERT INTO log VALUES ('two')"),
      ("three", "INSERT INTO log VALUES ('three')"),
    ]
    #expect(migrator(steps).newestVersion == 3)
    #expect(migrator(steps).migrations.map(\.version) == [1, 2, 3])
    let first = try Database(path: path, mode: .create)
    #expect(try first.migrate(with: migrator(Array(steps.prefix(2)))) == 0)
    #expect(try first.schemaVersion == 2)
    // Another connection that knows a newer step runs only that one.
    let second = try Database(path: path, mode: .readWrite)
    #expect(try second.migrate(with: migrator(steps)) == 2)
    #expect(try second.migrate(with: migrator(steps)) == 3)
    let statement = try second.statement("SELECT group_concat(step, ',') FROM log")
    defer { statement.reset() }
    #expect(try statement.step())
    #expect(statement.text(0) == "two,three")
  }

  @Test func aFailedMigrationLeavesTheSchemaAsItWas() throws {
    let directory = TemporaryDirectory()
    let database = try Database(path: directory.path + "/f.sqlite", mode: .create)
    try database.migrate(with: migrator([("a", "CREATE TABLE a(x)")]))
    #expect(throws: SQLiteError.self) {
      try database.migrate(
        with: migrator([
          ("a", "CREATE TABLE a(x)"), ("b", "CREATE TABLE b(x)"), ("bad", "NOT SQL AT ALL"),
        ]))
    }
    #expect(try database.schemaVersion == 1)
    #expect(try database.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'b'") == 0)
  }

  @Test func aQueueOpensItsConnectionOnceAndAgainForAReplacedFile() throws {
    let directory = TemporaryDirectory()
    let path = directory.path + "/q.sqlite"
    let queue = DatabaseQueue(path: path)
    func count() throws -> Int? {
      try queue.use { (database: inout Database?) in
        if database == nil { database = try Database(path: path, mode: .create) }
        try database?.execute("CREATE TABLE IF NOT EXISTS t(x); INSERT INTO t VALUES (1)")
        return try database?.integer("SELECT count(*) FROM t")
      }
    }
    #expect(try count() == 1)
    #expect(try count() == 2)
    #expect(queue.connectionsOpened == 1)
    #expect(queue.openedFile == FileIdentity(path: path))
    // Another file put at the path is opened, not written through the old connection.
    let other = directory.path + "/other.sqlite"
    try Database(path: other, mode: .create).execute("CREATE TABLE t(x)")
    #expect(rename(other, path) == 0)
    #expect(try count() == 1)
    #expect(queue.connectionsOpened == 2)
    queue.close()
    #expect(queue.openedFile == nil)
    #expect(throws: SQLiteError.self) { try queue.use { try $0.integer("SELECT 1") } }
  }

  @Test func theWriteAheadLogIsTurnedOn() throws {
    let directory = TemporaryDirectory()
    let database = try Database(path: directory.path + "/w.sqlite", mode: .create)
    try database.enableWriteAheadLog()
    let mode = try database.statement("PRAGMA journal_mode")
    defer { mode.reset() }
    #expect(try mode.step())
    #expect(mode.text(0) == "wal")
  }
}
