import CatalogModel
import Foundation
import SQLite
import StateRestoration
import Synchronization
import SystemSupport

/// The user's catalog in SQLite: one row a product, prices in whole cents, list numbers in a
/// dense `position` column, and indexes for every lookup the app makes.
///
/// Reads are single indexed queries; writes are transactions that take SQLite's write lock
/// (`BEGIN IMMEDIATE`, waiting for another process's transaction rather than failing), in WAL
/// mode with `synchronous=FULL`, so a change is durable when the call returns.
///
/// Safe to share between threads: the connection and the cached counts are each behind a lock.
package final class CatalogDatabase: CatalogStorage, Sendable {
  /// The database file's path.
  package let path: String
  /// The database file's path, for messages.
  package var location: String { path }
  private let connection: DatabaseQueue
  /// The columns a product is read from: an older database opened for reading only has no
  /// `image_directory`.
  private let columns: String
  /// How list numbers are found from positions.
  private let numbering: ListNumbering
  /// The counts and identity last read, and what the last read found wrong.
  private let state: Mutex<State>
  private let verification = Verification()
  private let skipped = SkippedRows()
  /// The write-ahead log this connection has open, as found after opening and after each of its
  /// commits: SQLite keeps its log open, so a log deleted or replaced since would take the
  /// commits it holds with it. Nil before there is one.
  private let logIdentity = Mutex<CatalogFileStamp.File?>(nil)

  private struct State {
    var generation = 0
    var count = 0
    var identity: UInt64?
    var isSeeded = false
    var isMigrated = false
    var failures = ReadFailures()
    /// SQLite's `data_version` in the snapshot the rest was read in: while the connection
    /// answers the same, no other connection has committed since. Nil once this connection
    /// has written, or a read failed: the state is then read again.
    var dataVersion: Int?
  }

  static let createIndexes = """
    CREATE UNIQUE INDEX products_identifier ON products(identifier);
    CREATE UNIQUE INDEX products_position ON products(position);
    CREATE INDEX products_folded_name ON products(folded_name);
    CREATE INDEX products_year ON products(year, position);
    CREATE INDEX products_changed ON products(changed);
    """
  static let dropIndexes = """
    DROP INDEX products_identifier; DROP INDEX products_position;
    DROP INDEX products_folded_name; DROP INDEX products_year; DROP INDEX products_changed;
    """

  /// The columns a product is read from, in the order ``product(_:)`` reads them.
  private static let productColumns =
    "identifier, name, image_name, year, price_cents, keywords, image_directory"
  /// The same from a version-2 database opened for reading only, which has no directories.
  private static let productColumnsBeforeVersionThree =
    "identifier, name, image_name, year, price_cents, keywords, NULL"

  /// Opens an existing catalog database.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - readOnly: Whether to open it for reading only; otherwise it is put in WAL mode with
  ///     `synchronous=FULL`.
  ///   - willUpgrade: Called with the number of products before a file of an earlier version
  ///     is upgraded for writing, once, in one transaction (about a second a million products):
  ///     for a note on a terminal.
  /// - Throws: ``CatalogError`` when it is not a catalog database this program can use.
  package init(
    path: String, readOnly: Bool = false, willUpgrade: ((_ products: Int) -> Void)? = nil
  ) throws {
    do {
      try DatabaseFile.check(path)
    } catch {
      throw CatalogError.damaged(error.description)
    }
    let database: Database
    var hasImageDirectory = true
    var numbering = ListNumbering(dense: false)
    var cached = State()
    do {
      // One connection, the process's only one to the file. Until the file is known to be a
      // catalog this program can use, nothing is written through it: a database refused here
      // is never written, not even by SQLite copying its log into it as the connection closes.
      database = try Database(path: path, mode: readOnly ? .readOnly : .readWrite)
      database.checkpointOnClose(false)
      let version = try Self.checkSchema(database)
      hasImageDirectory = !readOnly || version >= 3
      // Before version 4, positions are the list numbers; the upgrade adds the block counts,
      // and that to version 7 the group counts.
      numbering.dense = version < 4
      numbering.grouped = version >= 7
      cached = try Self.readState(database, numbering)
      if !readOnly {
        database.checkpointOnClose(true)
        // Statement journals stay in memory: on disk, an import of a million rows wrote each
        // row's pages a second time to a file in /var/tmp.
        // The log is kept between runs (no file created and removed at every launch); a small
        // one is left as it is at exit, so that a one-command edit flushes once, and a larger
        // one emptied: a launch must not replay the log of a large change to find nothing in it.
        try database.enableWriteAheadLog()
        try database.execute(
          "PRAGMA synchronous = FULL; PRAGMA temp_store = MEMORY; PRAGMA journal_size_limit = 4194304"
        )
        database.keepWriteAheadLog()
        database.leaveSmallLogOnClose(upTo: Database.smallLog)
        // Closing may copy the log into the file: a file as this program left it after a
        // check stays recorded so.
        database.closing = { close in
          let wasRecorded =
            CatalogFileStamp.recorded(for: path) == CatalogFileStamp.current(of: path)
          close()
          if wasRecorded { CatalogFileStamp.current(of: path).record(for: path) }
        }
        if version < Self.schemaVersion {
          willUpgrade?(cached.count)
          // Checked again inside the write lock: another process may have upgraded it.
          try Self.migrate(database)
          numbering.dense = false
          numbering.grouped = true
          // The upgrade added the identity.
          cached = try Self.readState(database, numbering)
        }
      }
    } catch let error as SQLiteError {
      throw CatalogError.damaged(error.description)
    }
    self.path = path
    state = Mutex(cached)
    // The file this connection opened: a save into a file deleted or replaced since would go
    // nowhere anyone reads.
    connection = DatabaseQueue(database, path: path)
    self.numbering = numbering
    columns = hasImageDirectory ? Self.productColumns : Self.productColumnsBeforeVersionThree
    logIdentity.withLock { $0 = CatalogFileStamp.current(of: path).log }
  }

  /// Checks that a database is a catalog this program can read, reading only.
  ///
  /// - Returns: Its schema version.
  /// - Throws: ``CatalogError``, or ``SQLiteError`` when it cannot be read.
  private static func checkSchema(_ database: Database) throws -> Int {
    let version = try database.schemaVersion
    if version > Self.schemaVersion {
      throw CatalogError.newerSchema(found: version, supported: Self.schemaVersion)
    }
    guard version >= 1,
      try database.integer(
        "SELECT count(*) FROM sqlite_schema WHERE name IN ('products', 'catalog_info')") == 2
    else {
      throw CatalogError.damaged("it is not a catalog database")
    }
    return version
  }

  /// Reads the generation, the count and the identity; after an error, SQLite's own check
  /// says what is damaged.
  private static func readState(_ database: Database, _ numbering: ListNumbering) throws -> State {
    // One snapshot: another process may be saving meanwhile.
    do {
      return try database.readTransaction { try readStateInSnapshot(database, numbering) }
    } catch let error as SQLiteError {
      let check = try? database.statement("PRAGMA quick_check(1)")
      defer { check?.reset() }
      let verdict = (try? check?.step()) == true ? check?.text(0) : nil
      let reason = error.description
      throw CatalogError.damaged(
        verdict.map { $0 == "ok" ? reason : "\(reason); quick_check: \($0)" } ?? reason)
    }
  }

  private static func readStateInSnapshot(_ database: Database, _ numbering: ListNumbering)
    throws -> State
  {
    let (state, kept) = try readCounters(database, numbering)
    // Generations only grow from 0: a negative one was written by another program.
    guard state.generation >= 0 else {
      throw CatalogError.damaged("its generation, \(state.generation), is negative")
    }
    // A count no file of this size could hold (each row takes more than 40 bytes) is damage,
    // not a count to page through. (Two pragmas: their table-valued forms cost more to prepare
    // than the rest of the launch's reads of the file.)
    let pages = try database.integer("PRAGMA page_count") ?? 0
    let pageSize = try database.integer("PRAGMA page_size") ?? 0
    let (bytes, overflow) = pages.multipliedReportingOverflow(by: pageSize)
    guard state.count >= 0, overflow || state.count <= bytes / 40 else {
      throw CatalogError.damaged(
        "its largest list number, \(state.count), is more than the file could hold")
    }
    if let problem = try numbering.problem(
      in: database, generation: state.generation, count: kept)
    {
      throw CatalogError.damaged(problem)
    }
    return state
  }

  /// Reads the data version, the generation, the count and the identity in the transaction
  /// under way, without checking them.
  ///
  /// - Returns: The state, and the count the file keeps (nil for a file that keeps none, whose
  ///   count is then summed).
  private static func readCounters(_ database: Database, _ numbering: ListNumbering) throws
    -> (state: State, kept: Int?)
  {
    var state = State()
    state.dataVersion = try database.integer("PRAGMA data_version")
    let information = try database.statement("SELECT key, value FROM catalog_info")
    defer { information.reset() }
    var kept: Int?
    while try information.step() {
      switch information.text(0) {
      case "generation": state.generation = information.integer(1)
      case "identity": state.identity = UInt64(bitPattern: Int64(information.integer(1)))
      case "seeded": state.isSeeded = information.integer(1) == 1
      case "migrated": state.isMigrated = information.integer(1) == 1
      case "count": kept = information.integer(1)
      default: break
      }
    }
    // The count version 5 keeps; an older file's is counted.
    state.count = try kept ?? numbering.count(in: database)
    return (state, kept)
  }

  /// Creates a new, empty catalog database at a path where no file exists, atomically: it is
  /// built in a temporary file and renamed into place.
  ///
  /// - Parameter path: The file to create.
  /// - Throws: ``CatalogError`` or a file-system error.
  package static func create(at path: String) throws {
    try create(at: path, filling: false) { _ in }
  }

  /// Creates a new catalog database at a path where no file exists, filled by `building`
  /// before it is renamed into place: a failure or `kill -9` before then leaves no database
  /// (the temporary file is swept at the next launch).
  ///
  /// - Parameters:
  ///   - path: The file to create.
  ///   - building: What to do with the new database before it is put in place.
  /// - Throws: ``CatalogError``, a file-system error, or what `building` throws.
  package static func create(at path: String, building: (CatalogDatabase) throws -> Void)
    throws
  {
    try create(at: path, filling: true, building)
  }

  private static func create(
    at path: String, filling: Bool, _ building: (CatalogDatabase) throws -> Void
  ) throws {
    do {
      let prepared = try DurableFile.prepare(for: path) { temporary in
        do {
          do {
            let database = try Database(path: temporary, mode: .create)
            try database.enableWriteAheadLog()
            try database.execute("PRAGMA synchronous = FULL")
            try migrate(database)
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
          }
          if filling {
            // Closed (and its log copied in) before the rename.
            try Self.buildingUnseen(try CatalogDatabase(path: temporary), building)
          }
        } catch {
          for suffix in ["-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
          CatalogFileStamp.forget(for: temporary)
          // The temporary file is the database being made: the user knows it by its own name.
          if case .cannotWrite(temporary, let reason) = error as? CatalogError {
            throw CatalogError.cannotWrite(path: path, reason: reason)
          }
          throw error
        }
        for suffix in ["-wal", "-shm"] { unlink(temporary + suffix) }
        // The record of the check of the file as it was built, under its temporary name.
        CatalogFileStamp.forget(for: temporary)
      }
      // A log left by a database deleted while a process had it open belongs to that file: it
      // must never be read as the new one's.
      for suffix in ["-wal", "-shm", "-journal"] { unlink(path + suffix) }
      try prepared.commit()
      // Made whole by this program: nothing to check before its first write.
      CatalogFileStamp.current(of: path).record(for: path)
    } catch let error as SQLiteError {
      throw CatalogError.cannotWrite(path: path, reason: error.description)
    } catch SystemError.cannotWrite(_, let reason) {
      throw CatalogError.cannotWrite(path: path, reason: reason)
    }
  }

  /// Fills a database no other process sees yet: without the write-ahead log, so that its pages
  /// are written once rather than into the log and again into the file (at ten million products,
  /// gigabytes), and without syncing, since the whole file is synced before it is put in place
  /// (a failure, or `kill -9`, leaves only the temporary file). Then the log comes back on.
  private static func buildingUnseen(
    _ database: CatalogDatabase, _ building: (CatalogDatabase) throws -> Void
  ) throws {
    try database.reading {
      try $0.execute("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF")
    }
    try building(database)
    try database.reading {
      try $0.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
    }
  }

  /// Lets the process exit without closing the connection where closing would only close it
  /// (see `Database.leaveOpenForExit()`). Call it only as the process leaves.
  package func leaveOpenForExit() {
    connection.ifOpen { $0.leaveOpenForExit() }
  }

  /// Reads the generation and count again, to see what other processes saved; nothing is
  /// read ahead, as a read here costs no round trip.
  ///
  /// - Returns: true when the products changed since the last refresh.
  /// - Throws: ``CatalogError/damaged(_:)`` when they cannot be read.
  @discardableResult
  package func refresh(readingAhead _: CatalogReadAhead) throws -> Bool {
    // Nothing committed since the last read (the usual case between two commands): the
    // counts are not read again, which at ten million products is most of a refresh.
    if let known = state.withLock({ cached in cached.dataVersion }),
      (try? connection.use { try $0.integer("PRAGMA data_version") }) == known
    {
      return false
    }
    let read: State
    do {
      read = try connection.use { try Self.readState($0, numbering) }
    } catch let error as CatalogError {
      state.withLock { cached in
        cached.failures.note(.damaged(error.localizedDescription))
        cached.dataVersion = nil
      }
      throw error
    }
    return adopt(read)
  }

  /// Keeps a state read from the file, what a read failure left aside.
  ///
  /// - Returns: true when the products changed from the state kept before.
  @discardableResult
  private func adopt(_ read: State) -> Bool {
    state.withLock { cached in
      defer {
        (cached.generation, cached.count) = (read.generation, read.count)
        (cached.identity, cached.isSeeded) = (read.identity, read.isSeeded)
        (cached.isMigrated, cached.dataVersion) = (read.isMigrated, read.dataVersion)
      }
      return cached.generation != read.generation || cached.count != read.count
    }
  }

  /// Whether the catalog was given its first products (the bundled ones, an earlier version's
  /// `products.json`, or an import), as of the last read of its state.
  package var isSeeded: Bool { state.withLock { cached in cached.isSeeded } }
  /// Whether the first products came from an earlier version's `products.json`, as of the last
  /// read of its state.
  package var isMigrated: Bool { state.withLock { cached in cached.isMigrated } }

  // MARK: - CatalogSource

  /// A number that changes whenever the products change.
  package var generation: Int { state.withLock { cached in cached.generation } }
  /// A random number made with the database, which tells it from another catalog; nil in a
  /// version-1 database opened for reading only.
  package var identity: UInt64? { state.withLock { cached in cached.identity } }
  /// The number of products.
  package var count: Int { state.withLock { cached in cached.count } }
  /// SQLite's message for a read that failed since the last call, which it clears: reads answer
  /// as if a product were missing, so the app asks after each command and says so.
  ///
  /// - Returns: The message, or nil when every read succeeded.
  package func takeReadFailure() -> CatalogReadFailure? {
    state.withLock { cached in cached.failures.take() }
  }

  /// How many reads failed in this process.
  package var failedReads: Int { state.withLock { cached in cached.failures.count } }

  /// The product with a list number.
  package func product(number: Int) -> Product? {
    products(numbers: number...number).first?.product
  }

  /// The product with an identifier.
  package func product(identifier: UUID) -> Product? {
    query(
      "SELECT \(columns) FROM products WHERE identifier = ?", [.text(identifier.canonicalText)]
    ).first
  }

  /// A product's list number.
  package func number(of identifier: UUID) -> Int? {
    numbers(of: [identifier])[identifier]
  }

  /// The list numbers of many products, in one read transaction with one statement: a search
  /// ranks the products of up to 10,000 saved activities.
  package func numbers(of identifiers: [UUID]) -> [UUID: Int] {
    var numbers: [UUID: Int] = [:]
    _ = try? reading { database in
      try database.readTransaction {
        let statement = try database.statement(
          "SELECT position FROM products WHERE identifier = ?")
        defer { statement.reset() }
        var positions: [UUID: Int] = [:]
        // In the index's order, so that neighbouring lookups read neighbouring pages.
        let keyed = identifiers.map { ($0, $0.canonicalText) }.sorted { $0.1 < $1.1 }
        for (identifier, text) in keyed {
          statement.reset()
          try statement.bind(text, at: 1)
          if try statement.step() { positions[identifier] = statement.integer(0) }
        }
        let byPosition = try numbering.numbers(ofPositions: positions.values, in: database)
        for (identifier, position) in positions { numbers[identifier] = byPosition[position] }
      }
    }
    return numbers
  }

  /// The products with list numbers in a range, in order, each with its number: a row left out
  /// (``takeSkippedRows()``) leaves a gap, not a shift.
  package func products(numbers: ClosedRange<Int>) -> [(number: Int, product: Product)] {
    var result: [(Int, Product)] = []
    _ = try? reading { database in
      try database.readTransaction {
        guard let first = try numbering.position(ofNumber: numbers.lowerBound, in: database) else {
          return
        }
        try page(from: first, number: numbers.lowerBound, limit: numbers.count, in: database) {
          result.append(($0, $1))
        }
      }
    }
    return result
  }

  /// Reads up to `limit` rows in order from a position, which has a list number, calling a
  /// body with each product shown and its number; returns the position after the last row.
  @discardableResult
  private func page(
    from position: Int, number: Int, limit: Int, in database: Database,
    _ body: (Int, Product) throws -> Void
  ) throws -> (position: Int, number: Int)? {
    let statement = try database.statement(
      "SELECT \(columns), position FROM products WHERE position >= ? ORDER BY position LIMIT ?")
    defer { statement.reset() }
    try statement.bind([.integer(position), .integer(limit)])
    var next = number
    var last: Int?
    while try statement.step() {
      if let product = shown(statement) { try body(next, product) }
      last = statement.integer(7)
      next += 1
    }
    return last.map { ($0 + 1, next) }
  }

  /// The number of products.
  package func count(year: Int) -> Int {
    (try? reading { try $0.integer("SELECT count(*) FROM products WHERE year = ?", .integer(year)) })
      .flatMap { $0 } ?? 0
  }

  /// A page of a year's products with their list numbers.
  package func products(year: Int, offset: Int, limit: Int) -> [(number: Int, product: Product)] {
    var result: [(Int, Product)] = []
    _ = try? reading { database in
      try database.readTransaction {
        let statement = try database.statement(
          "SELECT \(columns), position FROM products WHERE year = ? ORDER BY position LIMIT ? OFFSET ?"
        )
        defer { statement.reset() }
        try statement.bind([.integer(year), .integer(limit), .integer(offset)])
        var found: [(Int, Product)] = []
        while try statement.step() {
          if let product = shown(statement) { found.append((statement.integer(7), product)) }
        }
        let numbers = try numbering.numbers(ofPositions: found.map(\.0), in: database)
        result = found.compactMap { position, product in numbers[position].map { ($0, product) } }
      }
    }
    return result
  }

  /// Products by folded name, or by folded-name prefix, in folded-name order.
  package func products(foldedName key: String, exact: Bool, limit: Int) -> [Product] {
    exact
      ? query(
        "SELECT \(columns) FROM products WHERE folded_name = ? ORDER BY folded_name LIMIT ?",
        [.text(key), .integer(limit)])
      : query(
        "SELECT \(columns) FROM products WHERE folded_name >= ? AND folded_name < ? ORDER BY folded_name, position LIMIT ?",
        [.text(key), .text(key + "\u{10FFFF}"), .integer(limit)])
  }

  /// The last product by folded name of those with a folded prefix: one step of the index.
  package func lastProduct(foldedPrefix key: String) -> Product? {
    query(
      "SELECT \(columns) FROM products WHERE folded_name >= ? AND folded_name < ? ORDER BY folded_name DESC, position DESC LIMIT 1",
      [.text(key), .text(key + "\u{10FFFF}")]
    ).first
  }

  /// How many products' folded names start with a folded prefix: one count over an index
  /// range.
  package func count(foldedPrefix key: String) -> Int {
    (try? reading {
      try $0.integer(
        "SELECT count(*) FROM products WHERE folded_name >= ? AND folded_name < ?", .text(key),
        .text(key + "\u{10FFFF}"))
    }).flatMap { $0 } ?? 0
  }

  /// Names that sort near a folded key.
  package func names(near foldedKey: String, limit: Int) -> [String] {
    let half = max(1, limit / 2)
    var names: [String] = []
    _ = try? reading { database in
      for sql in [
        "SELECT name FROM products WHERE folded_name < ? ORDER BY folded_name DESC LIMIT ?",
        "SELECT name FROM products WHERE folded_name >= ? ORDER BY folded_name LIMIT ?",
      ] {
        let statement = try database.statement(sql)
        try statement.bind([.text(foldedKey), .integer(half)])
        while try statement.step() { names.append(statement.text(0)) }
      }
    }
    return names
  }

  /// Calls a body with every product in order, and its list number.
  package func forEachNumberedProduct(_ body: (Int, Product) throws -> Void) rethrows {
    // Pages by position, so that no statement stays open while the body runs, all in one read
    // transaction: what another process saves meanwhile does not shift the pages.
    let began = (try? reading { try $0.execute("BEGIN") }) != nil
    defer { if began { _ = try? reading { try $0.execute("COMMIT") } } }
    try forEachPage(body)
  }

  /// Calls a body with every product in order, and its list number, a page of 1,000 at a
  /// time, in the current transaction.
  private func forEachPage(_ body: (Int, Product) throws -> Void) rethrows {
    var next: (position: Int, number: Int)? = (1, 1)
    while let start = next {
      var products: [(Int, Product)] = []
      next =
        (try? reading { database in
          try page(from: start.position, number: start.number, limit: 1_000, in: database) {
            products.append(($0, $1))
          }
        }) ?? nil
      for (number, product) in products { try body(number, product) }
    }
  }

  /// Calls a body with every product in order and its list number, in one read: as its row's
  /// bytes when they show that it keeps the editor's rules (``ProductBytes``), otherwise as a
  /// `Product` checked in full; a row that breaks the rules is left out (``takeSkippedRows()``).
  /// For writing a whole catalog out: the body must not use this database.
  ///
  /// - Throws: ``CatalogError/damaged(_:)``, or what the body throws.
  package func forEachRecord(_ body: (_ number: Int, ProductRecord) throws -> Void) throws {
    try reading { database in
      try database.readTransaction {
        let statement = try database.statement(
          "SELECT \(columns) FROM products ORDER BY position")
        defer { statement.reset() }
        var number = 0
        while try statement.step() {
          number += 1
          if statement.isNull(6),
            let row = ProductBytes(
              identifier: statement.bytes(0), name: statement.bytes(1),
              imageName: statement.bytes(2), keywords: statement.bytes(5),
              year: statement.integer(3), cents: statement.integer(4))
          {
            try body(number, .bytes(row))
          } else if let product = shown(statement) {
            try body(number, .product(product))
          }
        }
      }
    }
  }

  /// What a whole list's columns must hold: the widest name, in terminal columns, and the
  /// largest price in cents, over the names the editor's rules allow (ASCII ones measured in
  /// SQLite by their length, the others by `width`), without making a `Product` of each row.
  ///
  /// - Parameter width: The width of a name that is not ASCII.
  /// - Returns: The widest name and the largest price.
  /// - Throws: ``CatalogError/damaged(_:)`` when the catalog cannot be read.
  package func widestNameAndPrice(width: (String) -> Int) throws -> (name: Int, cents: Int) {
    try reading { database in
      try database.readTransaction {
        // ASCII when its characters are its bytes (a name with an ASCII control character,
        // which the list leaves out, may widen the column; GLOB would cost twice the scan).
        let limit = "length(name) <= \(ProductEdit.maximumNameLength)"
        let ascii = "length(name) = length(CAST(name AS BLOB))"
        let plain = try database.statement(
          "SELECT max(length(name)), max(price_cents) FROM products WHERE \(limit) AND \(ascii)")
        defer { plain.reset() }
        var widest = (name: 0, cents: 0)
        if try plain.step() { widest = (plain.integer(0), plain.integer(1)) }
        let other = try database.statement(
          "SELECT name, price_cents FROM products WHERE \(limit) AND NOT \(ascii)")
        defer { other.reset() }
        while try other.step() {
          let name = other.text(0)
          guard !name.unicodeScalars.contains(where: \.isTerminalControl) else { continue }
          widest.name = max(widest.name, width(name))
          widest.cents = max(widest.cents, other.integer(1))
        }
        return widest
      }
    }
  }

  // MARK: - Handoff

  /// A catalog on one machine has no other machines to hand off to.
  // MARK: - Verification

  /// Starts checking the whole file in the background, on a connection of its own (see
  /// ``verify()``), unless the file is as this program last left it after a check. A REPL
  /// starts it at launch, so that its first edit seldom waits.
  package func verifyInBackground() {
    guard CatalogFileStamp.recorded(for: path) != CatalogFileStamp.current(of: path) else {
      return
    }
    verification.begin { [self] in conclude(runCheck()) }
  }

  /// Checks the whole file once in this process, or waits for the check under way: SQLite's
  /// `quick_check`, that every index holds one entry for each product (a row an index misses
  /// would be duplicated by an import, or lost to lookups), that no two products share a
  /// position, and that the counts list numbers are found from agree with the rows. Once a
  /// check is begun, every write waits for its verdict, so a file found damaged is never
  /// written: not by an edit, and not by SQLite copying its log into it at exit.
  ///
  /// A passed check is recorded beside the file (``CatalogFileStamp``), and so is the file
  /// after each of this program's commits: a write into a file no other program changed since
  /// does not wait for a check (see ``verifyBeforeWriting()``).
  ///
  /// - Throws: ``CatalogError/damaged(_:)`` saying what is wrong.
  /// - Complexity: O(*n*) in the file's size: quick_check reads every page.
  package func verify() throws {
    verification.begin { [self] in conclude(runCheck()) }
    if let damage = verification.wait() { throw CatalogError.damaged(damage) }
  }

  /// Makes sure the file may be written: as this program last left it after a check (its
  /// record says so: nothing to wait for), or checked now, or found damaged.
  ///
  /// - Throws: ``CatalogError/damaged(_:)`` saying what is wrong.
  package func verifyBeforeWriting() throws {
    try verifyBeforeWriting(CatalogFileStamp.current(of: path))
  }

  /// ``verifyBeforeWriting()`` of the file as it looks now.
  private func verifyBeforeWriting(_ now: CatalogFileStamp) throws {
    if verification.isBegun, let damage = verification.wait() {
      throw CatalogError.damaged(damage)
    }
    guard CatalogFileStamp.recorded(for: path) != now else { return }
    try verify()
    // Checked, but the file changed since the check: another program wrote it. Again.
    if verification.checkedStamp != CatalogFileStamp.current(of: path) {
      verification.reset()
      try verify()
    }
  }

  /// The whole-file check, the file as it was before it recorded beside it when it passed and
  /// nothing changed the file meanwhile.
  private func runCheck() -> String? {
    let before = CatalogFileStamp.current(of: path)
    let damage = Self.check(path)
    let unchanged = CatalogFileStamp.current(of: path) == before
    if damage == nil, unchanged { before.record(for: path) }
    if damage != nil { CatalogFileStamp.forget(for: path) }
    verification.checkedStamp = damage == nil && unchanged ? before : nil
    return damage
  }

  /// Keeps a check's verdict: a damaged file is reported once and never written.
  ///
  /// - Parameter damage: What the check found wrong, or nil.
  /// - Returns: `damage`.
  private func conclude(_ damage: String?) -> String? {
    if let damage {
      connection.ifOpen { $0.checkpointOnClose(false) }
      state.withLock { cached in cached.failures.note(.damaged(damage)) }
    }
    return damage
  }

  /// The whole-file check, on a read-only connection: the reason the file is damaged, or nil.
  private static func check(_ path: String) -> String? {
    do {
      let database = try Database(path: path, mode: .readOnly)
      try database.execute("BEGIN")
      defer { try? database.execute("COMMIT") }
      let verdict = try database.statement("PRAGMA quick_check(1)")
      defer { verdict.reset() }
      if try verdict.step(), verdict.text(0) != "ok" { return "quick_check: \(verdict.text(0))" }
      let rows = try database.integer("SELECT count(*) FROM products NOT INDEXED") ?? 0
      for (index, column) in [
        ("products_identifier", "identifier"), ("products_position", "position"),
        ("products_folded_name", "folded_name"), ("products_year", "year"),
        ("products_changed", "changed"),
      ] {
        let entries =
          try database.integer(
            "SELECT count(*) FROM products INDEXED BY \(index) WHERE \(column) IS NOT NULL") ?? 0
        guard entries == rows else {
          return "its index \(index) has \(entries) entries for \(rows) products"
        }
      }
      let distinct = try database.integer("SELECT count(DISTINCT position) FROM products") ?? 0
      guard distinct == rows else {
        return "its list numbers are damaged: \(rows - distinct) products share a position"
      }
      return try ListNumbering.verify(in: database)
    } catch let error as SQLiteError {
      // A missing index (SQLite says "no such index") is damage as well.
      return error.isBusy ? nil : error.description
    } catch {
      return error.localizedDescription
    }
  }

  // MARK: - Changes

  /// What changed after a generation: the deletion log and the rows whose `changed` generation
  /// is later, each found through an index.
  ///
  /// - Parameters:
  ///   - generation: The generation to start after.
  ///   - limit: The most changes worth reading.
  /// - Returns: The changes, or nil when there are more than `limit`.
  /// - Throws: ``CatalogError/damaged(_:)``.
  package func changes(after generation: Int, limit: Int) throws -> CatalogChanges? {
    try reading { database in
      try database.execute("BEGIN")
      defer { try? database.execute("COMMIT") }
      let now = try database.integer("SELECT value FROM catalog_info WHERE key = 'generation'") ?? 0
      let count = try numbering.count(in: database)
      let deleted =
        try database.integer(
          "SELECT count(*) FROM deletions WHERE generation > ?", .integer(generation)) ?? 0
      let edited =
        try database.integer(
          "SELECT count(*) FROM (SELECT 1 FROM products WHERE changed > ? LIMIT ?)",
          .integer(generation), .integer(limit + 1)) ?? 0
      guard deleted + edited <= limit else { return nil }
      var changes = CatalogChanges(generation: now, count: count, deletedPositions: [], changed: [])
      let deletions = try database.statement(
        "SELECT position FROM deletions WHERE generation > ? ORDER BY rowid")
      defer { deletions.reset() }
      try deletions.bind([.integer(generation)])
      while try deletions.step() { changes.deletedPositions.append(deletions.integer(0)) }
      // Sorted here: ORDER BY position would make SQLite walk the position index, every row.
      let rows = try database.statement(
        "SELECT \(columns), position FROM products WHERE changed > ?")
      defer { rows.reset() }
      try rows.bind([.integer(generation)])
      var changed: [(position: Int, product: Product)] = []
      while try rows.step() {
        if let product = shown(rows) { changed.append((rows.integer(7), product)) }
      }
      let numbers = try numbering.numbers(ofPositions: changed.map(\.position), in: database)
      changes.changed = changed.compactMap { position, product in
        numbers[position].map { ($0, product) }
      }
      changes.changed.sort { $0.position < $1.position }
      return changes
    }
  }

  /// Calls a body with every product in order, all from one snapshot, whose generation it is
  /// given first.
  ///
  /// - Parameters:
  ///   - start: Called once before the products, with the snapshot's generation and count.
  ///   - body: Called with each product.
  /// - Throws: ``CatalogError/damaged(_:)``, or what the closures throw.
  package func forEachProduct(
    start: (_ generation: Int, _ count: Int) throws -> Void,
    _ body: (_ number: Int, _ product: Product) throws -> Void
  ) throws {
    try reading { try $0.execute("BEGIN") }
    defer { _ = try? reading { try $0.execute("COMMIT") } }
    let (generation, count) = try reading { database in
      (
        try database.integer("SELECT value FROM catalog_info WHERE key = 'generation'") ?? 0,
        try numbering.count(in: database)
      )
    }
    try start(generation, count)
    try forEachPage(body)
  }

  // MARK: - Writing

  /// Applies catalog changes in one transaction: each edit to its product as saved now, so that
  /// what other processes saved meanwhile is kept.
  ///
  /// - Parameters:
  ///   - changes: The changes.
  ///   - meanwhile: Work to do first, before the transaction begins.
  /// - Throws: A ``CatalogError`` (a conflict, a product another process removed), or what
  ///   `meanwhile` throws; the database is then as it was.
  package func apply(_ changes: [CatalogChange], whileWriting meanwhile: () throws -> Void)
    throws
  {
    // Before the transaction: a file's write waits on nothing another could overlap, and the
    // work keeps no other process waiting for the write lock.
    try meanwhile()
    let state = try writing { database in
      try Transaction(database: database, numbering: numbering).apply(changes)
      // The state as the commit leaves it, read in its transaction: this connection's own
      // commit leaves `data_version` as it is, so it holds until another connection commits.
      // The file's checks at launch are not made again for a change this process made.
      return try Self.readCounters(database, numbering).state
    }
    adopt(state)
  }

  /// Imports products in one transaction: new identifiers are appended in order, existing ones
  /// replaced in place. All or nothing: a failure, or `kill -9`, leaves the catalog as it was.
  ///
  /// - Parameters:
  ///   - products: The products, read one by one; the reader throws for a bad record.
  ///   - seeding: Whether this import seeds a new database, and from what.
  ///   - options: Whether the file replaces the catalog, what a record without an identifier
  ///     whose name the catalog has does, and whether deleted products come back.
  ///   - madeIdentifiers: The identifiers made for records that had none, asked once every
  ///     record is read: each is matched by name as `options.duplicates` says.
  ///   - progress: Called every 10,000 records read, then when every record is read and about
  ///     every million SQLite instructions while the transaction is being completed; what it
  ///     throws stops the import, which leaves the catalog as it was (Ctrl-C, say).
  /// - Returns: What was inserted, updated and removed.
  /// - Throws: What the reader throws, or ``CatalogError``.
  package func importProducts(
    _ products: some ProductSequence, seeding: CatalogSeeding?, options: ImportOptions,
    madeIdentifiers: () -> [UUID], progress: (ImportStage) throws -> Void
  ) throws -> CatalogImportSummary {
    var stopped: (any Error)?
    do {
      return try importing(
        products, seeding: seeding, options: options, madeIdentifiers: madeIdentifiers
      ) { stage in
        do {
          try progress(stage)
          return false
        } catch {
          stopped = error
          return true
        }
      }
    } catch {
      // SQLite's "interrupted" is the progress callback's own error.
      throw stopped ?? error
    }
  }

  private func importing(
    _ products: some ProductSequence, seeding: CatalogSeeding?, options: ImportOptions,
    madeIdentifiers: () -> [UUID], shouldStop: (ImportStage) -> Bool
  ) throws -> CatalogImportSummary {
    // The staging table is a temporary one, in a file: in memory, a million records would
    // stay resident.
    _ = try? reading { try $0.execute("PRAGMA temp_store = FILE") }
    defer { _ = try? reading { try $0.execute("PRAGMA temp_store = MEMORY") } }
    let summary = try writing { database in
      let generation = try Self.nextGeneration(database)
      // Into an empty catalog, the records go straight into the table, without its indexes,
      // which are built once at the end. Otherwise they go into a staging table first,
      // appended without indexes; then existing identifiers are updated and new ones appended
      // in the file's order, each in one statement. All in this transaction: a failure or
      // `kill -9` leaves nothing of it.
      let empty = try numbering.count(in: database) == 0
      let first = try Transaction(database: database, numbering: numbering).nextPosition()
      let table = empty ? "products" : "temp.import_staging"
      if empty {
        try database.execute(Self.dropIndexes)
      } else {
        try database.execute(
          "CREATE TEMP TABLE IF NOT EXISTS import_staging AS SELECT * FROM products WHERE 0; DELETE FROM import_staging"
        )
        // Merging looks up every staged identifier in the catalog's index.
        try database.execute("PRAGMA cache_size = -32768")
      }
      defer { if !empty { try? database.execute("PRAGMA cache_size = -2000") } }
      defer { try? database.execute("DROP TABLE IF EXISTS temp.import_staging") }
      // Staged records are numbered from 1, to name a repeated one by its record.
      let offset = empty ? first - 1 : 0
      let insertion = try Self.insertion(into: table, in: database)
      var read = 0
      try products.forEachProductReadAhead { product in
        read += 1
        try Self.insert(
          product, position: offset + read, generation: generation, with: insertion)
        if read % 10_000 == 0, shouldStop(.reading(records: read)) { throw ImportStopped() }
      }
      if shouldStop(.saving(records: read)) { throw ImportStopped() }
      return try database.checking(every: 1_000_000, { shouldStop(.saving(records: read)) }) {
        if empty {
          return try filled(
            from: first, read: read, seeding: seeding, options: options, in: database)
        }
        return try Transaction(database: database, numbering: numbering).mergeStaged(
          read: read, generation: generation, seeding: seeding, options: options,
          madeIdentifiers: madeIdentifiers)
      }
    }
    // The import's pages go from the write-ahead log into the database file now, not a page
    // at a time in later commands; unless another process is reading, which is not waited for.
    _ = try? reading { $0.emptyLogIfFree() }
    try refresh()
    return summary
  }

  /// Completes an import into an empty catalog, in the import's transaction: the records are
  /// in the table from position `first` on; what remains is to build the indexes (a repeated
  /// identifier fails the unique one), leave out deleted products, and count the blocks.
  private func filled(
    from first: Int, read: Int, seeding: CatalogSeeding?, options: ImportOptions,
    in database: Database
  ) throws -> CatalogImportSummary {
    var summary = CatalogImportSummary()
    // Repeats first: a repeated identifier of a deleted product is refused too, not left out.
    try Self.failingOnRepeats("products", numberedFrom: first, in: database) {
      try database.execute(Self.createIndexes)
    }
    // Every product is a new one: none is kept because the catalog has it.
    summary.skippedDeleted = try Self.leavingOutDeleted(
      from: "products", unless: "0", restoring: options.restoringDeleted, in: database)
    summary.inserted = read - summary.skippedDeleted
    if summary.inserted > 0 { try ListNumbering.recount(from: first, in: database) }
    try Self.markSeeded(seeding, in: database)
    return summary
  }

  /// Runs what builds a unique index of a table's identifiers; when one is repeated, throws
  /// ``CatalogError/repeatedIdentifier(_:record:name:)`` naming its later record (positions
  /// from `first` are records from 1).
  private static func failingOnRepeats(
    _ table: String, numberedFrom first: Int, in database: Database,
    _ building: () throws -> Void
  ) throws {
    do {
      try building()
    } catch let error as SQLiteError where error.isConstraint {
      let repeated = try database.statement(
        "SELECT identifier, max(position), name FROM \(table) GROUP BY identifier HAVING count(*) > 1 LIMIT 1"
      )
      defer { repeated.reset() }
      guard try repeated.step() else { throw error }
      throw CatalogError.repeatedIdentifier(
        repeated.text(0), record: repeated.integer(1) - first + 1, name: repeated.text(2))
    }
  }

  /// Leaves out of an import's records those of products deleted from the catalog, which an
  /// older file still has, unless a condition keeps them; when restoring, keeps them all and the
  /// deletion log forgets them, so that a later import keeps them too.
  ///
  /// - Returns: How many records were left out.
  private static func leavingOutDeleted(
    from table: String, unless kept: String, restoring: Bool, in database: Database
  ) throws -> Int {
    let deleted = "SELECT identifier FROM deletions WHERE identifier IS NOT NULL"
    guard try database.integer("SELECT EXISTS (\(deleted))") == 1 else { return 0 }
    if restoring {
      try database.run(
        "UPDATE deletions SET identifier = NULL WHERE identifier IN (SELECT identifier FROM \(table))"
      )
      return 0
    }
    try database.run("DELETE FROM \(table) WHERE identifier IN (\(deleted)) AND NOT (\(kept))")
    return database.changes
  }

  private static func markSeeded(_ seeding: CatalogSeeding?, in database: Database) throws {
    guard let seeding else { return }
    try database.run("UPDATE catalog_info SET value = 1 WHERE key = 'seeded'")
    if seeding == .migrated {
      try database.run("UPDATE catalog_info SET value = 1 WHERE key = 'migrated'")
    }
  }

  private static func nextGeneration(_ database: Database) throws -> Int {
    try database.run("UPDATE catalog_info SET value = value + 1 WHERE key = 'generation'")
    return try database.integer("SELECT value FROM catalog_info WHERE key = 'generation'") ?? 0
  }

  private static func product(_ identifier: UUID, in database: Database) throws -> Product? {
    let statement = try database.statement(
      "SELECT \(productColumns) FROM products WHERE identifier = ?")
    defer { statement.reset() }
    try statement.bind([.text(identifier.canonicalText)])
    return try statement.step() ? product(statement) : nil
  }

  private static func insert(
    _ product: Product, position: Int, generation: Int, into table: String = "products",
    in database: Database
  ) throws {
    try insert(
      product, position: position, generation: generation,
      with: try insertion(into: table, in: database))
  }

  /// The statement that inserts a product into a table of the `products` table's columns.
  private static func insertion(into table: String, in database: Database) throws -> Statement {
    // OR ROLLBACK: a failing row ends the whole transaction, which an import wants anyway, and
    // SQLite then keeps no journal to undo one statement (a copy of every page it changes).
    try database.statement(
      "INSERT OR ROLLBACK INTO \(table)(identifier, position, name, folded_name, image_name, year, price_cents, keywords, changed, image_directory) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
  }

  private static func insert(
    _ product: Product, position: Int, generation: Int, with statement: Statement
  ) throws {
    try bind(product, position: position, generation: generation, to: statement)
    defer { statement.reset() }
    while try statement.step() {}
  }

  /// Binds a product's values in the order of the `products` table's columns.
  private static func bind(
    _ product: Product, position: Int, generation: Int, to statement: Statement
  ) throws {
    try statement.bind(product.identifier.canonicalText, at: 1)
    try statement.bind(position, at: 2)
    try statement.bind(product.name, at: 3)
    try statement.bind(product.name.folded, at: 4)
    try statement.bind(product.imageName, at: 5)
    try statement.bind(product.year, at: 6)
    try statement.bind(product.price.cents, at: 7)
    try statement.bind(product.keywords.joined(separator: SkippedRows.keywordSeparator), at: 8)
    try statement.bind(generation, at: 9)
    try statement.bind(product.imageDirectory, at: 10)
  }

  /// The product of the current row of a statement that selected ``columns``; nil when the
  /// row does not hold one (a row another program wrote).
  private static func product(_ statement: Statement) -> Product? {
    SkippedRows.product(
      identifier: statement.text(0), name: statement.text(1), imageName: statement.text(2),
      year: statement.integer(3), cents: statement.integer(4), keywords: statement.text(5),
      imageDirectory: statement.isNull(6) ? nil : statement.text(6))
  }

  /// The product of a row, when it keeps the editor's rules; a row that breaks them (written by
  /// another program, or by hand) is left out and reported once by ``takeSkippedRows()``. Sizes
  /// are checked before any text is read: a name of ten megabytes is never copied.
  private func shown(_ statement: Statement) -> Product? {
    let reason: String
    if let problem = SkippedRows.sizeProblem(
      nameBytes: statement.byteCount(1), imageNameBytes: statement.byteCount(2),
      keywordBytes: statement.byteCount(5))
    {
      reason = problem
    } else if let product = Self.product(statement) {
      guard let violation = product.ruleViolation else { return product }
      reason = violation
    } else {
      reason = "its identifier is not a UUID"
    }
    let name = statement.textPrefix(1, bytes: 40)
    skipped.record(
      identifier: statement.textPrefix(0, bytes: 40),
      name: (name, name.utf8.count < statement.byteCount(1)), reason: reason)
    return nil
  }

  /// One line for each product row left out since the last call because it breaks the editor's
  /// rules; each row is reported once in a process.
  ///
  /// - Returns: The lines, which the call clears.
  package func takeSkippedRows() -> [String] {
    skipped.take()
  }

  private func query(_ sql: String, _ values: [SQLiteValue]) -> [Product] {
    var products: [Product] = []
    _ = try? reading { database in
      let statement = try database.statement(sql)
      defer { statement.reset() }
      try statement.bind(values)
      while try statement.step() {
        if let product = shown(statement) { products.append(product) }
      }
    }
    return products
  }

  /// Runs a read; a failure is noted for ``takeReadFailure()`` and rethrown as damage.
  private func reading<Result>(_ body: (Database) throws -> Result) throws -> Result {
    do {
      return try connection.use(body)
    } catch let error as SQLiteError {
      state.withLock { cached in cached.failures.note(.damaged(error.description)) }
      throw CatalogError.damaged(error.description)
    }
  }

  /// Runs a write transaction, once the file has been checked; SQLite's errors become
  /// ``CatalogError``.
  private func writing<Result>(_ body: (Database) throws -> Result) throws -> Result {
    // One look at the file and its log serves the identity checks and the check record.
    let now = CatalogFileStamp.current(of: path)
    guard let opened = connection.openedFile, now.database?.identity == opened else {
      throw CatalogError.cannotWrite(
        path: path,
        reason:
          "the file was deleted or replaced after this process opened it, so nothing would keep the change; start the app again"
      )
    }
    let log = logIdentity.withLock { $0 }
    guard log.map({ now.log?.identity == $0.identity }) ?? true else {
      throw CatalogError.cannotWrite(
        path: path,
        reason:
          "its write-ahead log '\(path)-wal' was deleted or replaced after this process opened it, so nothing would keep the change; start the app again"
      )
    }
    try verifyBeforeWriting(now)
    // This connection's own commits leave `data_version` as it was.
    state.withLock { cached in cached.dataVersion = nil }
    do {
      let result = try connection.use { database in
        try database.writeTransaction { try body(database) }
      }
      // The file as this program's commit left it, checked before.
      let committed = CatalogFileStamp.current(of: path)
      committed.record(for: path)
      logIdentity.withLock { $0 = $0 ?? committed.log }
      return result
    } catch let error as SQLiteError {
      if error.isDamage {
        state.withLock { cached in cached.failures.note(.damaged(error.description)) }
        throw CatalogError.damaged(error.description)
      }
      throw CatalogError.cannotWrite(path: path, reason: error.description)
    }
  }
}

/// The whole-file check of this process: begun once, its verdict waited for by every write.
private final class Verification: Sendable {
  private struct State {
    var check: BackgroundWork<String?>?
    /// The file as the passed check found it; nil when it changed during the check.
    var stamp: CatalogFileStamp?
  }
  private let state = Mutex(State())

  /// The file as the passed check found it; nil when it changed during the check.
  var checkedStamp: CatalogFileStamp? {
    get { state.withLock { $0.stamp } }
    set { state.withLock { $0.stamp = newValue } }
  }

  /// Whether the check was begun.
  var isBegun: Bool { state.withLock { $0.check != nil } }

  /// Begins the check on a thread of its own, unless it was begun already.
  ///
  /// - Parameter check: The check: the damage it found, or nil.
  /// - Returns: Whether this call began it.
  @discardableResult
  func begin(_ check: @escaping @Sendable () -> String?) -> Bool {
    // Started outside the lock: without a thread of its own, the check runs here, and records
    // what it found under that lock.
    let begun = state.withLock { state -> BackgroundWork<String?>? in
      guard state.check == nil else { return nil }
      let work = BackgroundWork.startingLater(check)
      state.check = work
      return work
    }
    begun?.start()
    return begun != nil
  }

  /// Waits for the verdict of the check begun: the damage found, or nil.
  func wait() -> String? {
    state.withLock { $0.check }?.wait() ?? nil
  }

  /// Forgets a passed check, for another one.
  func reset() {
    guard let check = state.withLock({ $0.check }), check.wait() == nil else { return }
    state.withLock { state in
      guard state.check === check else { return }
      state.check = nil
      state.stamp = nil
    }
  }
}

/// An import stopped by its progress callback, which is then rethrown in its place.
private struct ImportStopped: Error {}

/// How far an import has come.
package enum ImportStage: Sendable, Hashable {
  /// Reading and checking the file's records: how many so far.
  case reading(records: Int)
  /// Every record read; merging them into the catalog, building indexes and committing.
  case saving(records: Int)
}

/// Products read one at a time, from a file being imported or from memory.
package protocol ProductSequence: Sendable {
  /// Calls a body with each product in order.
  ///
  /// - Throws: What the body throws, or an error naming a bad record.
  func forEachProduct(_ body: (Product) throws -> Void) throws
}

extension Array: ProductSequence where Element == Product {
  /// Calls a body with every product in order.
  package func forEachProduct(_ body: (Product) throws -> Void) throws {
    for product in self { try body(product) }
  }
}

extension ColumnValue {
  /// The value as SQLite binds it.
  var sqlite: SQLiteValue {
    switch self {
    case .text(let text): .text(text)
    case .integer(let integer): .integer(integer)
    case .null: .null
    }
  }
}

extension CatalogDatabase {
  /// A write transaction's steps in SQLite's SQL; SQLite's write lock (`BEGIN IMMEDIATE`)
  /// keeps every row from other writers.
  fileprivate struct Transaction: CatalogTransaction {
    let database: Database
    let numbering: ListNumbering

    func nextGeneration() throws -> Int {
      try CatalogDatabase.nextGeneration(database)
    }

    func lockedProduct(_ identifier: UUID) throws -> Product? {
      try CatalogDatabase.product(identifier, in: database)
    }

    func contains(_ identifier: UUID) throws -> Bool {
      try database.integer(
        "SELECT 1 FROM products WHERE identifier = ?", .text(identifier.canonicalText)) != nil
    }

    func largestPosition() throws -> Int {
      try database.integer("SELECT max(position) FROM products") ?? 0
    }

    func insert(_ product: Product, position: Int, generation: Int) throws {
      try CatalogDatabase.insert(product, position: position, generation: generation, in: database)
    }

    func update(_ identifier: UUID, setting columns: [(name: String, value: ColumnValue)]) throws {
      let statement = try database.statement(
        "UPDATE products SET \(columns.map { $0.name + " = ?" }.joined(separator: ", ")) WHERE identifier = ?"
      )
      defer { statement.reset() }
      try statement.bind(columns.map(\.value.sqlite) + [.text(identifier.canonicalText)])
      while try statement.step() {}
    }

    func lockedPosition(of identifier: UUID) throws -> Int? {
      try database.integer(
        "SELECT position FROM products WHERE identifier = ?", .text(identifier.canonicalText))
    }

    func number(ofPosition position: Int) throws -> Int? {
      try numbering.number(ofPosition: position, in: database)
    }

    func deleteRow(_ identifier: UUID) throws {
      try database.run(
        "DELETE FROM products WHERE identifier = ?", .text(identifier.canonicalText))
    }

    func logDeletion(number: Int, identifier: UUID, generation: Int) throws {
      try database.run(
        "INSERT INTO deletions(generation, position, identifier) VALUES (?, ?, ?)",
        .integer(generation), .integer(number), .text(identifier.canonicalText))
    }

    func countAdded(at position: Int) throws {
      try ListNumbering.added(position: position, in: database)
    }

    func countRemoved(at position: Int) throws {
      try ListNumbering.removed(position: position, in: database)
    }
  }
}

/// An import's merge in SQLite's SQL: the staged records are `temp.import_staging`, of the
/// `products` table's columns, their positions the records' numbers from 1.
extension CatalogDatabase.Transaction: ImportTransaction {
  private var staging: String { "temp.import_staging" }
  private var inCatalog: String { "(SELECT identifier FROM products)" }

  func prepareStaged() throws {}

  func matchByName(_ made: [UUID], _ policy: ImportOptions.DuplicateNames) throws {
    guard !made.isEmpty, policy != .allow else { return }
    try database.execute(
      "CREATE TEMP TABLE IF NOT EXISTS import_unidentified(identifier TEXT PRIMARY KEY) WITHOUT ROWID; DELETE FROM temp.import_unidentified"
    )
    let insert = try database.statement("INSERT OR IGNORE INTO temp.import_unidentified VALUES (?)")
    defer { insert.reset() }
    for identifier in made {
      insert.reset()
      try insert.bind(identifier.canonicalText, at: 1)
      while try insert.step() {}
    }
    let unidentified = "s.identifier IN (SELECT identifier FROM temp.import_unidentified)"
    for (condition, error) in policy.refusals(products: "products", staging: staging) {
      let found = try database.statement(
        "SELECT count(*), min(s.name) FROM \(staging) AS s WHERE \(unidentified) AND \(condition)"
      )
      defer { found.reset() }
      if try found.step(), found.integer(0) > 0 { throw error(found.integer(0), found.text(1)) }
    }
    guard policy == .update else { return }
    try database.run(
      ImportOptions.DuplicateNames.matching(
        products: "products", staging: staging, order: "position", unidentified: unidentified))
  }

  func failIfRepeated() throws {
    // A unique index of the staged identifiers finds one repeated, and serves every join after.
    try database.execute("DROP INDEX IF EXISTS temp.import_staging_identifier")
    try CatalogDatabase.failingOnRepeats(staging, numberedFrom: 1, in: database) {
      try database.execute(
        "CREATE UNIQUE INDEX temp.import_staging_identifier ON import_staging(identifier)")
    }
  }

  func leaveOutDeleted(restoring: Bool) throws -> Int {
    try CatalogDatabase.leavingOutDeleted(
      from: staging, unless: "identifier IN \(inCatalog)", restoring: restoring, in: database)
  }

  func updateChanged() throws -> Int {
    try database.run(
      "UPDATE products SET name = s.name, folded_name = s.folded_name, image_name = s.image_name, year = s.year, price_cents = s.price_cents, keywords = s.keywords, changed = s.changed, image_directory = s.image_directory FROM \(staging) AS s WHERE products.identifier = s.identifier AND (products.name IS NOT s.name OR products.image_name IS NOT s.image_name OR products.year IS NOT s.year OR products.price_cents IS NOT s.price_cents OR products.keywords IS NOT s.keywords OR products.image_directory IS NOT s.image_directory)"
    )
    return database.changes
  }

  func countMatched() throws -> Int {
    try database.integer(
      "SELECT count(*) FROM \(staging) AS s WHERE EXISTS (SELECT 1 FROM products AS p WHERE p.identifier = s.identifier)"
    ) ?? 0
  }

  func removeUnstaged(generation: Int) throws -> Int {
    let lacked = "identifier NOT IN (SELECT identifier FROM \(staging))"
    try database.run(
      "INSERT INTO deletions(generation, position, identifier) SELECT ?, 0, identifier FROM products WHERE \(lacked)",
      .integer(generation))
    try database.run("DELETE FROM products WHERE \(lacked)")
    return database.changes
  }

  func renewIdentity() throws {
    try database.run(
      "UPDATE catalog_info SET value = ? WHERE key = 'identity'",
      .integer(Int(Int64.random(in: 1...Int64.max))))
  }

  func productCount() throws -> Int {
    try numbering.count(in: database)
  }

  func appendNew(after position: Int, rebuildingIndexes: Bool, matched: Int) throws {
    var new = "NOT EXISTS (SELECT 1 FROM products AS p WHERE p.identifier = s.identifier)"
    if rebuildingIndexes {
      // Fewer staged records are in the catalog than not: they go while its index finds them.
      if matched > 0 { try database.run("DELETE FROM \(staging) WHERE identifier IN \(inCatalog)") }
      try database.execute(CatalogDatabase.dropIndexes)
      new = "1"
    }
    try database.run(
      "INSERT OR ROLLBACK INTO products SELECT identifier, ? + row_number() OVER (ORDER BY position), name, folded_name, image_name, year, price_cents, keywords, changed, image_directory FROM \(staging) AS s WHERE \(new) ORDER BY position",
      .integer(position))
    if rebuildingIndexes { try database.execute(CatalogDatabase.createIndexes) }
  }

  func recountBlocks(from position: Int) throws {
    try ListNumbering.recount(from: position, in: database)
  }

  func markSeeded(_ seeding: CatalogSeeding) throws {
    try CatalogDatabase.markSeeded(seeding, in: database)
  }
}
