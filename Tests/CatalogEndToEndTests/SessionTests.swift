import Foundation
import Testing

/// Every terminal a window: a plain `catalog` in another terminal opens the scenes no process
/// has open, or a new one; every process sees every scene and who has it.
@Suite(.serialized) struct SessionTests {
  /// The scenes `state --json` lists: name, phase and owner's pid.
  static func scenes(_ sandbox: CatalogSandbox) throws -> [(String, String, Int?)] {
    let state = try sandbox.stateJSON()
    return ((state["scenes"] as? [[String: Any]]) ?? []).map { scene in
      (
        scene["name"] as? String ?? "", scene["phase"] as? String ?? "",
        (scene["owner"] as? [String: Any])?["pid"] as? Int
      )
    }
  }

  /// The line of a `scenes` listing for a scene, its words separated by single spaces.
  static func row(_ name: String, in output: String) -> String {
    output.split(separator: "\n").map {
      $0.split(separator: " ").joined(separator: " ")
    }.first { $0.hasPrefix(name + " ") || $0.hasPrefix("* " + name + " ") } ?? ""
  }

  static func close(_ process: Process) {
    process.finishInput()
  }

  /// What a terminal showed, without escape sequences and carriage returns.
  static func plain(_ text: String) -> String {
    let stripped = text.replacing(/\u{1B}\[[0-9;?]*[A-Za-z]/, with: "")
    return String(String.UnicodeScalarView(stripped.unicodeScalars.filter { $0 != "\r" }))
  }

  @Test func aScriptBesideATerminalWorksInAPassingScene() throws {
    let sandbox = CatalogSandbox()
    let first = sandbox.start()
    first.send("select cher")
    first.readOutput(until: "Keywords")
    let second = try sandbox.run(input: "scenes\nscene switch main\n")
    #expect(Self.row("main-2", in: second.output) == "* main-2 here", "\(second.output)")
    #expect(
      Self.row("main", in: second.output)
        == "main Cherries pid \(first.processIdentifier), in front", "\(second.output)")
    #expect(
      second.errorLines == [
        "warning: every scene of the session is open in another terminal; this run uses a scene of its own, 'main-2', which is not kept",
        "error: scene 'main' is open in another terminal (pid \(first.processIdentifier)); go to that terminal, or type 'handoff main' to continue this scene's activity there",
      ])
    // The script's scene is not left behind in the session.
    first.send("scenes")
    first.send("path")
    let listing = first.readOutput(until: "Path of scene")
    #expect(!listing.contains("main-2"), "\(listing)")
    first.finishInput()
  }

  /// One command from the shell beside a running REPL prints what it was asked for: no word
  /// of the scene it borrows, and not the editor a scene comes back to.
  @Test func aOneShotCommandPrintsOnlyWhatItWasAskedFor() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\nedit\nname Sour\n")
    let alone = try sandbox.run(["path"])
    #expect(alone.status == 0, "\(alone.errors)")
    #expect(alone.output.hasPrefix("Path of scene"), "\(alone.output)")
    let repl = sandbox.start()
    repl.send("cancel")
    repl.send("select mango")
    repl.readOutput(until: "Keywords")
    let beside = try sandbox.run(["list"])
    #expect(beside.status == 0, "\(beside.errors)")
    #expect(beside.errors.isEmpty, "\(beside.errors)")
    #expect(beside.output.contains("10 products."), "\(beside.output)")
    repl.finishInput()
  }

  @Test func aPlainLaunchRestoresTheScenesNoRunningProcessHasOpen() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\nscene new side mango\n")
    let first = sandbox.start(["--scene", "side"])
    first.send("tab photo")
    first.readOutput(until: "photo")
    let second = try sandbox.run(input: "scenes\n")
    #expect(second.status == 0, "\(second.errors)")
    #expect(
      second.output.contains(
        "Scene 'side' is open in another terminal; type 'scenes' to see them all."),
      "\(second.output)")
    #expect(Self.row("main", in: second.output) == "* main Cherries here", "\(second.output)")
    #expect(
      Self.row("side", in: second.output)
        == "side Mango [photo] pid \(first.processIdentifier), in front", "\(second.output)")
    first.finishInput()
  }

  @Test func stateShowsOwnersAndTruePhasesAcrossProcesses() throws {
    let sandbox = CatalogSandbox()
    let first = sandbox.start()
    first.send("select cher")
    first.send("scene new side mango")
    first.readOutput(until: "Opened scene 'side'")
    // Two more terminals: each gets a new scene of its own, which the session keeps.
    let secondTerminal = try PseudoTerminal()
    let second = try secondTerminal.start(sandbox, environment: ["NO_COLOR": "1"])
    secondTerminal.read(until: "main-2")
    let thirdTerminal = try PseudoTerminal()
    let third = try thirdTerminal.start(sandbox, environment: ["NO_COLOR": "1"])
    thirdTerminal.read(until: "main-3")
    thirdTerminal.type("scenes\r")
    // The listing up to the end of the second terminal's row.
    var drawn = thirdTerminal.read(until: "pid \(second.processIdentifier)")
    drawn += thirdTerminal.read(until: "\n")
    let shown = Self.plain(drawn)
    // What follows the echo of the command.
    let listing = shown.components(separatedBy: "› scenes\n").last ?? shown
    #expect(Self.row("main-3", in: listing) == "* main-3 here", "\(listing)")
    #expect(
      Self.row("main", in: listing) == "main Cherries pid \(first.processIdentifier)",
      "\(listing)")
    #expect(
      Self.row("side", in: listing) == "side Mango pid \(first.processIdentifier), in front",
      "\(listing)")
    #expect(
      Self.row("main-2", in: listing)
        == "main-2 pid \(second.processIdentifier), \(Self.ptsname(secondTerminal)), in front",
      "\(listing)")
    var scenes = try Self.scenes(sandbox)
    #expect(scenes.map(\.0) == ["main", "side", "main-2", "main-3"])
    #expect(scenes.map(\.1) == ["inactive", "active", "active", "active"])
    #expect(
      scenes.map(\.2) == [
        Int(first.processIdentifier), Int(first.processIdentifier),
        Int(second.processIdentifier), Int(third.processIdentifier),
      ])
    // A scene whose process died is in the background, with no owner; its activity keeps the
    // date its file holds.
    first.killHard()
    scenes = try Self.scenes(sandbox)
    #expect(scenes.map(\.1) == ["background", "background", "active", "active"])
    #expect(scenes[0].2 == nil)
    let state = try sandbox.stateJSON()
    let main = try #require((state["scenes"] as? [[String: Any]])?.first)
    let activity = try #require(main["activity"] as? [String: Any])
    #expect(activity["lastActiveDate"] as? String != nil, "\(activity)")
    let text = try sandbox.run(["state"]).output
    #expect(text.contains("scene main (background, not open, saved just now): Cherries"), "\(text)")
    #expect(
      text.contains(
        "scene main-2 (active, open in pid \(second.processIdentifier), \(Self.ptsname(secondTerminal))): product list"
      ), "\(text)")
    #expect(secondTerminal.quit(second) == 0)
    #expect(thirdTerminal.quit(third) == 0)
  }

  /// Two terminals: each lists the other's scene with its terminal.
  @Test(arguments: CatalogEngine.allCases)
  func twoTerminalsSeeEachOthersScenesAndTerminals(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let firstTerminal = try PseudoTerminal()
    let first = try firstTerminal.start(sandbox)
    firstTerminal.read(until: "main")
    firstTerminal.type("select cher\r")
    firstTerminal.read(until: "Keywords")
    let secondTerminal = try PseudoTerminal()
    let second = try secondTerminal.start(sandbox)
    let opened = secondTerminal.read(until: "'main-2'")
    #expect(opened.contains("opened a new scene 'main-2'"), "\(opened)")
    secondTerminal.type("scenes\r")
    let listing = secondTerminal.read(until: "in front")
    let firstName = Self.ptsname(firstTerminal)
    #expect(
      listing.contains("pid \(first.processIdentifier), \(firstName), in front"), "\(listing)")
    firstTerminal.type("scenes\r")
    let back = firstTerminal.read(until: "main-2")
    #expect(back.contains("main-2"), "\(back)")
    #expect(secondTerminal.quit(second) == 0)
    #expect(firstTerminal.quit(first) == 0)
  }

  /// The name of a pseudo-terminal's terminal side, as `ttyname` gives it to the process on it.
  static func ptsname(_ terminal: PseudoTerminal) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    _ = ttyname_r(terminal.terminal, &buffer, buffer.count)
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test(arguments: CatalogEngine.allCases)
  func eightProcessesStartedAtOnceEachGetAScene(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    _ = try sandbox.run(input: "list\n")
    let processes = (0..<8).map { _ in sandbox.start() }
    for process in processes { process.send("scenes") }
    // Each has a scene of its own (scripts' scenes beside the first are not kept in the
    // session, so each says which it has).
    var names: [String] = []
    for process in processes {
      let listing = process.readOutput(until: "*  main")
      let row = listing.split(separator: "\n").first { $0.hasPrefix("* ") }
      names.append(row.map { String($0.split(separator: " ")[1]) } ?? "")
    }
    #expect(Set(names).count == 8, "\(names)")
    for process in processes { process.finishInput() }
    for process in processes { #expect(process.terminationStatus == 0) }
  }
}
