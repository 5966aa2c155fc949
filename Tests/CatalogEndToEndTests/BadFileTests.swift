import Foundation
import Testing

@Suite(.serialized) struct BadFileTests {
  static let corruptions: [(String, Data)] = [
    (
      "truncated",
      Data(
        "{\"formatVersion\": 1, \"name\": \"side\", \"storage\": {\"DetailView.selectedTab\": {\"type\": \"str"
          .utf8)
    ),
    ("not JSON", Data("this is not json\n".utf8)),
    (
      "wrong types",
      Data(
        "{\"formatVersion\": 1, \"name\": \"side\", \"storage\": {\"DetailView.showEditView\": {\"type\": \"bool\", \"value\": \"yes\"}}}"
          .utf8)
    ),
    (
      "newer formatVersion",
      Data("{\"formatVersion\": 2, \"name\": \"side\", \"storage\": {}}".utf8)
    ),
    ("binary", Data([0xFF, 0xFE, 0x00, 0x01, 0x80])),
    (
      "another scene's file",
      Data("{\"formatVersion\": 1, \"name\": \"main\", \"storage\": {}}".utf8)
    ),
  ]

  @Test(arguments: corruptions)
  func aBadSceneFileIsQuarantinedAndOnlyThatSceneStartsFresh(_ label: String, _ contents: Data)
    throws
  {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\ntab photo\nscene new side mango\nscene switch main\n")
    try sandbox.write(contents, to: "scenes/side.json")
    // `catalog state` reads without moving anything: it warns and shows the scene empty.
    let snapshot = try sandbox.run(["state", "--json"])
    #expect(snapshot.status == 0)
    #expect(snapshot.errorLines.count == 1, "\(label): \(snapshot.errors)")
    let shown = try JSONSerialization.jsonObject(with: Data(snapshot.output.utf8)) as? [String: Any]
    let side = try #require(shown.flatMap { sandbox.scene("side", in: $0) })
    #expect((side["storage"] as? [String: Any])?.isEmpty == true, "\(label)")
    #expect(sandbox.quarantined().isEmpty)

    let result = try sandbox.run(input: "scenes\nscene switch side\nstate\n")
    #expect(result.status == 0, "\(label): \(result.errors)")
    let warnings = result.errorLines.filter { $0.hasPrefix("warning: ") }
    #expect(warnings.count == 1, "\(label): \(result.errors)")
    #expect(warnings.first?.contains("scenes/side.json") == true)
    #expect(warnings.first?.contains("quarantine") == true)
    #expect(result.output.contains("Scene 'side' has no stored values."), "\(label)")
    #expect(sandbox.quarantined().count == 1 && sandbox.quarantined()[0].hasPrefix("scenes-side."))
    let kept = try sandbox.contents(of: "quarantine/" + sandbox.quarantined()[0])
    #expect(kept == contents)
    // The other scene is intact.
    let main = try #require(
      sandbox.scene("main", in: try sandbox.stateJSON())?["storage"] as? [String: Any])
    #expect(main["DetailView.selectedTab"] as? String == "photo")
  }

  @Test func aHugeSceneFileIsRefusedUnread() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\n")
    let path = sandbox.file("scenes/main.json")
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.truncate(atOffset: 100 << 20)  // 100 MB, sparse
    try handle.close()
    let result = try sandbox.run(input: "state\n")
    #expect(result.status == 0)
    #expect(result.errors.contains("is too large (104857600 bytes"))
    #expect(result.output.contains("Scene 'main' has no stored values."))
    #expect(sandbox.quarantined().count == 1)
  }

  @Test func aBadSessionFileIsQuarantinedAndTheAppStarts() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\n")
    try sandbox.write("{\"formatVersion\": 1, \"scenes\": [\"../../etc\"]}", to: "session.json")
    let result = try sandbox.run(input: "scenes\n")
    #expect(result.status == 0)
    #expect(result.errors.contains("session.json"))
    #expect(result.output.contains("*  main  Cherries"))
  }

  @Test func anUnreadableCatalogIsNeverOverwrittenAndEditsAreRefused() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    let catalogPath = sandbox.databasePath
    let broken = Data(String(repeating: "not a database\n", count: 500).utf8)
    try broken.write(to: URL(fileURLWithPath: catalogPath))
    let result = try sandbox.run(input: "list\nselect cher\nedit\nname Morello\ndone\n")
    #expect(result.status == 1)
    #expect(
      result.errorLines.first?.hasPrefix(
        "warning: cannot use the catalog '\(catalogPath)' (it is not a SQLite database)") == true,
      "\(result.errors)")
    #expect(
      result.errorLines.last?.hasPrefix("error: edits are refused because the catalog") == true)
    #expect(result.output.contains("Cherries"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: catalogPath)) == broken)
    // The draft is kept, so nothing typed is lost once the file is fixed.
    #expect(result.output.contains("Name      Morello"))
  }

  @Test func twoLaunchesThatNeverReachedThePromptMakeTheThirdStartFresh() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\nscene new side\n")
    // What two crashes before the prompt leave behind: the counter at 2.
    try sandbox.write("{\"formatVersion\": 1, \"unfinishedLaunches\": 2}", to: "launch.json")
    let result = try sandbox.run(input: "scenes\nstate\n")
    #expect(result.status == 0)
    #expect(result.errors.contains("did not reach its prompt the last 2 times"))
    #expect(result.output.contains("Scene 'main' has no stored values."))
    #expect(sandbox.quarantined().count == 3)  // session, main, side
    // The next launch is normal again.
    let next = try sandbox.run(input: "state\n")
    #expect(next.errors.isEmpty)
  }
}

