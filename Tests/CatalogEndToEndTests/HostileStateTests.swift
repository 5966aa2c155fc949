import Foundation
import TestSupport
import Testing

/// What an outside test suite found: crashes, lost data and escapes under hostile input, each
/// reproduced against the built binary.
@Suite(.serialized) struct HostileStateTests {
  static let cherries = "FA542E3D-4895-44B6-942F-E112101D5160"

  // MARK: An empty catalog

  @Test(arguments: ["[]", "{\"formatVersion\":1,\"products\":[]}"])
  func anEmptyCatalogRefusesNumbersWithoutCrashingAndKeepsDrafts(_ contents: String) throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\nedit\nname Morello\n")
    try sandbox.writeCatalog(contents)
    for line in ["select 1", "push 1", "select 0", "scene new x 1", "year 2015"] {
      let result = try sandbox.run(input: line + "\n")
      #expect(result.status <= 1, "'\(line)' ended with \(result.status): \(result.errors)")
      let errors = result.errorLines.filter { $0.hasPrefix("error: ") }
      #expect(errors.count == (line == "year 2015" ? 0 : 1), "\(line): \(result.errors)")
    }
    let first = try sandbox.run(input: "select 1\n")
    #expect(first.errors.contains("there is no product number 1; the catalog is empty"))
    #expect(first.errors.contains("has no products"))
    // The launch that found the catalog empty kept the scene with its draft.
    let kept = sandbox.quarantined().filter { $0.hasPrefix("scenes-main.") }
    #expect(kept.count == 1)
    let copy = try sandbox.contents(of: "quarantine/" + (kept.first ?? ""))
    #expect(String(decoding: copy, as: UTF8.self).contains("Morello"))
  }

  // MARK: Several processes launched at once

  /// Eight terminals starting together on one state directory, round after round: none is
  /// taken for a crash, no state is quarantined, and every scene is in the session.
  @Test func eightProcessesLaunchedAtOnceKeepEveryScene() throws {
    let rounds = 12
    for round in 1...rounds {
      let sandbox = CatalogSandbox()
      let processes = (0..<8).map { index in
        let process = sandbox.start(["--scene", "s\(index)"])
        process.send("select \(index + 1)")
        try? (process.standardInput as? Pipe)?.fileHandleForWriting.close()
        return process
      }
      for process in processes {
        let errors =
          (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        _ = (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(
          process.terminationStatus == 0,
          "round \(round): \(String(decoding: errors, as: UTF8.self))")
        #expect(errors.isEmpty, "round \(round): \(String(decoding: errors, as: UTF8.self))")
      }
      #expect(sandbox.quarantined().isEmpty, "round \(round)")
      let session = try JSONSerialization.jsonObject(with: sandbox.contents(of: "session.json"))
      let scenes = Set(((session as? [String: Any])?["scenes"] as? [String]) ?? [])
      #expect(scenes == Set((0..<8).map { "s\($0)" }), "round \(round)")
      // Every launch removed its marker at its prompt.
      let markers = try FileManager.default.contentsOfDirectory(atPath: sandbox.file("launching"))
      #expect(markers.isEmpty, "round \(round): \(markers)")
    }
  }

  @Test func launchesKilledBeforeTheirPromptStillSetTheStateAside() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\n")
    // Two launches whose processes are gone: pids that cannot be running.
    try sandbox.write(
      #"{"formatVersion": 2, "launches": [{"pid": 2147483600}, {"pid": 2147483601}]}"#,
      to: "launch.json")
    let result = try sandbox.run(input: "path\n")
    #expect(result.errors.contains("did not reach its prompt the last 2 times it started"))
    #expect(result.output.contains("the path is empty"))
    #expect(sandbox.quarantined().contains { $0.hasPrefix("scenes-main.") })
  }

  /// The markers launches leave in `launching/`: two of dead processes are two crashes; one of
  /// a live process still starting is none.
  @Test func markersOfDeadLaunchesCountAndLiveOnesDoNot() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\n")
    let folder = sandbox.file("launching")
    let sleeper = Process()
    sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
    sleeper.arguments = ["30"]
    try sleeper.run()
    defer { sleeper.terminate() }
    for name in ["2147483600.12345", "\(sleeper.processIdentifier).0"] {
      #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: nil))
    }
    let live = try sandbox.run(input: "path\n")
    #expect(!live.errors.contains("did not reach its prompt"), "\(live.errors)")
    #expect(live.output.contains("Cherries"))
    // The prompt forgave the dead one; the live one stays until its process ends.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder) == [
        "\(sleeper.processIdentifier).0"
      ])
    for name in ["2147483600.1", "2147483601.2"] {
      #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: nil))
    }
    let result = try sandbox.run(input: "path\n")
    #expect(result.errors.contains("did not reach its prompt the last 2 times it started"))
    #expect(result.output.contains("the path is empty"))
  }

  // MARK: A full disk during `done`

  /// The catalog's directory is full: the scene files are prepared, the catalog write fails,
  /// and nothing changes. Then the state directory is full: the scene files cannot even be
  /// prepared, and again nothing changes. Uses small tmpfs mounts (needs root).
  @Test(arguments: ["data", "state"])
  func aFullDiskDuringDoneChangesNothing(_ full: String) throws {
    let sandbox = CatalogSandbox()
    let mountPoint = full == "data" ? sandbox.dataDirectory : sandbox.stateDirectory
    guard let disk = SmallDisk(at: mountPoint) else { return }
    _ = try sandbox.run(input: "select cher\nedit\nprice 12.00\n")
    let catalogBefore = try sandbox.run(["export"]).output
    // The disk fills while the app runs, as it would for a person.
    let process = sandbox.start()
    process.send("state")
    process.readOutput(until: "The editor's draft")
    disk.fill()
    process.send("done")
    try? (process.standardInput as? Pipe)?.fileHandleForWriting.close()
    let output = (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
    let errorText = String(
      decoding: (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        ?? Data(), as: UTF8.self)
    process.waitUntilExit()
    let result = CatalogSandbox.Result(
      status: process.terminationStatus,
      output: String(decoding: output ?? Data(), as: UTF8.self), errors: errorText)
    #expect(result.status == 1)
    let errors = result.errorLines.filter { $0.hasPrefix("error: ") }
    #expect(errors.count == 1, "\(result.errors)")
    #expect(errors.first?.contains("No space left on device") == true, "\(result.errors)")
    // It is `done` that failed, on the file of the full disk, not the launch.
    let failedFile = full == "data" ? "/catalog.sqlite'" : "/scenes/main.json'"
    #expect(errors.first?.contains(failedFile) == true, "\(result.errors)")
    #expect(!result.output.contains("Saved"))
    disk.empty()
    let catalogAfter = try sandbox.run(["export"]).output
    #expect(catalogAfter == catalogBefore)
    #expect(catalogAfter.contains("\"price\": 10.99"))
    let main = try #require(sandbox.scene("main", in: try sandbox.stateJSON()))
    let storage = try #require(main["storage"] as? [String: Any])
    #expect(storage["DetailView.showEditView"] as? Bool == true)
    #expect(storage["EditView.editPrice"] as? String == "12.00")
    // With room again, the same draft saves.
    let saved = try sandbox.run(input: "done\n")
    #expect(saved.output.contains("Saved Cherries."), "\(saved.errors)")
    #expect(saved.output.contains("$12.00"))
    withExtendedLifetime(disk) {}  // unmounted only now
  }

  // MARK: A full disk during `scene new`

  /// The state directory has room for a few pages only: `scene new` fails on whichever file
  /// meets the full disk (the new scene's, or `session.json` after it), and a command that
  /// printed an error changed nothing — no scene file is left behind, and with room again the
  /// same `scene new` opens the scene. Uses a small tmpfs mount (needs root).
  @Test func aFullDiskDuringSceneNewLeavesNoSceneBehind() throws {
    var failedAtSession = false
    for pages in 1...6 {
      let sandbox = CatalogSandbox()
      guard let disk = SmallDisk(at: sandbox.stateDirectory) else { return }
      #expect(try sandbox.run(["select", "1"]).status == 0)
      disk.fill()
      disk.makeRoom(bytes: 4096 * pages)
      let result = try sandbox.run(input: "scene new side\n")
      disk.empty()
      if result.status == 0 {
        #expect(result.output.contains("Opened scene 'side'."), "\(result.output)")
        withExtendedLifetime(disk) {}
        break
      }
      #expect(result.errorLines.count == 1, "\(result.errors)")
      #expect(result.errors.contains("No space left on device"), "\(result.errors)")
      failedAtSession = failedAtSession || result.errors.contains("session.json")
      #expect(!sandbox.exists("scenes/side.json"), "\(pages) pages: \(result.errors)")
      let again = try sandbox.run(input: "scene new side\n")
      #expect(again.status == 0, "\(pages) pages: \(again.errors)")
      #expect(again.output.contains("Opened scene 'side'."), "\(again.output)")
      withExtendedLifetime(disk) {}  // unmounted only now
    }
    #expect(failedAtSession, "no run met the full disk at session.json")
  }

  // MARK: A full disk during an import

  /// The data directory fills during an import: into a new data directory (the database built
  /// in a temporary file) and into a catalog that has products (through a staging table in the
  /// data directory). Each says so in one line naming the catalog, not a temporary file, leaves
  /// no temporary file, and changes nothing. Uses a small tmpfs mount (needs root).
  @Test func aFullDiskDuringAnImportChangesNothing() throws {
    let sandbox = CatalogSandbox()
    guard let disk = SmallDisk(at: sandbox.dataDirectory, kilobytes: 2048) else { return }
    let large = try sandbox.writeFile("large.json", CatalogDatabaseTests.productsJSON(40_000))
    let catalog = "'\(sandbox.dataDirectory)/catalog.sqlite'"
    func expectRefused(_ result: CatalogSandbox.Result) {
      #expect(result.status == 1)
      #expect(result.errorLines.count == 1, "\(result.errors)")
      #expect(result.errors.contains("cannot save the catalog \(catalog)"), "\(result.errors)")
      #expect(result.errors.contains("No space left on device"), "\(result.errors)")
      let left = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.dataDirectory)) ?? []
      #expect(!left.contains { $0.hasSuffix(".tmp") || $0.hasPrefix("etilqs") }, "\(left)")
    }
    expectRefused(try sandbox.run(["import", large]))
    #expect(!FileManager.default.fileExists(atPath: sandbox.dataDirectory + "/catalog.sqlite"))

    let small = try sandbox.writeFile("small.json", CatalogDatabaseTests.productsJSON(1_000))
    #expect(try sandbox.run(["import", small]).status == 0)
    let before = try sandbox.run(["export"]).output
    expectRefused(try sandbox.run(["import", large]))
    #expect(try sandbox.run(["export"]).output == before)
    withExtendedLifetime(disk) {}  // unmounted only now
  }

  // MARK: Two processes editing one product

  /// Process A opens the editor on Cherries and changes its draft with `draftLine`; then
  /// process B, in scene `b`, saves Cherries at $5.00 while A's editor is still open.
  private func editWhileAnotherSaves(_ sandbox: CatalogSandbox, draftLine: String) throws
    -> Process
  {
    _ = try sandbox.run(input: "list\n")
    let first = sandbox.start()
    first.send("select 9")
    first.send("edit")
    first.send(draftLine)
    first.readOutput(until: String(draftLine.split(separator: " ", maxSplits: 1)[1]))
    let second = try sandbox.run(["--scene", "b"], input: "select 9\nedit\nprice 5.00\ndone\n")
    #expect(second.output.contains("Saved Cherries."), "\(second.errors)")
    return first
  }

  @Test func twoProcessesEditingDifferentFieldsKeepBoth() throws {
    let sandbox = CatalogSandbox()
    let first = try editWhileAnotherSaves(sandbox, draftLine: "name Renamed by A")
    first.send("done")
    first.send("quit")
    let output = first.readOutput(until: "Saved")
    first.waitUntilExit()
    #expect(first.terminationStatus == 0)
    #expect(output.contains("Saved Renamed by A."))
    let product = try #require(
      try sandbox.catalogProducts().first { $0["identifier"] as? String == Self.cherries })
    #expect(product["name"] as? String == "Renamed by A")
    #expect((product["price"] as? NSNumber)?.doubleValue == 5.0)
  }

  @Test func twoProcessesEditingTheSameFieldRefuseWithBothValues() throws {
    let sandbox = CatalogSandbox()
    let first = try editWhileAnotherSaves(sandbox, draftLine: "price 7.00")
    first.send("done")
    first.send("state")
    first.send("quit")
    _ = first.readOutput(until: "The editor's draft")
    let errors = String(
      decoding: (first.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        ?? Data(), as: UTF8.self)
    first.waitUntilExit()
    #expect(
      errors
        == "error: another process changed the price of 'Cherries' to $5.00 since this edit began, and the draft has $7.00; type 'price 5.00' to keep theirs, or 'done --force' to save yours\n"
    )
    var product = try #require(
      try sandbox.catalogProducts().first { $0["identifier"] as? String == Self.cherries })
    #expect((product["price"] as? NSNumber)?.doubleValue == 5.0)
    // The draft is still there, and the user may insist.
    let forced = try sandbox.run(["--scene", "main"], input: "done --force\n")
    #expect(forced.output.contains("Saved Cherries."), "\(forced.errors)")
    product = try #require(
      try sandbox.catalogProducts().first { $0["identifier"] as? String == Self.cherries })
    #expect((product["price"] as? NSNumber)?.doubleValue == 7.0)
  }

  // MARK: Links, FIFOs and modes

  static let lockFiles = [
    "state:locks/scene-main.lock", "state:locks/session.lock",
    "data:catalog.sqlite",
  ]

  @Test(arguments: lockFiles)
  func aSymlinkedLockFileIsNeverWrittenThrough(_ location: String) throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select mango\n")
    let parts = location.split(separator: ":").map(String.init)
    let folder = parts[0] == "state" ? sandbox.stateDirectory : sandbox.dataDirectory
    let lock = folder + "/" + parts[1]
    let victim = sandbox.root + "/victim"
    try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
    try? FileManager.default.removeItem(atPath: lock)
    try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: victim)
    // Each lock is taken by something this script does: launching, a new scene, a history
    // write, saving an edit.
    let result = try sandbox.run(
      input: "select cher\nscene new side cher\nedit\nname Morello\ndone\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("precious\n".utf8))
    let reports = result.errorLines.filter { $0.contains(lock) }
    #expect(!reports.isEmpty, "\(result.errors)")
    #expect(reports.allSatisfy { $0.contains("is a symbolic link") }, "\(result.errors)")
    #expect(
      (try? FileManager.default.destinationOfSymbolicLink(atPath: lock)) == victim,
      "the link was replaced")
  }

  @Test(arguments: ["scenes", "locks", "quarantine"])
  func aSymlinkedFolderIsRefusedWithOneLine(_ folder: String) throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select mango\n")
    let outside = sandbox.root + "/outside"
    try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
    let path = sandbox.file(folder)
    try? FileManager.default.removeItem(atPath: path)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside)
    // A bad session file would send the launch to quarantine/ too.
    try sandbox.write("junk", to: "session.json")
    let result = try sandbox.run(input: "select cher\n")
    #expect(result.status == 1)
    #expect(
      result.errorLines == [
        "error: cannot write '\(path)': it is a symbolic link; remove it and try again"
      ])
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
    // Nothing was read through the link, moved, or written over.
    #expect(try sandbox.contents(of: "session.json") == Data("junk".utf8))
  }

  /// The quarantine folder turns into a link while the app runs, and the session file goes
  /// bad: the file can be neither read nor set aside, so it is not written over.
  @Test func aFileThatCannotBeSetAsideIsNeverOverwritten() throws {
    let sandbox = CatalogSandbox()
    let process = sandbox.start()
    process.send("select mango")
    process.readOutput(until: "Mango")
    let outside = sandbox.root + "/outside"
    try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: sandbox.file("quarantine"), withDestinationPath: outside)
    try sandbox.write("junk", to: "session.json")
    process.send("scene new side")
    try? (process.standardInput as? Pipe)?.fileHandleForWriting.close()
    _ = (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
    let errors = String(
      decoding: (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        ?? Data(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(errors.hasPrefix("error: '\(sandbox.file("session.json"))' is not valid"), "\(errors)")
    #expect(errors.contains("it cannot be moved to quarantine"), "\(errors)")
    #expect(try sandbox.contents(of: "session.json") == Data("junk".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
  }

  @Test func looseModesAreMadePrivateAndSaidOnce() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select mango\n")
    try sandbox.write("junk", to: "session.json")
    #expect(chmod(sandbox.file("session.json"), 0o644) == 0)
    #expect(chmod(sandbox.stateDirectory, 0o755) == 0)
    #expect(chmod(sandbox.dataDirectory, 0o755) == 0)
    #expect(chmod(sandbox.file("scenes/main.json"), 0o644) == 0)
    let first = try sandbox.run(input: "path\n")
    let said = first.errorLines.filter { $0.contains("was open to other users") }
    #expect(said.count == 2, "\(first.errors)")
    func mode(_ path: String) -> Int? {
      try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }
    #expect(mode(sandbox.stateDirectory) == 0o700)
    #expect(mode(sandbox.dataDirectory) == 0o700)
    #expect(mode(sandbox.file("scenes/main.json")) == 0o600)
    for file in sandbox.quarantined() {
      #expect(mode(sandbox.file("quarantine/" + file)) == 0o600, "\(file)")
    }
    let second = try sandbox.run(input: "path\n")
    #expect(second.errors.isEmpty, "\(second.errors)")
  }

  @Test func aFIFOInPlaceOfAStateFileIsSetAsideWithoutHanging() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select mango\n")
    try FileManager.default.removeItem(atPath: sandbox.file("scenes/main.json"))
    #expect(mkfifo(sandbox.file("scenes/main.json"), 0o600) == 0)
    let snapshot = try sandbox.run(["state", "--json"], timeout: 20)
    #expect(snapshot.status == 0)
    #expect(snapshot.errors.contains("is not a regular file"))
    let result = try sandbox.run(input: "path\n", timeout: 20)
    #expect(result.status == 0)
    #expect(result.output.contains("the path is empty"))
    #expect(result.errors.contains("is not a regular file"))
    #expect(sandbox.quarantined().contains { $0.hasPrefix("scenes-main.") })
  }

  // MARK: Control characters

  @Test(arguments: [
    ("%1B%5B2J", "\\u{1B}[2J"), ("a%0Ab", "a\\u{A}b"), ("a%00b", "a\\u{0}b"),
    ("%E2%80%AEevil", "\\u{202E}evil"), ("%C2%9B31m", "\\u{9B}31m"),
  ])
  func controlCharactersFromALinkAreShownEscaped(_ encoded: String, _ shown: String) throws {
    let sandbox = CatalogSandbox()
    for arguments in [["open", "catalog://product/" + encoded], []] {
      let result = try sandbox.run(
        arguments, input: arguments.isEmpty ? "open catalog://product/\(encoded)\n" : "")
      #expect(result.status == 1)
      #expect(result.errorLines.count == 1, "\(result.errors.debugDescription)")
      #expect(result.errors.contains("'\(shown)'"), "\(result.errors.debugDescription)")
      #expect(!result.errors.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }
  }

  @Test func controlCharactersFromPlantedFilesAreShownEscaped() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select mango\n")
    try sandbox.write(
      #"{"formatVersion":1,"scenes":["bad\nline\u001b[31m"],"activeScene":"main"}"#,
      to: "session.json")
    try sandbox.write(
      #"{"formatVersion":1,"name":"main","storage":{"EditView.editTitle":{"type":"string","value":"x\u001b[2Jy"},"Evil\u001b]0;title\u0007":{"type":"int","value":1}}}"#,
      to: "scenes/main.json")
    let result = try sandbox.run(input: "state\n")
    let everything = result.output + result.errors
    #expect(!everything.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    #expect(result.errors.contains("\\u{1B}"), "\(result.errors)")
    #expect(result.output.contains("x\\u{1B}[2Jy"), "\(result.output)")
    #expect(result.errorLines.allSatisfy { $0.hasPrefix("warning: ") || $0.hasPrefix("error: ") })
  }

  // MARK: A bad session beside good scene files

  @Test func aBadSessionIsRebuiltFromTheSceneFilesBesideIt() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(
      input:
        "select cher\nscene new side mango\ntab photo\nscene new w3 ginger\nscene switch side\n")
    try sandbox.write(
      #"{"formatVersion":1,"scenes":["main","side","w3"],"activeScene":7}"#, to: "session.json")
    let result = try sandbox.run(input: "scenes\n")
    #expect(result.status == 0)
    #expect(result.errorLines.count == 1, "\(result.errors)")
    #expect(result.errors.contains("rebuilt the session from 3 scene files"))
    for name in ["main", "side", "w3"] { #expect(result.output.contains(name)) }
    #expect(result.output.contains("Mango") && result.output.contains("Ginger"))
    // `scene new side` cannot overwrite it: it is open again, with its storage.
    let again = try sandbox.run(input: "scene new side\nscene switch side\nstate\n")
    #expect(again.errors.contains("already open"))
    #expect(again.output.contains("photo"))
    let side = try #require(sandbox.scene("side", in: try sandbox.stateJSON()))
    #expect((side["storage"] as? [String: Any])?["DetailView.selectedTab"] as? String == "photo")
  }

  @Test func aNewSceneNeverOverwritesAFileLeftUnlisted() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "scene new side mango\ntab photo\nscene switch main\n")
    let orphan = try sandbox.contents(of: "scenes/side.json")
    // The session lost the scene (as an older version's quarantine did).
    try sandbox.write(
      #"{"formatVersion":1,"scenes":["main"],"activeScene":"main"}"#, to: "session.json")
    // A readable saved scene is never replaced by a fresh one, nor set aside: `scene new`
    // says how to open it, and `scene switch` restores it.
    let refused = try sandbox.run(input: "scene new side\n")
    #expect(refused.status == 1)
    #expect(refused.errors.contains("scene 'side' is saved with its state"), "\(refused.errors)")
    #expect(try sandbox.contents(of: "scenes/side.json") == orphan)
    let result = try sandbox.run(input: "scene switch side\n")
    #expect(result.output.contains("Opened saved scene 'side'."), "\(result.output)")
    #expect(result.output.contains("[photo]"))
    #expect(sandbox.quarantined().isEmpty)
  }

  // MARK: launch.json

  @Test(arguments: ["junk", "directory"])
  func anUnreadableLaunchFileIsSetAsideWithAWarning(_ kind: String) throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select mango\n")
    try? FileManager.default.removeItem(atPath: sandbox.file("launch.json"))
    if kind == "junk" {
      try sandbox.write("{{{", to: "launch.json")
    } else {
      try sandbox.createStateDirectory(["launch.json/inner"])
    }
    let result = try sandbox.run(input: "path\n")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errorLines.count == 1, "\(result.errors)")
    #expect(result.errors.contains("launch.json"))
    #expect(result.errors.contains("quarantine"))
    #expect(result.output.contains("Mango"))
    #expect(sandbox.quarantined().contains { $0.hasPrefix("launch.") })
  }

  @Test func aDirectoryInPlaceOfTheSessionIsSetAside() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select mango\n")
    try FileManager.default.removeItem(atPath: sandbox.file("session.json"))
    try sandbox.createStateDirectory(["session.json"])
    let result = try sandbox.run(input: "path\n")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.contains("is not a regular file"))
    #expect(result.output.contains("Mango"))
  }

  // MARK: Oversized products and abandoned temporary files

  @Test func aProductBreakingTheEditorsRulesIsLeftOutAndTheRestWorks() throws {
    let sandbox = CatalogSandbox()
    let huge = String(repeating: "N", count: 10 << 20)
    try sandbox.writeCatalog(
      """
      [{"identifier":"5D3F0C2A-1A8B-4C1E-9E3A-2B7D6F1C0A11","name":"\(huge)","imageName":"Mango","year":2001,"price":1},
       {"identifier":"\(Self.cherries)","name":"Cherries","imageName":"Cherries","year":2015,"price":10.99}]
      """)
    let result = try sandbox.run(input: "list\nselect 1\n")
    #expect(result.status == 0, "\(result.errors)")
    // Imported without it, which stays in the earlier file, kept.
    #expect(result.errorLines.count == 2, "\(result.errors)")
    #expect(result.errors.contains("left out 1 that break the editor's rules"))
    #expect(result.errors.contains("record 1: the name has 10485760 bytes; the limit is 65536"))
    #expect(result.output.contains("Cherries"))
    #expect(!result.output.contains("NNNN"))
    #expect(try sandbox.catalogProducts().count == 1)
    let kept = try Data(
      contentsOf: URL(fileURLWithPath: sandbox.dataDirectory + "/products.json.imported"))
    #expect(kept.count > 10 << 20)
  }

  @Test func temporaryFilesOfKilledWritersAreSweptAtLaunch() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select mango\n")
    let dead = deadProcessIdentifier()
    let abandoned = [
      sandbox.file("scenes/.main.json.\(dead).4242.tmp"),
      sandbox.file(".session.json.\(dead).7.tmp"),
      sandbox.dataDirectory + "/.products.json.\(dead).99.tmp",
    ]
    let live = sandbox.file("scenes/.main.json.1.5.tmp")  // pid 1 is running
    for path in abandoned + [live] {
      try Data("partial".utf8).write(to: URL(fileURLWithPath: path))
    }
    let result = try sandbox.run(input: "path\n")
    #expect(result.status == 0)
    for path in abandoned { #expect(!FileManager.default.fileExists(atPath: path), "\(path)") }
    #expect(FileManager.default.fileExists(atPath: live))
  }
}

