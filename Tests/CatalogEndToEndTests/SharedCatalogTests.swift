import Foundation
import PostgreSQL
import TestSupport
import Testing

/// A catalog on PostgreSQL shared by several "machines" (sandboxes with their own state and data
/// directories naming one database), and what a user sees when the server fails them.
@Suite struct SharedCatalogTests {
  static let cherries = "A5A7BC30-9B83-4D7B-8C33-9E6F2C3E2C59"

  /// Machine B's search finds machine A's edit at once, from B's own index file overlaid from
  /// the catalog's change log; a deletion on B is seen by A's next command.
  @Test func oneMachinesEditsAreSeenAndFoundOnAnother() throws {
    let first = try CatalogSandbox(.postgres)
    let second = CatalogSandbox(sharingCatalogOf: first)
    // The first launch anywhere seeds the catalog; a search from the shell changes nothing.
    _ = try first.run(input: "list\n")
    #expect(try second.run(["search", "cherries"]).output.contains("Cherries"))
    let index = try #require(
      try FileManager.default.contentsOfDirectory(atPath: second.dataDirectory).first {
        $0.hasPrefix("search-") && $0.hasSuffix(".index")
      })
    let built = try Data(contentsOf: URL(fileURLWithPath: second.dataDirectory + "/" + index))
    let edited = try first.run(input: "select cherries\nedit\nname Morello\ndone\n")
    #expect(edited.output.contains("Saved Morello."), "\(edited.errors)")
    let found = try second.run(["search", "morello", "--json"])
    #expect(found.output.contains("\"product\": \"Morello\""), "\(found.output)")
    #expect(!(try second.run(["search", "cherries"]).output.contains("Cherries")))
    // B's index was not built again: the edit was laid over it.
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: second.dataDirectory + "/" + index)) == built)
    let deleted = try second.run(input: "delete ginger\nadd Quince\ndone\n")
    #expect(deleted.output.contains("Deleted Ginger."), "\(deleted.errors)")
    let list = try first.run(input: "list\n").output
    #expect(
      list.contains("10 products.") && !list.contains("Ginger") && list.contains("Quince"),
      "\(list)")
    // Neither machine keeps a catalog file: the data directory holds only the index.
    #expect(!FileManager.default.fileExists(atPath: first.dataDirectory + "/catalog.sqlite"))
    // `catalog reindex` builds this machine's index of the shared catalog again.
    let reindexed = try second.run(["reindex"])
    #expect(reindexed.status == 0, "\(reindexed.errors)")
    #expect(reindexed.output.hasPrefix("Indexed 10 products in "), "\(reindexed.output)")
    #expect(reindexed.output.contains(second.dataDirectory + "/" + index))
  }

  /// Machines that start at once on a new database make its catalog once between them: each
  /// waits for the one making it, then finds it made, and none fails.
  @Test func machinesStartingAtOnceOnANewDatabaseAllStart() throws {
    let first = try CatalogSandbox(.postgres)
    let machines = [first] + (0..<3).map { _ in CatalogSandbox(sharingCatalogOf: first) }
    let processes = machines.map { $0.start(["list"]) }
    for process in processes {
      let (output, errors) = process.finishReading()
      #expect(process.terminationStatus == 0, "\(errors)")
      #expect(errors.isEmpty, "\(errors)")
      #expect(output.contains("10 products."), "\(output)")
    }
  }

  /// Two machines editing one product over TCP (127.0.0.1, a password): different fields merge,
  /// the same field is refused with both values, as between two processes on one machine.
  @Test func twoMachinesEditingOneProductOverTCPMergeOrRefuse() throws {
    let server = try PostgresTestServer.shared
    let first = try CatalogSandbox(.postgres)
    let database = try #require(first.catalogDatabase)
    let second = CatalogSandbox(sharingCatalogOf: first)
    // A password in the environment, never in the URL: as a user would keep it.
    for (sandbox, machine) in [(first, "desk"), (second, "laptop")] {
      sandbox.environment["CATALOG_URL"] =
        "postgresql://\(server.user)@127.0.0.1:\(server.port)/\(database)"
      sandbox.environment["PGPASSWORD"] = server.password
      sandbox.environment["CATALOG_MACHINE"] = machine
    }
    _ = try first.run(input: "list\n")
    let editor = first.start([])
    editor.send("select cherries")
    editor.send("edit")
    editor.send("price 7.00")
    editor.send("name Sour Cherries")
    editor.readOutput(until: "Sour Cherries")
    let other = try second.run(input: "select cherries\nedit\nprice 5.00\ndone\n")
    #expect(other.output.contains("Saved Cherries."), "\(other.errors)")
    editor.send("done")
    let (_, errors) = editor.finishReading()
    #expect(
      errors
        == "error: machine 'laptop' changed the price of 'Cherries' to $5.00 since this edit began, and the draft has $7.00; type 'price 5.00' to keep theirs, or 'done --force' to save yours\n"
    )
    let merged = try first.run(input: "price 5.00\ndone\n")
    #expect(merged.output.contains("Saved Sour Cherries."), "\(merged.errors)")
    let shown = try second.run(input: "select sour\n").output
    #expect(shown.contains("Sour Cherries") && shown.contains("$5.00"), "\(shown)")
  }

  /// `kill -9` in the middle of an import (its records streaming to the server): the server
  /// rolls the transaction back, and the shared catalog is as it was.
  @Test func anImportKilledPartWayLeavesTheSharedCatalogAsItWas() throws {
    let sandbox = try CatalogSandbox(.postgres)
    let before = try sandbox.run(["export", "--format", "csv"])
    #expect(before.status == 0, "\(before.errors)")
    let file = try sandbox.writeFile("many.json", CatalogDatabaseTests.productsJSON(300_000))
    let importing = sandbox.start(["import", file])
    Thread.sleep(forTimeInterval: 2)
    #expect(importing.isRunning, "the import ended before it was killed")
    importing.killHard()
    #expect(try sandbox.run(["export", "--format", "csv"]).output == before.output)
    let imported = try sandbox.run(["import", file])
    #expect(imported.output.hasPrefix("Imported 300,000 new"), "\(imported.errors)")
  }

  /// An import is one transaction: a bad record leaves the shared catalog as it was.
  @Test func aRefusedImportLeavesTheSharedCatalogAsItWas() throws {
    let sandbox = try CatalogSandbox(.postgres)
    let before = try sandbox.run(["export", "--format", "csv"])
    #expect(before.status == 0, "\(before.errors)")
    var rows = "name,imageName,year,price\n"
    for number in 1...30_000 { rows += "Product \(number),,2020,1\n" }
    rows += "Broken,,twenty,1\n"
    let refused = try sandbox.run(["import", try sandbox.writeFile("bad.csv", rows)])
    #expect(refused.status == 1)
    #expect(refused.errorLines.count == 1, "\(refused.errors)")
    #expect(try sandbox.run(["export", "--format", "csv"]).output == before.output)
  }

  /// Handoff between machines: one publishes its activity, the other's running REPL prints one
  /// line above its prompt (LISTEN/NOTIFY), lists it with the machine's name and continues it;
  /// scene state stays on each machine. A catalog on one machine says what it needs.
  @Test func aHandoffReachesTheOtherMachinesRunningREPL() throws {
    let desk = try CatalogSandbox(.postgres)
    desk.environment["CATALOG_MACHINE"] = "desk"
    let laptop = CatalogSandbox(sharingCatalogOf: desk)
    laptop.environment["CATALOG_MACHINE"] = "laptop"
    _ = try desk.run(input: "list\n")
    let receiver = laptop.start([])
    receiver.send("select mango")
    receiver.readOutput(until: "Mango")
    let sent = try desk.run(input: "select cherries\nhandoff --to-machine\n")
    #expect(
      sent.output.contains("Handed off 'Show Cherries product' to your other machines"),
      "\(sent.errors)")
    receiver.readOutput(until: "Handed off from machine 'desk': 'Show Cherries product'")
    receiver.send("activities --elsewhere")
    receiver.readOutput(until: "desk")
    receiver.send("continue --elsewhere 1")
    receiver.readOutput(until: "Continued 'Show Cherries product' from machine 'desk'.")
    let (_, errors) = receiver.finishReading()
    #expect(errors.isEmpty, "\(errors)")
    // The laptop's scene is on Cherries; the desk's own handoff is not offered back to it.
    let main = try #require(laptop.scene("main", in: try laptop.stateJSON()))
    #expect((main["activity"] as? [String: Any])?["title"] as? String == "Show Cherries product")
    #expect(
      try desk.run(input: "activities --elsewhere\n").output.hasPrefix(
        "No activities from your other machines"))

    let alone = CatalogSandbox()
    let refused = try alone.run(input: "select mango\nhandoff --to-machine\n")
    #expect(
      refused.errors
        == "error: handing off to another machine needs a catalog the machines share on a server; start with --catalog-url (see 'Sharing a catalog' in the README), or hand off to a scene: 'handoff SCENE'\n"
    )
  }

  /// The server ends the connection a REPL listens for handoffs on: the listener connects
  /// again by itself, and a handoff published after that is announced as before.
  @Test func aHandoffListenerWhoseConnectionEndedListensAgain() throws {
    let desk = try CatalogSandbox(.postgres)
    desk.environment["CATALOG_MACHINE"] = "desk"
    let database = try #require(desk.catalogDatabase)
    let laptop = CatalogSandbox(sharingCatalogOf: desk)
    laptop.environment["CATALOG_MACHINE"] = "laptop"
    _ = try desk.run(input: "list\n")
    let administrator = try PostgresConnection(
      PostgresAddress(try #require(desk.catalogURL)), applicationName: "administrator")
    func listeners() throws -> Int {
      try administrator.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'catalog handoffs' AND datname = $1",
        [database]
      ).integer ?? 0
    }
    func waitForListener() throws {
      for _ in 0..<200 where try listeners() == 0 { usleep(50_000) }
      #expect(try listeners() == 1)
    }
    let receiver = laptop.start([])
    receiver.send("select mango")
    receiver.readOutput(until: "Mango")
    try waitForListener()
    let ended = try administrator.execute(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'catalog handoffs' AND datname = $1",
      [database])
    #expect(ended.integer == 1)
    for _ in 0..<100 where try listeners() == 1 { usleep(20_000) }
    try waitForListener()
    let sent = try desk.run(input: "select cherries\nhandoff --to-machine\n")
    #expect(sent.status == 0, "\(sent.errors)")
    receiver.readOutput(until: "Handed off from machine 'desk': 'Show Cherries product'")
    let (_, errors) = receiver.finishReading()
    #expect(errors.isEmpty, "\(errors)")
    #expect(receiver.terminationStatus == 0)
  }

  /// Input ends while the handoff listener's thread is still connecting (a password over
  /// TCP: libpq hashes it with the TLS library, whose exit handler frees what that needs):
  /// the process waits for the thread to give up, and exits cleanly, every time. The thread
  /// starts as the loop waits for its next line, after the list.
  @Test func inputEndingWhileTheHandoffListenerConnectsExitsCleanly() throws {
    let server = try PostgresTestServer.shared
    let sandbox = try CatalogSandbox(.postgres)
    let database = try #require(sandbox.catalogDatabase)
    sandbox.environment["CATALOG_URL"] = server.tcpURL(database: database)
    for _ in 0..<20 {
      let process = sandbox.start([])
      process.send("list")
      process.readOutput(until: "10 products.")
      let (_, errors) = process.finishReading()
      #expect(process.terminationStatus == 0, "\(errors)")
      #expect(errors.isEmpty, "\(errors)")
    }
  }

  /// A script whose lines are all there when it starts makes one connection to the server:
  /// it ends before a handoff could be announced, so it does not listen for one. (The server
  /// counts the sessions of each database.)
  @Test func aScriptWhoseLinesAreAllThereConnectsOnce() throws {
    let sandbox = try CatalogSandbox(.postgres)
    let database = try #require(sandbox.catalogDatabase)
    let administrator = try PostgresConnection(
      PostgresAddress(try #require(sandbox.catalogURL)), applicationName: "administrator")
    _ = try sandbox.run(input: "list\n")
    func sessions() throws -> Int {
      _ = try administrator.execute("SELECT pg_stat_force_next_flush()")
      return try administrator.execute(
        "SELECT sessions FROM pg_stat_database WHERE datname = $1", [database]
      ).integer ?? 0
    }
    // Settled: the sessions before this one have ended and been counted.
    func settled() throws -> Int {
      var last = try sessions()
      for _ in 0..<50 {
        usleep(200_000)
        let now = try sessions()
        if now == last { return now }
        last = now
      }
      return last
    }
    let before = try settled()
    let script = try sandbox.writeFile(
      "script.txt", "select mango\ntab photo\ntab detail\nselect cherries\nlist\n")
    let process = Process()
    process.executableURL = CatalogSandbox.executable
    process.arguments = [
      "--state-dir", sandbox.stateDirectory, "--data-dir", sandbox.dataDirectory,
    ]
    process.environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }
    process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: script))
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(try settled() == before + 1)
  }

  /// SQLite, zlib, the C++ library and the unwinder are linked into `catalog`: a session on
  /// SQLite maps no shared library but the C library, its math library and the loader, none of
  /// which a process has to find, map and bind symbols from as it starts.
  @Test func aSessionOnSQLiteMapsTheCLibraryAlone() throws {
    let sandbox = CatalogSandbox()
    let process = sandbox.start([])
    defer { process.finishInput() }
    process.send("list")
    process.readOutput(until: "10 products.")
    let maps = Self.mappedFiles(of: process)
    #expect(maps.contains("[stack]"), "the whole list was read")
    let libraries = Set(
      maps.split(separator: "\n").compactMap { $0.split(separator: "/").last.map(String.init) }
        .filter { $0.contains(".so") })
    #expect(libraries == ["libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"])
  }

  /// libpq is loaded when a server is named, not at every start: what it links (TLS, Kerberos,
  /// LDAP) took about 3.5 ms of every `catalog` process, most of which never use a server.
  @Test func theClientLibraryIsNotLoadedUntilAServerIsNamed() throws {
    let sandbox = CatalogSandbox()
    let process = sandbox.start([])
    process.send("list")
    process.readOutput(until: "10 products.")
    let maps = Self.mappedFiles(of: process)
    // The whole list was read: the stack, mapped above every library, is in it.
    #expect(maps.contains("[stack]"))
    #expect(!maps.contains("libpq"), "libpq is loaded by a catalog that names no server")
    process.finishInput()

    let shared = try CatalogSandbox(.postgres)
    let connected = shared.start([])
    connected.send("list")
    connected.readOutput(until: "10 products.")
    let loaded = Self.mappedFiles(of: connected)
    #expect(loaded.contains("libpq"))
    connected.finishInput()
  }

  /// What a process has mapped, read to the end (a file of `/proc` reports no size).
  static func mappedFiles(of process: Process) -> String {
    let handle = FileHandle(forReadingAtPath: "/proc/\(process.processIdentifier)/maps")
    defer { try? handle?.close() }
    return String(decoding: handle?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
  }

  // MARK: - Faults

  @Test func noServerAtLaunchIsOneLineAndChangesNothingHere() throws {
    let sandbox = CatalogSandbox()
    sandbox.environment["CATALOG_URL"] = "postgresql://ann@127.0.0.1:1/shop?connect_timeout=3"
    for arguments in [[], ["list"], ["search", "rose"], ["export"], ["reindex"]] {
      let result = try sandbox.run(arguments, input: "list\n")
      #expect(result.status == 1, "\(arguments)")
      #expect(
        result.errors
          == "error: cannot connect to the catalog 'postgresql://ann@127.0.0.1:1/shop': Connection refused; is the server running, and is the address right?\n",
        "\(arguments): \(result.errors)")
    }
    #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory))
    #expect(!FileManager.default.fileExists(atPath: sandbox.dataDirectory))
  }

  /// A catalog URL that cannot be read, and a database the server does not have: one line
  /// each, saying what to do, and nothing made here.
  @Test func aWrongURLOrDatabaseIsOneLineSayingWhatToDo() throws {
    let server = try PostgresTestServer.shared
    let sandbox = CatalogSandbox()
    let unreadable = try sandbox.run(["--catalog-url", "mysql://shop/products", "list"])
    #expect(unreadable.status == 1)
    #expect(
      unreadable.errors
        == "error: the catalog URL cannot be read (missing \"=\" after \"mysql://shop/products\" in connection info string); give --catalog-url or CATALOG_URL a postgresql:// URI or a libpq keyword string (host=… dbname=…)\n"
    )
    let missing = try sandbox.run(
      ["--catalog-url", server.socketURL(database: "no_such_catalog"), "list"])
    #expect(missing.status == 1)
    #expect(missing.errorLines.count == 1, "\(missing.errors)")
    #expect(
      missing.errors.hasSuffix(
        "': database \"no_such_catalog\" does not exist; create it (createdb), or name another database in --catalog-url or CATALOG_URL\n"
      ), "\(missing.errors)")
    #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory))
    #expect(!FileManager.default.fileExists(atPath: sandbox.dataDirectory))
  }

  /// A wrong password in the environment is one line; one on the command line is the same line
  /// after the warning that the command line is readable by others.
  @Test func aWrongPasswordIsOneLineNamingNoPassword() throws {
    let server = try PostgresTestServer.shared
    let sandbox = CatalogSandbox()
    sandbox.environment["PGPASSWORD"] = "not-the-password"
    let fromEnvironment = try sandbox.run(
      ["--catalog-url", "postgresql://\(server.user)@127.0.0.1:\(server.port)/postgres", "list"])
    let result = try sandbox.run(
      ["--catalog-url", server.tcpURL(database: "postgres", password: "not-the-password"), "list"])
    #expect(result.status == 1 && fromEnvironment.status == 1)
    #expect(result.errorLines.first?.hasPrefix("warning: a password on the command line") == true)
    #expect(result.errorLines.dropFirst().joined() == fromEnvironment.errors.dropLast())
    #expect(
      fromEnvironment.errors
        == "error: cannot connect to the catalog 'postgresql://postgres@127.0.0.1:\(server.port)/postgres': password authentication failed for user \"postgres\"; check the user, and the password in ~/.pgpass or PGPASSWORD\n"
    )
    #expect(!result.errors.contains("not-the-password"))
  }

  @Test func aCatalogOfANewerSchemaIsRefusedInOneLine() throws {
    let sandbox = try CatalogSandbox(.postgres)
    #expect(try sandbox.run(["list"]).status == 0)
    let connection = try PostgresConnection(
      PostgresAddress(try #require(sandbox.catalogURL)), applicationName: "tests")
    try connection.run("UPDATE catalog.info SET value = 99 WHERE key = 'schema_version'")
    let result = try sandbox.run(["list"])
    #expect(result.status == 1)
    #expect(
      result.errors.hasSuffix(
        "its catalog schema version 99 is newer than this program's 9; use a newer catalog\n"),
      "\(result.errors)")
    #expect(result.errorLines.count == 1)
    // Refused after the launch began in the state directory, while the server read the
    // state: not a launch that died, however often.
    for _ in 0..<4 { #expect(try sandbox.run(["list"]).status == 1) }
    try connection.run("UPDATE catalog.info SET value = 9 WHERE key = 'schema_version'")
    let again = try sandbox.run(["list"])
    #expect(again.status == 0)
    #expect(again.errors.isEmpty, "\(again.errors)")
    #expect(
      (try? FileManager.default.contentsOfDirectory(atPath: sandbox.file("launching"))) ?? []
        == [])
  }

  /// Rows another program adds, removes or renumbers (without the app's block counts) are
  /// what every command sees: the count, the list, `select N` and search agree with the rows.
  /// The app's own edits are not taken for another program's.
  @Test func rowsAnotherProgramChangedAreCountedListedAndFound() throws {
    let sandbox = try CatalogSandbox(.postgres)
    #expect(try sandbox.run(["list"]).output.contains("10 products."))
    let connection = try PostgresConnection(
      PostgresAddress(try #require(sandbox.catalogURL)), applicationName: "another program")
    func identity() throws -> Int? {
      try connection.execute("SELECT value FROM catalog.info WHERE key = 'identity'").integer
    }
    // The app's own edit leaves the counts as they are: no recount, no new identity.
    let before = try identity()
    #expect(try sandbox.run(input: "select mango\nedit\nprice 7.00\ndone\n").status == 0)
    #expect(try identity() == before)
    try connection.run(
      "INSERT INTO catalog.products VALUES ('6B4C5F43-3D0E-4A55-9B64-0C8E7C3B2A11', 11, 'Quince', 'quince', '', 2020, 500, 'fruit', 0, NULL)"
    )
    let listed = try sandbox.run(["list"])
    #expect(listed.output.contains("11 products."), "\(listed.output)")
    #expect(listed.output.contains("11  Quince"), "\(listed.output)")
    #expect(try sandbox.run(["select", "11"]).output.contains("Quince"))
    #expect(try sandbox.run(["search", "quince"]).output.contains("Show Quince product"))
    #expect(try identity() != before)
    try connection.run("DELETE FROM catalog.products WHERE name IN ('Mango', 'Ginger')")
    let after = try sandbox.run(["list"])
    #expect(after.output.contains("9 products."), "\(after.output)")
    #expect(try sandbox.run(["select", "9"]).output.contains("Quince"))
  }

  /// The app's own writes are told from another program's before the trigger function is
  /// called: no session of the app runs it (which would load PL/pgSQL and compile the function
  /// in every new process's first write); another program's write does.
  @Test func theAppsOwnWritesNeverCallTheTriggerFunction() throws {
    let sandbox = try CatalogSandbox(.postgres)
    #expect(try sandbox.run(["list"]).output.contains("10 products."))
    let database = try #require(sandbox.catalogDatabase)
    let address = try PostgresAddress(try #require(sandbox.catalogURL))
    let watcher = try PostgresConnection(address, applicationName: "watcher")
    try watcher.run("ALTER DATABASE \"\(database)\" SET track_functions = 'pl'")
    /// The calls of the function the server's statistics hold, once no session of the app is
    /// left (each one's are counted as it ends).
    func calls() throws -> Int {
      for _ in 0..<200 {
        let open = try watcher.execute(
          "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'catalog'",
          [database])
        if open.integer == 0 { break }
        usleep(50_000)
      }
      _ = try watcher.execute("SELECT pg_stat_clear_snapshot()")
      return try watcher.execute(
        "SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions WHERE funcname = 'note_foreign_change'"
      ).integer ?? 0
    }
    // An edit, an addition and a deletion: the products, the blocks and their groups.
    let edits = try sandbox.run(
      input:
        "select mango\nedit\nprice 7.00\ndone\nadd Quince\nprice 5.00\ndone\ndelete quince\n"
    )
    #expect(edits.status == 0, "\(edits.errors)")
    #expect(try sandbox.run(["list"]).output.contains("10 products."))
    #expect(try calls() == 0)
    // Another program's write, in a session of its own, which counts its call as it ends.
    do {
      let other = try PostgresConnection(address, applicationName: "another program")
      try other.run("SET track_functions = 'pl'")
      try other.run("UPDATE catalog.products SET year = year WHERE name = 'Mango'")
    }
    var counted = 0
    for _ in 0..<200 where counted == 0 {
      counted = try calls()
      if counted == 0 { usleep(50_000) }
    }
    #expect(counted == 1)
  }

  /// A server that refuses to read the products (an administrator took the right away) is not
  /// a catalog without them: the restored scene keeps its product, its file is not written or
  /// set aside, and once the products can be read again the scene shows it.
  @Test func aProductTheServerRefusesToReadKeepsTheSavedScene() throws {
    let sandbox = try CatalogSandbox(.postgres)
    #expect(try sandbox.run(["select", "mango"]).status == 0)
    let scene = sandbox.stateDirectory + "/scenes/main.json"
    let saved = try Data(contentsOf: URL(fileURLWithPath: scene))
    let connection = try PostgresConnection(
      PostgresAddress(try #require(sandbox.catalogURL)), applicationName: "administrator")
    let role = "reader_" + UUID().uuidString.prefix(8).lowercased()
    try connection.run(
      """
      CREATE ROLE \(role); GRANT USAGE ON SCHEMA catalog TO \(role);
      GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA catalog TO \(role);
      REVOKE SELECT ON catalog.products FROM \(role)
      """)
    defer { try? connection.run("DROP OWNED BY \(role); DROP ROLE \(role)") }
    sandbox.environment["PGOPTIONS"] = "-c role=\(role)"
    let refused = try sandbox.run(["path"])
    #expect(refused.errors.contains("permission denied for table products"), "\(refused.errors)")
    #expect(!refused.errors.contains("no longer in the catalog"), "\(refused.errors)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: scene)) == saved)
    #expect(sandbox.quarantined().isEmpty)
    sandbox.environment["PGOPTIONS"] = nil
    let shown = try sandbox.run(["path"])
    #expect(shown.output.contains("product  Mango"), "\(shown.output)\(shown.errors)")
    #expect(shown.errors.isEmpty, "\(shown.errors)")
  }

  /// The server ends an idle REPL's connection (a restart, an administrator's command): the
  /// next command's reads connect again and it works, with no error to type it again for.
  @Test func aConnectionTheServerClosedWhileIdleIsOpenedAgainForTheNextRead() throws {
    let sandbox = try CatalogSandbox(.postgres)
    let database = try #require(sandbox.catalogDatabase)
    let process = sandbox.start()
    process.send("list")
    process.readOutput(until: "10 products.")
    let administrator = try PostgresConnection(
      PostgresAddress(try #require(sandbox.catalogURL)), applicationName: "administrator")
    let ended = try administrator.execute(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'catalog' AND datname = $1",
      [database])
    #expect(ended.integer == 1)
    process.send("select 3")
    process.readOutput(until: "Orchid")
    let (_, errors) = process.finishReading()
    #expect(!errors.contains("error:"), "\(errors)")
    #expect(!errors.contains("lost the connection"), "\(errors)")
  }

  /// How a proxy between the app and the server loses a save's `COMMIT`.
  enum CommitFault: CaseIterable, Sendable {
    /// The server commits, and its reply is lost on the way.
    case replyLost
    /// The connection is cut before `COMMIT` reaches the server, which rolls it back.
    case cutBefore
  }

  /// A sandbox on a new catalog on the tests' server, reached through a proxy of its own.
  private func sandboxThroughProxy() throws -> (CatalogSandbox, PostgresProxy) {
    let server = try PostgresTestServer.shared
    let sandbox = try CatalogSandbox(.postgres)
    let database = try #require(sandbox.catalogDatabase)
    let proxy = try PostgresProxy(serverPort: server.port)
    sandbox.environment["CATALOG_URL"] =
      "postgresql://\(server.user)@127.0.0.1:\(proxy.port)/\(database)?sslmode=disable&gssencmode=disable"
    sandbox.environment["PGPASSWORD"] = server.password
    return (sandbox, proxy)
  }

  /// A save whose `COMMIT` is lost either way is saved once and said to be: a reply lost
  /// after the server committed is found committed on a new connection; a change the server
  /// rolled back is made once more there. Never reported failed, never made twice.
  @Test(arguments: CommitFault.allCases)
  func aSaveWhoseCommitWasLostIsSavedOnceAndSaidSo(_ fault: CommitFault) throws {
    let (sandbox, proxy) = try sandboxThroughProxy()
    func loseTheNextCommit() {
      switch fault {
      case .replyLost: proxy.commitRepliesToDrop = 1
      case .cutBefore: proxy.commitsToCut = 1
      }
    }
    _ = try sandbox.run(input: "select cherries\nedit\nprice 7.00\n")
    loseTheNextCommit()
    let done = try sandbox.run(input: "done\n")
    #expect(proxy.droppedReplies == (fault == .replyLost ? 1 : 0))
    #expect(proxy.commitsToCut <= 0)
    #expect(done.output.contains("Saved Cherries."), "\(done.output)\(done.errors)")
    #expect(!done.errors.contains("error:"), "\(done.errors)")
    #expect(try sandbox.run(["select", "cherries"]).output.contains("$7.00"))
    loseTheNextCommit()
    let added = try sandbox.run(input: "add Quince\ndone\n")
    #expect(added.output.contains("Added Quince."), "\(added.output)\(added.errors)")
    #expect(!added.errors.contains("error:"), "\(added.errors)")
    #expect(try sandbox.run(["list"]).output.contains("11 products."))
  }

  /// A command from the shell asks the server what it needs once: the catalog's state read
  /// as it launched, with the product its scene showed, serves the command that follows at
  /// once, not asked for again.
  @Test func aCommandFromTheShellAsksTheServerNoMoreThanItNeeds() throws {
    let (sandbox, proxy) = try sandboxThroughProxy()
    _ = try sandbox.run(["select", "cherries"])
    let before = proxy.requests
    let shown = try sandbox.run(["select", "2"])
    #expect(shown.status == 0, "\(shown.errors)")
    // The catalog's state with the product the scene showed and product 2, in one request.
    #expect(proxy.requests - before == 1)
  }

  /// A script's lines sent before the launch read the catalog run on that read, the product the
  /// first selects read with it: the edit as typed asks for nothing more than what `done` must
  /// (two round trips); a line the REPL waited for asks again.
  @Test func aScriptsLinesReadTogetherAskTheServerOnce() throws {
    let (sandbox, proxy) = try sandboxThroughProxy()
    _ = try sandbox.run(["select", "cherries"])
    var before = proxy.requests
    let typed = try sandbox.run(input: "select 2\nedit\nprice 9.99\ndone\n", sentFirst: true)
    #expect(typed.status == 0, "\(typed.errors)")
    #expect(typed.output.contains("Saved"), "\(typed.output)")
    // The launch, with product 2 the first line names (the lines were sent before it), and
    // `done`'s two.
    #expect(proxy.requests - before == 3)
    let repl = sandbox.start([])
    repl.send("path")
    repl.readOutput(until: "product")
    before = proxy.requests
    for _ in 0..<2 {
      repl.send("path")
      repl.readOutput(until: "product")
    }
    // Each line's refresh (and the handoff listener's, once the REPL first waited).
    #expect(proxy.requests - before >= 2)
    _ = repl.finishReading()
  }

  /// A link or a command from the shell that names its product by identifier reads it with
  /// the catalog's state too; a name needs a lookup of its own.
  @Test func aProductNamedByIdentifierFromTheShellComesWithTheState() throws {
    let (sandbox, proxy) = try sandboxThroughProxy()
    _ = try sandbox.run(["select", "cherries"])
    // The bundled catalog's Mango and Ginger.
    let mango = "3F6624CC-5105-492C-A307-235E78AAC4BC"
    let ginger = "d0a816c6-0c80-496d-a665-15e84fd7b5c7"
    var before = proxy.requests
    let linked = try sandbox.run(["open", "catalog://product/\(mango)"])
    #expect(linked.status == 0, "\(linked.errors)")
    #expect(linked.output.contains("Mango"), "\(linked.output)")
    #expect(proxy.requests - before == 1)
    before = proxy.requests
    let selected = try sandbox.run(["select", ginger])
    #expect(selected.status == 0, "\(selected.errors)")
    #expect(selected.output.contains("Ginger"), "\(selected.output)")
    #expect(proxy.requests - before == 1)
  }

  /// A command from the shell leaves the activity history to the batches its scene files
  /// keep: while a server starts the session, it does not open the history either, and one
  /// that never answers leaves the history's file as it was.
  @Test func aCommandFromTheShellLeavesTheHistoryClosedWhileTheServerStarts() throws {
    let sandbox = CatalogSandbox()
    // A history, made on SQLite.
    #expect(try sandbox.run(["select", "1"]).status == 0)
    let made = try sandbox.run(["activities"])
    #expect(made.status == 0, "\(made.errors)")
    let history = sandbox.stateDirectory + "/activities.sqlite"
    let before = try Data(contentsOf: URL(fileURLWithPath: history))
    let silent = try SilentServer()
    sandbox.environment["CATALOG_URL"] =
      "postgresql://nobody@127.0.0.1:\(silent.port)/catalog?sslmode=disable&gssencmode=disable&connect_timeout=3"
    let process = sandbox.start(["select", "1"])
    func historyIsOpen() -> Bool {
      let folder = "/proc/\(process.processIdentifier)/fd"
      return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0))?
          .hasSuffix("/activities.sqlite") == true
      }
    }
    // Until the process gives up on the server (`connect_timeout`).
    var opened = false
    while !opened && process.isRunning {
      opened = historyIsOpen()
      if !opened { Thread.sleep(forTimeInterval: 0.005) }
    }
    #expect(!opened, "the history was opened by a command that does not use it")
    let errors =
      (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(String(decoding: errors, as: UTF8.self).hasPrefix("error: "))
    #expect(try Data(contentsOf: URL(fileURLWithPath: history)) == before)
    withExtendedLifetime(silent) {}
  }

  /// `catalog state` reads the products its scenes show with the catalog's state: one request,
  /// however many scenes and products.
  @Test func theStateFromTheShellAsksTheServerOnce() throws {
    let (sandbox, proxy) = try sandboxThroughProxy()
    let made = try sandbox.run(input: "select cherries\npush mango\nscene new side ginger\n")
    #expect(made.status == 0, "\(made.errors)")
    let before = proxy.requests
    let state = try sandbox.run(["state"])
    #expect(state.status == 0, "\(state.errors)")
    #expect(state.errors.isEmpty, "\(state.errors)")
    #expect(proxy.requests - before == 1)
  }

  @Test func tlsAskedOfAServerWithoutItIsOneLine() throws {
    let server = try PostgresTestServer.shared
    let sandbox = CatalogSandbox()
    sandbox.environment["PGPASSWORD"] = server.password
    let url =
      "postgresql://\(server.user)@127.0.0.1:\(server.port)/postgres?sslmode=require"
    let result = try sandbox.run(["--catalog-url", url, "list"])
    #expect(result.status == 1)
    #expect(result.errorLines.count == 1, "\(result.errors)")
    #expect(result.errors.contains("(sslmode=require)"), "\(result.errors)")
  }

  /// The server stops under a running REPL: the command that needed it fails in one line, the
  /// scene is kept, and once the server is back the next command connects again.
  @Test func aLostConnectionFailsOneCommandAndTheNextReconnects() throws {
    let server = try PostgresTestServer()
    defer { server.remove() }
    let sandbox = CatalogSandbox()
    sandbox.environment["CATALOG_URL"] = server.socketURL(database: try server.makeDatabase())
    let repl = sandbox.start([])
    repl.send("select mango")
    repl.readOutput(until: "Mango")
    server.stop()
    repl.send("select cherries")
    // The command fails on standard error; the REPL waits for the next.
    Thread.sleep(forTimeInterval: 1)
    try server.start()
    repl.send("select cherries")
    repl.readOutput(until: "Cherries")
    let (_, errors) = repl.finishReading()
    let lines = errors.split(separator: "\n")
    #expect(lines.count == 1, "\(errors)")
    #expect(
      lines.first?.hasPrefix("error: lost the connection to the catalog 'postgresql://") == true,
      "\(errors)")
    #expect(lines.first?.hasSuffix("nothing was changed; the next command connects again") == true)
    // The scene was saved on Cherries once the server came back.
    let state = try sandbox.stateJSON()
    let main = try #require(sandbox.scene("main", in: state))
    #expect((main["activity"] as? [String: Any])?["title"] as? String == "Show Cherries product")
  }

  /// The server stops under a running REPL: the commands that need no server go on with the
  /// products read before — the path, stored values, scenes, help, the tab, the editor's
  /// fields, search of the local index — while a read or a save that needs it is refused in one
  /// line with the draft kept, and saved once the server is back.
  @Test func commandsThatNeedNoServerWorkWhileItIsDown() throws {
    let server = try PostgresTestServer()
    defer { server.remove() }
    let sandbox = CatalogSandbox()
    sandbox.environment["CATALOG_URL"] = server.socketURL(database: try server.makeDatabase())
    let repl = sandbox.start([])
    repl.send("search fruit")
    repl.readOutput(until: "continue N")
    repl.send("select mango")
    repl.send("edit")
    repl.send("price 9.50")
    repl.readOutput(until: "9.50")
    server.stop()
    repl.send("path")
    repl.readOutput(until: "product  Mango")
    repl.send("state")
    repl.readOutput(until: "The editor's draft")
    repl.send("scenes")
    repl.send("help tab")
    repl.readOutput(until: "tab detail|photo")
    repl.send("search cher")
    repl.readOutput(until: "title: prefix 'cher' of 'Cherries'")
    repl.send("done")
    repl.send("select cherries")
    repl.send("name Mango Deluxe")
    repl.readOutput(until: "Mango Deluxe")
    try server.start()
    repl.send("done")
    repl.readOutput(until: "Saved Mango Deluxe.")
    let (output, errors) = repl.finishReading()
    let lines = errors.split(separator: "\n")
    #expect(lines.count == 2, "\(errors)")
    #expect(lines.allSatisfy { $0.hasPrefix("error: lost the connection to the catalog") })
    #expect(!output.contains("Cherries\n  Year"), "\(output)")
    let saved = try sandbox.run(["select", "mango deluxe"])
    #expect(saved.output.contains("$9.50"), "\(saved.output)\(saved.errors)")
  }
}