@Suite(.serialized) struct OwnershipTests {
  @Test func aSecondProcessIsRefusedASceneALiveProcessOwnsAndGetsItAfter() throws {
    let sandbox = CatalogSandbox()
    let owner = sandbox.start()
    owner.send("select cher")
    owner.readOutput(until: "Keywords")
    let refused = try sandbox.run(["--scene", "main"], input: "state\n")
    #expect(refused.status == 1)
    #expect(
      refused.errorLines == [
        "error: scene 'main' is open in another catalog process (pid \(owner.processIdentifier)); quit it there first, or run 'catalog' without --scene, which opens a free scene"
      ])
    // Refused launches are not crashes: three of them do not set the state aside.
    for _ in 0..<3 {
      #expect(try sandbox.run(["--scene", "main"]).status == 1)
    }
    // Another scene works meanwhile, and does not disturb the owner's.
    let other = try sandbox.run(["--scene", "other"], input: "select mango\n")
    #expect(other.status == 0, "\(other.errors)")
    try (owner.standardInput as? Pipe)?.fileHandleForWriting.close()
    owner.waitUntilExit()
    let granted = try sandbox.run(["--scene", "main"], input: "state\n")
    #expect(granted.status == 0, "\(granted.errors)")
    #expect(granted.output.contains("FA542E3D-4895-44B6-942F-E112101D5160"))
    #expect(granted.errors.isEmpty)
    #expect(sandbox.quarantined().isEmpty)
    let state = try sandbox.stateJSON()
    #expect(
      (state["scenes"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [
        "main", "other",
      ])
  }

  @Test func aKilledOwnerReleasesItsScene() throws {
    let sandbox = CatalogSandbox()
    let owner = sandbox.start()
    owner.send("scenes")
    owner.readOutput(until: "main")
    owner.killHard()
    let result = try sandbox.run(input: "scenes\n")
    #expect(result.status == 0, "\(result.errors)")
  }
}

