import Foundation
import SQLite
import TestSupport
import Testing

/// What a hostile suite did to the catalog database, the search index and the files around
/// them: numbers that would overflow, damage SQLite reads past, a log a killed checkpoint left,
/// a file cut short under a running REPL. Nothing crashes, nothing damaged is written, nothing
/// good is refused.
@Suite(.serialized) struct HostileCatalogTests {
  /// Whether a run ended by itself, not by a signal such as SIGILL (a trapped overflow) or SIGBUS.
  private func endedNormally(_ result: CatalogSandbox.Result) -> Bool {
    result.status == 0 || result.status == 1
  }

  private func bytes(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
  }

  @Test(arguments: [
    "activities 9223372036854775807", "activities 461168601842738792", "list 9223372036854775807",
    "year 2015 9223372036854775807",
  ])
  func aHugePageNumberIsRefusedInOneLine(_ line: String) throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select 1\n")
    let result = try sandbox.run(input: line + "\n")
    #expect(result.status == 1, "\(result.errors)")
    #expect(result.errorLines.count == 1, "\(result.errors)")
    #expect(result.errors.hasPrefix("error: '"), "\(result.errors)")
    #expect(result.errors.contains("is not a page from 1 to"), "\(result.errors)")
  }

  @Test func aListNumberNoFileCouldHoldIsDamageNotACount() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    try Database(path: sandbox.databasePath, mode: .readWrite).execute(
      "UPDATE products SET position = 9223372036854775807 WHERE position = 10")
    let result = try sandbox.run(input: "list\nlist 2\nselect 3\nsearch rose\n")
    #expect(endedNormally(result), "status \(result.status): \(result.errors)")
    #expect(result.errors.contains("its list numbers are damaged"), "\(result.errors)")
    #expect(!result.output.contains("9,223,372,036,854,775,807"))
    let export = try sandbox.run(["export"])
    #expect(export.status == 1)
    #expect(export.errors.contains("cannot export the catalog"), "\(export.errors)")
  }

  @Test func aRowBreakingTheEditorsRulesIsNamedOnceAndNotShown() throws {
    let sandbox = CatalogSandbox()
    let before = try sandbox.run(input: "list\n").output
    let fourth = try #require(before.split(separator: "\n").first { $0.hasPrefix(" 4 ") })
    try Database(path: sandbox.databasePath, mode: .readWrite).run(
      "UPDATE products SET name = ? WHERE position = 3",
      .text("Huge" + String(repeating: "n", count: 10_000_000)))
    let result = try sandbox.run(input: "list\nlist --all\nsearch nnnn\nselect 4\nlist\n")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.utf8.count < 20_000)
    #expect(result.errors.utf8.count < 2_000)
    let warnings = result.errorLines.filter { $0.contains("breaks the editor's rules") }
    #expect(warnings.count == 1, "\(result.errors)")
    #expect(warnings.first?.contains("the name has 10000004 bytes") == true)
    #expect(result.output.contains(fourth), "list numbers shifted: \(result.output)")
    #expect(!result.output.contains("\n 3 "))
    let export = try sandbox.run(["export"])
    #expect(export.status == 0)
    #expect(export.output.utf8.count < 20_000)
    #expect(export.errors.contains("breaks the editor's rules"))
  }

  @Test func aFIFOInPlaceOfAnEarlierCatalogFileDoesNotBlockTheLaunch() throws {
    let sandbox = CatalogSandbox()
    try sandbox.createStateDirectory()
    try FileManager.default.createDirectory(
      atPath: sandbox.dataDirectory, withIntermediateDirectories: true)
    #expect(mkfifo(sandbox.dataDirectory + "/products.json", 0o600) == 0)
    let result = try sandbox.run(input: "list\n", timeout: 20)
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.contains("is not a regular file"), "\(result.errors)")
    #expect(result.output.contains("Cherries"))
  }

  /// The database file and its log after a change committed to the log and not yet copied into
  /// the file, as a process killed then leaves them. Put them back in place after this
  /// returns: the last connection's close has checkpointed the log.
  private func committedButNotCheckpointed(_ path: String, _ change: (Database) throws -> Void)
    throws -> (database: Data, log: Data)
  {
    // A second connection keeps SQLite from checkpointing when the writer closes; the copies
    // are made while both are open.
    let keeper = try Database(path: path, mode: .readWrite)
    _ = try keeper.integer("SELECT count(*) FROM products")
    do {
      let writer = try Database(path: path, mode: .readWrite)
      try writer.execute("PRAGMA wal_autocheckpoint = 0")
      try change(writer)
    }
    let copies = (try #require(bytes(path)), try #require(bytes(path + "-wal")))
    withExtendedLifetime(keeper) {}
    return copies
  }

  /// A database whose log holds a commit that made the file longer, and whose first page was
  /// copied from the log, as a checkpoint killed after its first page leaves it: the header
  /// counts pages that are still only in the log.
  private func makeHalfCheckpointedCatalog(_ sandbox: CatalogSandbox) throws {
    let file = sandbox.root + "/more.json"
    try Data(CatalogDatabaseTests.productsJSON(2_000).utf8).write(to: URL(fileURLWithPath: file))
    #expect(try sandbox.run(["import", file]).status == 0)
    let path = sandbox.databasePath
    let (database, log) = try committedButNotCheckpointed(path) { writer in
      // Longer rows (30 keywords of 99 characters), within the editor's rules.
      let more = Array(repeating: String(repeating: "x", count: 99), count: 30)
        .joined(separator: "\u{1F}")
      try writer.writeTransaction {
        try writer.run("UPDATE products SET keywords = ? WHERE position <= 300", .text(more))
      }
    }
    try database.write(to: URL(fileURLWithPath: path))
    try log.write(to: URL(fileURLWithPath: path + "-wal"))
    // The log's last frame of page 1: a 32-byte header, then frames of 24 bytes and a page.
    let pageSize = Int(log[8]) << 24 | Int(log[9]) << 16 | Int(log[10]) << 8 | Int(log[11])
    var offset = 32
    var firstPage: Data?
    while offset + 24 + pageSize <= log.count {
      let page = log[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
      if page == 1 { firstPage = log[(offset + 24)..<(offset + 24 + pageSize)] }
      offset += 24 + pageSize
    }
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    try handle.write(contentsOf: try #require(firstPage))
    try handle.close()
    let header = try #require(bytes(path))
    let pages = header[28..<32].reduce(0) { $0 << 8 | Int($1) }
    #expect(pages * pageSize > header.count, "the header should count pages the file lacks")
  }

  @Test func aCheckpointKilledHalfwayLeavesACatalogThatIsRead() throws {
    let sandbox = CatalogSandbox()
    try makeHalfCheckpointedCatalog(sandbox)
    let result = try sandbox.run(input: "list 100\nselect Product 002000\n")
    #expect(result.status == 0, "\(result.errors)")
    #expect(!result.errors.contains("truncated"), "\(result.errors)")
    #expect(result.output.contains("Product 002000"))
    let export = try sandbox.run(["export"])
    #expect(export.status == 0, "\(export.errors)")
    #expect(export.output.contains("Product 002000"))
  }

  @Test func aRefusedDatabaseIsNotWrittenEvenByACheckpoint() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    let path = sandbox.databasePath
    // A newer schema, committed to the log and never checkpointed: as a newer version killed
    // at once would leave it.
    let (database, log) = try committedButNotCheckpointed(path) { writer in
      try writer.execute("PRAGMA user_version = 9")
    }
    try database.write(to: URL(fileURLWithPath: path))
    try log.write(to: URL(fileURLWithPath: path + "-wal"))
    #expect(log.count > 32)
    let result = try sandbox.run(input: "list\n")
    #expect(result.errors.contains("newer than this program's"), "\(result.errors)")
    #expect(bytes(path) == database, "the refused database was written")
    #expect(bytes(path + "-wal") == log, "the refused database's log was emptied into it")
  }

  @Test func aRowMissingFromAnIndexIsFoundAndTheFileNeverWritten() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    let path = sandbox.databasePath
    let original = "CREATE UNIQUE INDEX products_identifier ON products(identifier)"
    // The identifier index rebuilt without Cherries' row, then its definition put back: the
    // header and quick_check find nothing wrong.
    do {
      let database = try Database(path: path, mode: .readWrite)
      try database.execute(
        "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = '\(original) WHERE name <> ''Cherries''' WHERE name = 'products_identifier'"
      )
    }
    do {
      let database = try Database(path: path, mode: .readWrite)
      try database.execute("REINDEX products_identifier")
      try database.execute(
        "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = '\(original)' WHERE name = 'products_identifier'; PRAGMA wal_checkpoint(TRUNCATE)"
      )
    }
    let before = try #require(bytes(path))
    // A REPL on a terminal checks the whole file from its launch: its first edit waits for
    // the verdict, and is refused.
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, environment: ["NO_COLOR": "1"])
    pty.read(until: " › ")
    pty.type("select mango\redit\rprice 8.00\rdone\r")
    let shown = pty.read(until: "products_identifier has 9 entries for 10 products")
    #expect(!shown.contains("Saved"), "\(shown)")
    #expect(pty.quit(process) == 0)
    #expect(bytes(path) == before, "a damaged catalog was written")
    #expect((bytes(path + "-wal") ?? Data()).isEmpty, "a damaged catalog was written")
    // An import checks it first as well.
    let file = sandbox.root + "/one.json"
    try Data(CatalogDatabaseTests.productsJSON(1).utf8).write(to: URL(fileURLWithPath: file))
    let imported = try sandbox.run(["import", file])
    #expect(imported.status == 1)
    #expect(imported.errors.contains("products_identifier has 9 entries"), "\(imported.errors)")
    #expect(bytes(path) == before, "a damaged catalog was written")
  }

  @Test func anExportOfARefusedCatalogFailsAndWritesNothing() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    let path = sandbox.databasePath
    let data = try #require(bytes(path))
    try data.prefix(data.count - 4096).write(to: URL(fileURLWithPath: path))
    let target = sandbox.root + "/backup.json"
    let result = try sandbox.run(["export", target])
    #expect(result.status == 1)
    #expect(result.errorLines.count == 1, "\(result.errors)")
    #expect(result.errors.hasPrefix("error: cannot export the catalog"), "\(result.errors)")
    #expect(!FileManager.default.fileExists(atPath: target))
    #expect(try sandbox.run(["export"]).output.isEmpty)
  }

  @Test func anExportSaysWhatItDidOnStandardOutputAndSweepsWhatAKilledOneLeft() throws {
    let sandbox = CatalogSandbox()
    let target = sandbox.root + "/backup.json"
    let dead = deadProcessIdentifier()
    let abandoned = sandbox.root + "/.backup.json.\(dead).12345.tmp"
    let unrelated = sandbox.root + "/.other.json.\(dead).12345.tmp"
    for path in [abandoned, unrelated] {
      #expect(FileManager.default.createFile(atPath: path, contents: Data("[".utf8)))
    }
    let result = try sandbox.run(["export", target])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.isEmpty, "\(result.errors)")
    #expect(result.output == "Exported 10 products to '\(target)'.\n")
    #expect(!FileManager.default.fileExists(atPath: abandoned))
    #expect(FileManager.default.fileExists(atPath: unrelated))
  }

  @Test(arguments: ["full", "read-only"])
  func anActivityHistoryThatCannotBeWrittenNowIsKept(_ condition: String) throws {
    let sandbox = CatalogSandbox()
    guard let disk = SmallDisk(at: sandbox.stateDirectory, kilobytes: 1024) else { return }
    _ = try sandbox.run(input: "select cherries\nselect mango\nactivities\n")
    let history = sandbox.file("activities.sqlite")
    let before = try #require(bytes(history))
    if condition == "full" { disk.fill() } else { disk.setReadOnly(true) }
    let result = try sandbox.run(input: "select peanuts\nactivities\n")
    #expect(!result.errors.contains("not valid"), "\(result.errors)")
    #expect(!result.errors.contains("quarantine"), "\(result.errors)")
    if condition == "full" {
      // Reported as a full disk, whichever file meets it first (the scene's is written first).
      #expect(result.errors.contains("No space left on device"), "\(result.errors)")
    }
    let search = try sandbox.run(["search", "mango"])
    #expect(!search.errors.contains("not valid"), "\(search.errors)")
    if condition == "full" { disk.empty() } else { disk.setReadOnly(false) }
    #expect(bytes(history) == before)
    #expect(sandbox.quarantined().isEmpty)
    let listed = try sandbox.run(input: "activities\n")
    #expect(listed.output.contains("Cherries"), "\(listed.output)")
    #expect(listed.output.contains("Mango"))
    withExtendedLifetime(disk) {}
  }

  @Test func aCatalogInPlaceOfTheHistoryIsSetAsideAsItWas() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    let history = sandbox.file("activities.sqlite")
    // A catalog database with a commit still in its log, copied over the history.
    let (database, log) = try committedButNotCheckpointed(sandbox.databasePath) { writer in
      try writer.run("UPDATE products SET name = 'Quince' WHERE position = 1")
    }
    unlink(history + "-shm")
    try database.write(to: URL(fileURLWithPath: history))
    try log.write(to: URL(fileURLWithPath: history + "-wal"))
    let result = try sandbox.run(input: "select cherries\nactivities\n")
    #expect(result.errors.contains("it is not an activity history"), "\(result.errors)")
    #expect(!result.errors.contains("newer"), "\(result.errors)")
    let kept = sandbox.quarantined()
    let main = try #require(kept.first { $0.hasPrefix("activities") && !$0.contains("-wal") })
    #expect(bytes(sandbox.file("quarantine/" + main)) == database, "\(kept)")
    #expect(kept.contains { $0.contains("-wal") }, "\(kept)")
  }

  @Test func aCatalogDeletedUnderARunningREPLIsNotSavedIntoAndTheNextLaunchStartsClean() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    let process = sandbox.start()
    process.send("select cherries")
    process.readOutput(until: "Cherries")
    #expect(unlink(sandbox.databasePath) == 0)
    process.send("edit\nprice 3.00\ndone")
    let (output, errors) = process.finishReading()
    #expect(!output.contains("Saved"), "\(output)")
    let lines = errors.split(separator: "\n").filter { $0.hasPrefix("error: ") }
    #expect(lines.count == 1, "\(errors)")
    #expect(lines.first?.contains("was deleted or replaced") == true, "\(errors)")
    let next = try sandbox.run(input: "cancel\nselect cherries\n")
    #expect(next.status == 0, "\(next.errors)")
    #expect(!next.errors.contains("malformed"), "\(next.errors)")
    #expect(!next.errors.contains("cannot use the catalog"), "\(next.errors)")
    #expect(next.output.contains("$10.99"))
  }

  /// Zeroes the root page of the catalog's name index in the database file, keeping the file's
  /// size; with `keepingTime`, its modification time too, as if nothing had touched it.
  private func zeroNameIndex(_ sandbox: CatalogSandbox, keepingTime: Bool) throws {
    let path = sandbox.databasePath
    let (root, pageSize) = try {
      let database = try Database(path: path, mode: .readOnly)
      return (
        try #require(
          try database.integer(
            "SELECT rootpage FROM sqlite_schema WHERE name = 'products_folded_name'")),
        try #require(try database.integer("PRAGMA page_size"))
      )
    }()
    var status = stat()
    #expect(stat(path, &status) == 0)
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    try handle.seek(toOffset: UInt64((root - 1) * pageSize))
    try handle.write(contentsOf: Data(count: pageSize))
    try handle.close()
    if keepingTime {
      var times = [status.st_atim, status.st_mtim]
      #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }
  }

  /// A catalog another program damaged (an index's root page zeroed) is checked before the first
  /// write of any run — a one-command script too — and is not written: `done` is refused in one
  /// line and the file and its log stay as they were.
  @Test func aDamagedCatalogIsCheckedBeforeAScriptWritesIntoIt() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    try zeroNameIndex(sandbox, keepingTime: false)
    let before = (bytes(sandbox.databasePath), bytes(sandbox.databasePath + "-wal"))
    // By number: a lookup by name would read the zeroed index and fail before any check.
    let result = try sandbox.run(input: "select 9\nedit\nprice 3.00\ndone\n")
    #expect(result.output.contains("Editing Cherries"), "\(result.output)")
    #expect(!result.output.contains("Saved"), "\(result.output)")
    #expect(result.errors.contains("edits are refused"), "\(result.errors)")
    #expect(result.errors.contains("quick_check"), "\(result.errors)")
    #expect(bytes(sandbox.databasePath) == before.0)
    #expect(bytes(sandbox.databasePath + "-wal") == before.1)
  }

  /// The verdict of a check is kept while only this program changes the file: a file whose
  /// size and time are as the app's last commit left them is not checked again (the damage
  /// made here behind its back, time kept, goes unseen), and one that changed is checked
  /// before the next write.
  @Test func aCheckedFileOnlyThisProgramChangedIsNotCheckedAgain() throws {
    let sandbox = CatalogSandbox()
    let first = try sandbox.run(input: "select cherries\nedit\nprice 3.00\ndone\n")
    #expect(first.output.contains("Saved Cherries."), "\(first.errors)")
    try zeroNameIndex(sandbox, keepingTime: true)
    // By number: a lookup by name would read the zeroed index.
    let reused = try sandbox.run(input: "select 7\nedit\nprice 4.00\ndone\n")
    #expect(reused.output.contains("Saved Mango."), "\(reused.errors)")
    // Touched: checked, and refused.
    #expect(utimensat(AT_FDCWD, sandbox.databasePath, nil, 0) == 0)
    let checked = try sandbox.run(input: "select 8\nedit\nprice 5.00\ndone\n")
    #expect(!checked.output.contains("Saved"), "\(checked.output)")
    #expect(checked.errors.contains("quick_check"), "\(checked.errors)")
  }

  /// The record of the last check is written over in place: one left longer or cut short (a
  /// kill between its writing and its end), or whose lines do not match its checksum (another
  /// process's record written over it in part), is not trusted: the next write checks the
  /// file, and refuses the damage done behind the app's back.
  @Test(arguments: ["longer", "shorter", "checksum"])
  func aTornCheckRecordIsNotTrusted(_ how: String) throws {
    let sandbox = CatalogSandbox()
    let first = try sandbox.run(input: "select cherries\nedit\nprice 3.00\ndone\n")
    #expect(first.output.contains("Saved Cherries."), "\(first.errors)")
    try zeroNameIndex(sandbox, keepingTime: true)
    let record = sandbox.databasePath + "-checked"
    var text = try String(contentsOfFile: record, encoding: .utf8)
    #expect(text.hasSuffix("\n") && text.contains("\nsum "), "\(text)")
    switch how {
    case "longer": text += "0 0 0 0 0\n"
    case "shorter": text = String(text.dropLast(4))
    default:
      let lines = text.split(separator: "\n")
      text = lines.dropLast().joined(separator: "\n") + "\nsum 0\n"
    }
    try text.write(toFile: record, atomically: false, encoding: .utf8)
    let checked = try sandbox.run(input: "select 8\nedit\nprice 5.00\ndone\n")
    #expect(!checked.output.contains("Saved"), "\(checked.output)")
    #expect(checked.errors.contains("quick_check"), "\(checked.errors)")
  }

  /// The catalog's write-ahead log deleted, or replaced by a copy, under a running REPL: the
  /// next `done` would commit into a log nothing reads again. It is refused in one line, the
  /// draft kept, and nothing says "Saved".
  @Test(arguments: ["deleted", "replaced"])
  func aLogDeletedOrReplacedUnderARunningREPLIsNotSavedInto(_ what: String) throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    let process = sandbox.start()
    process.send("select cherries\nedit\nprice 3.00")
    process.readOutput(until: "3.00")
    let log = sandbox.databasePath + "-wal"
    let copy = try Data(contentsOf: URL(fileURLWithPath: log))
    #expect(unlink(log) == 0)
    if what == "replaced" { try copy.write(to: URL(fileURLWithPath: log)) }
    process.send("done")
    let (output, errors) = process.finishReading()
    #expect(!output.contains("Saved"), "\(output)")
    let lines = errors.split(separator: "\n").filter { $0.hasPrefix("error: ") }
    #expect(lines.count == 1, "\(errors)")
    #expect(
      lines.first?.contains("its write-ahead log '\(log)' was deleted or replaced") == true,
      "\(errors)")
    // The draft is kept; the catalog has the old price.
    let next = try sandbox.run(input: "state\n")
    #expect(next.output.contains("3.00"), "\(next.output)")
    #expect(try sandbox.run(["export"]).output.contains("\"price\": 10.99"))
  }

  @Test func aDoneKilledAfterSavingTheCatalogIsNotAConflictWithItself() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cherries\nedit\nprice 3.00\nname Sour Cherries\n")
    // What `done` killed after the catalog's commit and before its scene file's rename leaves:
    // the catalog holds the draft; the scene still has the editor open on it.
    let database = try Database(path: sandbox.databasePath, mode: .readWrite)
    try database.run(
      "UPDATE products SET price_cents = 300, name = 'Sour Cherries', folded_name = 'sour cherries' WHERE name = 'Cherries'"
    )
    let result = try sandbox.run(input: "price 4.00\ndone\n")
    #expect(result.status == 0, "\(result.errors)")
    #expect(!result.errors.contains("another process"), "\(result.errors)")
    #expect(result.output.contains("Saved Sour Cherries."), "\(result.output)")
    #expect(try sandbox.run(input: "select sour\n").output.contains("$4.00"))
  }

  @Test func anotherProcesssChangeToTheSameFieldIsStillAConflict() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cherries\nedit\nprice 3.00\n")
    let database = try Database(path: sandbox.databasePath, mode: .readWrite)
    try database.run("UPDATE products SET price_cents = 500 WHERE name = 'Cherries'")
    let result = try sandbox.run(input: "price 4.00\ndone\n")
    #expect(result.status == 1)
    #expect(result.errors.contains("another process changed the price"), "\(result.errors)")
  }

  /// Every file the app makes is 0600 and every directory 0700, whatever the umask.
  @Test func everyFileIsPrivate() throws {
    let sandbox = CatalogSandbox()
    let old = umask(0o022)
    defer { umask(old) }
    _ = try sandbox.run(
      input: "select cherries\ntab photo\nedit\nname X\ndone\nsearch cher\nscene new side\n")
    _ = try sandbox.run(["reindex"])
    let repl = sandbox.start()
    repl.send("list")
    repl.readOutput(until: "products")
    for folder in [sandbox.stateDirectory, sandbox.dataDirectory] {
      var checked = 0
      let walker = FileManager.default.enumerator(atPath: folder)
      while let entry = walker?.nextObject() as? String {
        var status = stat()
        guard lstat(folder + "/" + entry, &status) == 0 else { continue }
        let kind = status.st_mode & S_IFMT
        if kind == S_IFSOCK { continue }  // 0600 too, checked by the delivery tests
        let expected: mode_t = kind == S_IFDIR ? 0o700 : 0o600
        #expect(
          status.st_mode & 0o777 == expected,
          "\(entry): \(String(status.st_mode & 0o777, radix: 8))")
        checked += 1
      }
      #expect(checked > 3, "\(folder)")
    }
    repl.finishInput()
  }

  @Test func theSearchIndexIsPrivate() throws {
    let sandbox = CatalogSandbox()
    let result = try sandbox.run(["reindex"])
    #expect(result.status == 0, "\(result.errors)")
    var status = stat()
    #expect(stat(sandbox.dataDirectory + "/search.index", &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
  }

  @Test(arguments: ["empty", "one block", "half", "zeros", "random"])
  func anIndexChangedUnderARunningREPLIsReadAgain(_ change: String) throws {
    let sandbox = CatalogSandbox()
    let file = sandbox.root + "/many.json"
    try Data(CatalogDatabaseTests.productsJSON(20_000).utf8).write(
      to: URL(fileURLWithPath: file))
    #expect(try sandbox.run(["import", file]).status == 0)
    #expect(try sandbox.run(["reindex"]).status == 0)
    let index = sandbox.dataDirectory + "/search.index"
    let process = sandbox.start()
    process.send("search k3")
    process.readOutput(until: "Product")
    let size = try #require(bytes(index)).count
    #expect(size > 64 * 1024)
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: index))
    switch change {
    case "empty": try handle.truncate(atOffset: 0)
    case "one block": try handle.truncate(atOffset: 4096)
    case "half": try handle.truncate(atOffset: UInt64(size / 2))
    case "zeros":
      try handle.seek(toOffset: UInt64(size / 4))
      try handle.write(contentsOf: Data(repeating: 0, count: size / 2))
    default:
      var generator = SeededGenerator(seed: 0x5EED_0001)
      try handle.seek(toOffset: UInt64(size / 4))
      try handle.write(
        contentsOf: Data((0..<(size / 2)).map { _ in UInt8.random(in: 0...255, using: &generator) })
      )
    }
    try handle.close()
    process.send("search k3")
    process.send("search \"Product 000007\"")
    process.readOutput(until: "Product 000007")
    process.send("select Product 000005")
    process.readOutput(until: "Product 000005")
    process.finishInput()
    #expect(process.terminationStatus == 0)
  }
}
