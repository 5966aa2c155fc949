import Foundation
import Testing

/// A scene no process has open — a closed window's — comes back with everything it had from
/// whatever reaches it, is closed for good only on purpose, and is never set aside while it can
/// be read. Scripts and shell links beside a running REPL leave the session as they found it.
@Suite(.serialized) struct SavedSceneTests {
  /// A REPL that has `main` open, showing Mango, and a saved scene `side2` whose editor holds
  /// the draft name Morello, which no process has open.
  private func replBesideASavedDraft(_ sandbox: CatalogSandbox) throws -> Process {
    let repl = sandbox.start()
    repl.send("select mango")
    repl.readOutput(until: "Keywords")
    let side = try sandbox.run(
      ["--scene", "side2"], input: "select cherries\nedit\nname Morello\n")
    #expect(side.status == 0, "\(side.errors)")
    return repl
  }

  /// What the state directory's `session.json` says.
  private func session(_ sandbox: CatalogSandbox) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: sandbox.contents(of: "session.json"))
        as? [String: Any])
  }

  @Test func aClosedScenesDraftComesBackThroughSceneSwitch() throws {
    let sandbox = CatalogSandbox()
    let repl = try replBesideASavedDraft(sandbox)
    repl.send("scene new side2")
    repl.send("scene switch side2")
    let shown = repl.readOutput(until: "Morello")
    #expect(shown.contains("Opened saved scene 'side2'."), "\(shown)")
    #expect(shown.contains("Editing Cherries"), "\(shown)")
    repl.send("done")
    repl.readOutput(until: "Saved Morello.")
    repl.finishInput()
    let errors = String(
      decoding: (repl.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        ?? Data(), as: UTF8.self)
    #expect(errors.contains("scene 'side2' is saved with its state"), "\(errors)")
    #expect(sandbox.quarantined().isEmpty, "\(sandbox.quarantined())")
  }

  @Test func closedScenesAreMarkedAndListedWithTheirAge() throws {
    let sandbox = CatalogSandbox()
    let repl = try replBesideASavedDraft(sandbox)
    repl.send("scenes")
    let listing = repl.readOutput(until: "opens a closed scene")
    let row = listing.split(separator: "\n").first { $0.contains("side2") } ?? ""
    #expect(row.hasSuffix("closed"), "\(listing)")
    repl.send("scenes --all")
    #expect(repl.readOutput(until: "saved just now").contains("side2"))
    repl.finishInput()
    let state = try sandbox.run(["state"]).output
    #expect(state.contains("scene side2 (background, not open, saved just now)"), "\(state)")
    // A scene file the session lost is still a saved scene: `scenes --all` lists it.
    try sandbox.write(
      #"{"formatVersion":1,"scenes":["main"],"activeScene":"main"}"#, to: "session.json")
    let lost = try sandbox.run(input: "scenes\nscenes --all\n").output
    let parts = lost.components(separatedBy: "here\n")
    #expect(lost.contains("side2"), "\(lost)")
    #expect(parts.count == 2 && !parts[0].contains("side2"), "\(lost)")
  }

  @Test func aLinkAndContinueToAClosedSceneOpenItWithItsState() throws {
    let sandbox = CatalogSandbox()
    let repl = sandbox.start()
    repl.send("select mango")
    repl.readOutput(until: "Keywords")
    #expect(try sandbox.run(["--scene", "other"], input: "select ginger\ntab photo\n").status == 0)
    #expect(
      try sandbox.run(["--scene", "third"], input: "select peanuts\ntab photo\n").status == 0)
    // A link from the shell to the closed scene: no process has it, so `catalog open` opens it
    // with its state (the photo tab of Ginger).
    let link = try sandbox.run(["open", "catalog://scene/other"])
    #expect(link.status == 0, "\(link.errors)")
    #expect(link.output.contains("Ginger") && link.output.contains("[photo]"), "\(link.output)")
    // `continue --scene` to another closed scene: it opens with its state (the photo tab),
    // then continues the activity there.
    repl.send("search cherries")
    repl.readOutput(until: "Cherries")
    repl.send("continue 1 --scene third")
    let continued = repl.readOutput(until: "[photo]")
    #expect(continued.contains("Cherries"), "\(continued)")
    repl.finishInput()
    #expect(repl.terminationStatus == 0)
    #expect(sandbox.quarantined().isEmpty, "\(sandbox.quarantined())")
  }

  /// A person at a terminal is asked before a product is deleted; a script is not.
  @Test func deletingAtATerminalAsksFirst() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox)
    pty.read(until: "main")
    pty.type("delete 1\r")
    pty.read(until: "and its saved activities? [y/N]")
    pty.type("n\r")
    pty.read(until: "Kept '")
    pty.type("delete 1\r")
    pty.read(until: "[y/N]")
    pty.type("y\r")
    pty.read(until: "Deleted")
    #expect(pty.quit(process) == 0)
    #expect(try sandbox.run(input: "list\n").output.contains("9 products."))
    let script = try sandbox.run(input: "delete 1\n")
    #expect(script.status == 0, "\(script.errors)")
    #expect(!script.output.contains("[y/N]"), "\(script.output)")
  }

  @Test func closingASceneWithADraftIsRefusedInAScriptUnlessDiscarded() throws {
    let sandbox = CatalogSandbox()
    let repl = try replBesideASavedDraft(sandbox)
    defer { repl.finishInput() }
    let refused = try sandbox.run(["--scene", "x"], input: "scene close side2\n")
    #expect(refused.status == 1)
    #expect(
      refused.errors.contains("scene 'side2' has an unsaved draft of 'Morello'"),
      "\(refused.errors)")
    #expect(refused.errors.contains("--discard"))
    #expect(sandbox.exists("scenes/side2.json"))
    let closed = try sandbox.run(["--scene", "x"], input: "scene close side2 --discard\n")
    #expect(closed.status == 0, "\(closed.errors)")
    #expect(closed.output.contains("Closed scene 'side2'."), "\(closed.output)")
    #expect(!sandbox.exists("scenes/side2.json"))
    #expect(sandbox.quarantined().isEmpty)
    let listed = try session(sandbox)["scenes"] as? [String] ?? []
    #expect(!listed.contains("side2"), "\(listed)")
  }

  @Test func closingASceneWithADraftAsksOnATerminal() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(["--scene", "side2"], input: "select cherries\nedit\nname Morello\n")
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, arguments: ["--scene", "main"])
    pty.read(until: "main")
    pty.type("scene close side2\r")
    pty.read(until: "discard the draft of 'Morello'? [y/N]")
    pty.type("n\r")
    pty.read(until: "Kept scene 'side2' and its draft.")
    pty.type("scene close side2\r")
    pty.read(until: "[y/N]")
    pty.type("y\r")
    pty.read(until: "Closed scene 'side2'.")
    #expect(pty.quit(process) == 0)
    #expect(!sandbox.exists("scenes/side2.json"))
  }

  @Test func aScriptBesideARunningREPLLeavesTheSessionAlone() throws {
    let sandbox = CatalogSandbox()
    let repl = sandbox.start()
    repl.send("select mango")
    repl.readOutput(until: "Keywords")
    let before = try session(sandbox)
    let script = try sandbox.run(input: "select 2\n")
    #expect(script.status == 0, "\(script.errors)")
    #expect(script.errors.contains("which is not kept"), "\(script.errors)")
    let afterScript = try session(sandbox)
    #expect(afterScript["scenes"] as? [String] == before["scenes"] as? [String], "\(afterScript)")
    #expect(afterScript["activeScene"] as? String == before["activeScene"] as? String)
    #expect(!sandbox.exists("scenes/main-2.json"))
    // A link from the shell to the REPL's scene goes to the REPL; one to a new scene opens it
    // (named, so it lasts) without putting it in front of the next launch.
    let link = try sandbox.run(["open", "catalog://scene/new/product/Cherries"])
    #expect(link.status == 0, "\(link.errors)")
    let after = try session(sandbox)
    #expect(after["activeScene"] as? String == before["activeScene"] as? String, "\(after)")
    #expect(!(after["scenes"] as? [String] ?? []).contains("main-2"))
    #expect(!sandbox.exists("scenes/main-2.json"))
    repl.finishInput()
    // The next launch puts the REPL's scene in front, where the user was.
    let next = try sandbox.run(input: "path\n")
    #expect(next.output.contains("Mango"), "\(next.output)")
  }

  @Test(arguments: CatalogEngine.allCases)
  func aRelaunchIntoAnOpenEditorShowsTheDraft(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    _ = try sandbox.run(input: "select cherries\nedit\nname Morello\nprice 3.50\n")
    let relaunch = try sandbox.run(input: "edit\nstate\n")
    #expect(relaunch.status == 0, "\(relaunch.errors)")
    #expect(relaunch.output.hasPrefix("Editing Cherries"), "\(relaunch.output)")
    let shown = relaunch.output.components(separatedBy: "Editing Cherries")
    #expect(shown.count == 3, "the restored editor and `edit` both show the draft")
    #expect(relaunch.output.contains("Morello"))
    #expect(relaunch.output.contains("The editor's draft:"))
    #expect(!relaunch.output.contains("EditView.editTitle"), "\(relaunch.output)")
    let json = try sandbox.run(["state", "--json"]).output
    #expect(json.contains("EditView.editTitle"))
  }
}