@Suite(.serialized) struct BadInputTests {
  @Test func badLinesAreOneLineErrorsWithStateUnchangedAndExitStatusOne() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\ntab photo\n")
    let before = try sandbox.contents(of: "scenes/main.json")
    var script = Data()
    script += Data("frobnicate\nselect\ntab\nscene new\nback 99\n".utf8)
    script += Data(repeating: UInt8(ascii: "x"), count: 1 << 20) + Data("\n".utf8)  // a 1 MB line
    script += Data("select \u{01}cher\n".utf8)  // a control character
    script += Data([0x73, 0x65, 0x6C, 0xFF, 0xFE, 0x0A])  // invalid UTF-8
    script += Data("select 999999999999999999999999\nscene new ../../etc\n".utf8)
    let result = try sandbox.run(inputData: script)
    #expect(result.status == 1)
    #expect(result.output.isEmpty)
    #expect(result.errorLines.count == 10, "\(result.errors)")
    #expect(result.errorLines.allSatisfy { $0.hasPrefix("error: ") })
    #expect(
      result.errorLines[5]
        == "error: the line is too long (1048577 bytes; the limit is 65536); type a shorter command"
    )
    #expect(
      result.errorLines[7]
        == "error: the line is not valid UTF-8; check the terminal's or the script's encoding")
    #expect(try sandbox.contents(of: "scenes/main.json") == before)
  }

  @Test func aCleanScriptExitsZeroAndCommentsAreIgnored() throws {
    let sandbox = CatalogSandbox()
    let result = try sandbox.run(input: "# browse\n\nlist   \n  # done\n")
    #expect(result.status == 0)
    #expect(result.errors.isEmpty)
  }

  /// A REPL command given as arguments runs as a one-line script, as people try first.
  @Test func replCommandsRunAsArguments() throws {
    let sandbox = CatalogSandbox()
    let list = try sandbox.run(["list"])
    #expect(list.status == 0, "\(list.errors)")
    #expect(list.output.contains("10 products."), "\(list.output)")
    let select = try sandbox.run(["select", "Red Rose"])
    #expect(select.output.hasPrefix("Red Rose\n"), "\(select.output)")
    let missing = try sandbox.run(["select", "nothing-here"])
    #expect(missing.status == 1)
    #expect(
      missing.errorLines == [
        "error: no product matches 'nothing-here'; type 'list' to see the products"
      ])
    #expect(try sandbox.run(["path"]).output.contains("Red Rose"))
    // Quotes and backslashes in an argument are kept, not read as the REPL's quoting.
    let named = try sandbox.run(["add", #"Fish "n" \ chips"#])
    #expect(named.output.contains(#"Fish "n" \ chips"#), "\(named.output)")
  }

  /// Options after a one-shot command's words are the process's (SPEC section 8): the data
  /// directory given last is the one read, not words of the product's name.
  @Test func optionsAfterAOneShotCommandAreReadAsOptions() throws {
    let other = CatalogSandbox()
    let added = try other.run(input: "add Kiwi Gold\ndone\n")
    #expect(added.status == 0, "\(added.errors)")
    let sandbox = CatalogSandbox()
    let select = try sandbox.run(["select", "kiwi", "--data-dir", other.dataDirectory])
    #expect(select.status == 0, "\(select.errors)")
    #expect(select.output.hasPrefix("Kiwi Gold\n"), "\(select.output)")
    let list = try sandbox.run(["list", "1", "--data-dir", other.dataDirectory])
    #expect(list.output.contains("11 products."), "\(list.output)")
  }

  @Test(arguments: [
    (["--bogus"], "error: unknown option '--bogus'; see 'catalog --help'"),
    (["--scene"], "error: '--scene' needs a value; see 'catalog --help'"),
    (
      ["--scene", "a/b"],
      "error: 'a/b' is not a valid scene name (letters, digits, '.', '_', '-'; at most 64); see 'catalog --help'"
    ),
    (
      ["--color", "sometimes"],
      "error: '--color' takes auto, always or never, not 'sometimes'; see 'catalog --help'"
    ),
    (
      ["launch"],
      "error: unknown command 'launch' (REPL commands run as 'catalog COMMAND …' too, or piped: echo list | catalog); see 'catalog --help'"
    ),
    (
      ["lsit"], "error: unknown command 'lsit' (did you mean 'catalog list'?); see 'catalog --help'"
    ),
  ])
  func usageErrorsExitWith64(_ arguments: [String], _ message: String) throws {
    let result = try CatalogSandbox().run(arguments)
    #expect(result.status == 64)
    #expect(result.errorLines == [message])
  }

  @Test func helpAndVersion() throws {
    let sandbox = CatalogSandbox()
    let help = try sandbox.run(["--help"])
    #expect(help.status == 0 && help.output.hasPrefix("usage: catalog"))
    let version = try sandbox.run(["--version"])
    #expect(version.status == 0 && version.output.hasPrefix("catalog "))
  }

  /// What needs no directory answers without HOME or XDG variables to find them by.
  @Test(arguments: [["--version"], ["--help"], ["--generate-completion-script", "bash"]])
  func answersThatNeedNoDirectoryNeedNoHome(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = CatalogSandbox.executable
    process.arguments = arguments
    process.environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    let complaints = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(String(decoding: complaints, as: UTF8.self))")
    #expect(!printed.isEmpty && complaints.isEmpty)
  }
}