/// A small tmpfs mounted for a test, to fill up; unmounted when the value is destroyed. Mounting
/// needs root: where it is refused, the initializer prints why and gives nil.
final class SmallDisk {
  let path: String
  private var filler: String { path + "/.filler" }

  init?(at path: String, kilobytes: Int = 512) {
    self.path = path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let mount = Process()
    mount.executableURL = URL(fileURLWithPath: "/bin/mount")
    mount.arguments = ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0700", "tmpfs", path]
    mount.standardError = FileHandle.nullDevice
    guard (try? mount.run()) != nil else {
      print("skipped: cannot run mount")
      return nil
    }
    mount.waitUntilExit()
    guard mount.terminationStatus == 0 else {
      print("skipped: cannot mount a tmpfs here (needs root)")
      return nil
    }
  }

  /// Fills the disk until a write fails with ENOSPC.
  func fill() {
    let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    let chunk = [UInt8](repeating: 0x55, count: 1024)
    while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    // The last partial block too.
    while write(descriptor, chunk, 1) > 0 {}
  }

  /// Makes room for a number of bytes on a full disk.
  func makeRoom(bytes: Int) {
    var status = stat()
    guard stat(filler, &status) == 0 else { return }
    truncate(filler, max(0, status.st_size - off_t(bytes)))
  }

  /// Makes room again.
  func empty() {
    unlink(filler)
  }

  /// Mounts the disk again, read-only or writable.
  func setReadOnly(_ readOnly: Bool) {
    let mount = Process()
    mount.executableURL = URL(fileURLWithPath: "/bin/mount")
    mount.arguments = ["-o", readOnly ? "remount,ro" : "remount,rw", path]
    try? mount.run()
    mount.waitUntilExit()
  }

  deinit {
    let umount = Process()
    umount.executableURL = URL(fileURLWithPath: "/bin/umount")
    umount.arguments = ["-l", path]
    try? umount.run()
    umount.waitUntilExit()
  }
}
