import Foundation
import Testing

@Suite(.serialized) struct RestorationTests {
  static let cherries = "FA542E3D-4895-44B6-942F-E112101D5160"

  private func expectCherriesEditorWithMorello(
    _ sandbox: CatalogSandbox, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let state = try sandbox.stateJSON()
    #expect(state["activeScene"] as? String == "main", sourceLocation: sourceLocation)
    let main = try #require(sandbox.scene("main", in: state), sourceLocation: sourceLocation)
    let storage = try #require(main["storage"] as? [String: Any], sourceLocation: sourceLocation)
    #expect(
      storage["ContentView.selectedProduct"] as? String == Self.cherries,
      sourceLocation: sourceLocation)
    #expect(storage["DetailView.selectedTab"] as? String == "photo", sourceLocation: sourceLocation)
    #expect(storage["DetailView.showEditView"] as? Bool == true, sourceLocation: sourceLocation)
    #expect(storage["EditView.editTitle"] as? String == "Morello", sourceLocation: sourceLocation)
    #expect(storage["EditView.useSavedValues"] as? Bool == false, sourceLocation: sourceLocation)
    let path = try #require(main["path"] as? [[String: Any]], sourceLocation: sourceLocation)
    #expect(
      path.count == 1 && path[0]["name"] as? String == "Cherries", sourceLocation: sourceLocation)
    // The catalog still says Cherries until `done`.
    // The relaunch shows the restored editor with its draft; the catalog still has Cherries.
    let list = try sandbox.run(input: "list\n")
    #expect(list.output.hasPrefix("Editing Cherries"), sourceLocation: sourceLocation)
    let row = list.output.split(separator: "\n").first { $0.hasPrefix(" 9  ") } ?? ""
    #expect(row.contains("Cherries"), "\(list.output)", sourceLocation: sourceLocation)
  }

  @Test(arguments: CatalogEngine.allCases)
  func aRelaunchRestoresTheSelectionTabAndDraft(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let first = try sandbox.run(input: "select Cherries\ntab photo\nedit\nname Morello\nquit\n")
    #expect(first.status == 0, "\(first.errors)")
    #expect(first.errors.isEmpty)
    try expectCherriesEditorWithMorello(sandbox)
    // The restored editor keeps the draft, and `done` saves it.
    let second = try sandbox.run(input: "done\nlist\n")
    #expect(second.status == 0, "\(second.errors)")
    #expect(second.output.contains("Saved Morello."))
    #expect(second.output.contains(" 9  Morello     2015  $10.99"))
  }

  @Test(arguments: CatalogEngine.allCases)
  func theSameAfterSIGKILLRightAfterACommandsOutput(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let process = sandbox.start()
    process.send("select Cherries")
    process.readOutput(until: "Keywords")
    process.send("tab photo")
    process.readOutput(until: "[photo]")
    process.send("edit")
    process.readOutput(until: "Editing Cherries")
    process.send("name Morello")
    process.readOutput(until: "Morello")
    process.killHard()
    #expect(process.terminationReason == .uncaughtSignal)
    try expectCherriesEditorWithMorello(sandbox)
  }

  @Test(arguments: [SIGTERM, SIGHUP])
  func aTerminationSignalSavesAndExits(_ signal: Int32) throws {
    let sandbox = CatalogSandbox()
    let process = sandbox.start()
    process.send("scene new side cher")
    process.readOutput(until: "Opened scene 'side'")
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == 128 + signal)
    let state = try sandbox.stateJSON()
    #expect(state["activeScene"] as? String == "side")
    // The scenes were released: a new process opens them at once.
    let next = try sandbox.run(input: "scenes\n")
    #expect(next.status == 0, "\(next.errors)")
    #expect(next.output.contains("*  side  Cherries"))
  }

  /// A scene a command from the shell brings in front says so in its own file, which the
  /// command writes anyway: the session file is left as it is, and the scene made active last
  /// is in front at the next launch, whichever process made it so.
  @Test func aSceneBroughtInFrontSaysSoInItsOwnFile() throws {
    let sandbox = CatalogSandbox()
    func selected(_ scene: String) throws -> String? {
      let storage = sandbox.scene(scene, in: try sandbox.stateJSON())?["storage"]
      return (storage as? [String: Any])?["ContentView.selectedProduct"] as? String
    }
    func sessionFile() throws -> (Data, Int?) {
      let attributes = try FileManager.default.attributesOfItem(
        atPath: sandbox.file("session.json"))
      return (try sandbox.contents(of: "session.json"), attributes[.systemFileNumber] as? Int)
    }
    #expect(try sandbox.run(["--scene", "a", "select", "ginger"]).status == 0)
    #expect(try sandbox.run(["--scene", "b", "select", "mango"]).status == 0)
    let session = try sessionFile()
    #expect(try sandbox.stateJSON()["activeScene"] as? String == "b")
    #expect(try sandbox.run(["--scene", "a", "select", "cherries"]).status == 0)
    #expect(try sandbox.stateJSON()["activeScene"] as? String == "a")
    #expect(try sessionFile() == session)
    // A command without a scene goes to the one in front.
    #expect(try sandbox.run(["select", "peanuts"]).status == 0)
    let peanuts = try #require(try selected("a"))
    #expect(peanuts != Self.cherries)
    // A switch in a script puts its scene in front the same way.
    #expect(try sandbox.run(input: "scene switch b\n").status == 0)
    #expect(try sandbox.stateJSON()["activeScene"] as? String == "b")
    // A command that saves nothing brings its scene in front all the same, once.
    #expect(try sandbox.run(["--scene", "a", "path"]).status == 0)
    #expect(try sandbox.stateJSON()["activeScene"] as? String == "a")
    let scene = try sandbox.contents(of: "scenes/a.json")
    #expect(try sandbox.run(["--scene", "a", "path"]).status == 0)
    #expect(try sandbox.contents(of: "scenes/a.json") == scene)
    #expect(try sessionFile() == session)
    #expect(try selected("a") == peanuts)
    // A new scene changes the session's scenes: the session file says it is in front.
    #expect(try sandbox.run(["--scene", "c", "select", "1"]).status == 0)
    #expect(try sessionFile().0 != session.0)
    #expect(try sandbox.stateJSON()["activeScene"] as? String == "c")
    let next = try sandbox.run(input: "scenes\n")
    #expect(next.output.contains("*  c  "), "\(next.output)")
    // Lines of a script saved together: the scene switched to last is in front.
    #expect(try sandbox.run(input: "scene new d\nscene switch a\n").status == 0)
    #expect(try sandbox.stateJSON()["activeScene"] as? String == "a")
    // A session that saves nothing and ends after another scene came to the front leaves it
    // there.
    let idle = sandbox.start(["--scene", "b"])
    idle.send("path")
    idle.readOutput(until: "Path of scene 'b'")
    #expect(try sandbox.run(["--scene", "c", "select", "2"]).status == 0)
    idle.finishInput()
    idle.waitUntilExit()
    #expect(try sandbox.stateJSON()["activeScene"] as? String == "c")
  }

  /// The date a scene's file gives its front is when it came there: a switch in a script's
  /// lines saved together, after another process brought a scene forward, wins; a scene whose
  /// file was set aside and that saves nothing gets a file that says it is in front.
  @Test func aSceneIsInFrontFromWhenItCameThere() throws {
    let sandbox = CatalogSandbox()
    #expect(try sandbox.run(["--scene", "x", "select", "ginger"]).status == 0)
    #expect(try sandbox.run(["--scene", "y", "select", "mango"]).status == 0)
    #expect(try sandbox.run(["--scene", "b", "select", "cherries"]).status == 0)
    // A terminal has b open; a script launched beside it has x and y.
    let terminal = sandbox.start(["--scene", "b"])
    terminal.send("path")
    terminal.readOutput(until: "Path of scene 'b'")
    let script = sandbox.start()
    script.send("path")
    script.readOutput(until: "Path of scene")
    // The terminal brings b to the front after the script's launch, before its switches.
    terminal.send("scene new z")
    terminal.readOutput(until: "Opened scene 'z'")
    terminal.send("scene switch b")
    terminal.readOutput(until: "'b'")
    terminal.send("select peanuts")
    terminal.readOutput(until: "Keywords")
    script.send("scene switch y\nscene switch x\nselect 1")
    script.readOutput(until: "Keywords")
    script.finishInput()
    terminal.finishInput()
    #expect(try sandbox.stateJSON()["activeScene"] as? String == "x")
    // y's file cannot be read: it is set aside, and the run that saves nothing in y leaves y in
    // front all the same.
    try sandbox.write("{not json", to: "scenes/y.json")
    _ = try sandbox.run(["--scene", "y", "path"])
    #expect(try sandbox.stateJSON()["activeScene"] as? String == "y")
  }

  @Test func twoScenesComeBackIndependentlyWithTheActiveOne() throws {
    let sandbox = CatalogSandbox()
    let first = try sandbox.run(
      input: """
        select cher
        tab photo
        scene new side mango
        scene new third 1
        edit
        name Zingiber
        scene switch side
        """)
    #expect(first.status == 0, "\(first.errors)")
    let state = try sandbox.stateJSON()
    #expect(state["activeScene"] as? String == "side")
    let main = try #require(sandbox.scene("main", in: state)?["storage"] as? [String: Any])
    let side = try #require(sandbox.scene("side", in: state)?["storage"] as? [String: Any])
    let third = try #require(sandbox.scene("third", in: state)?["storage"] as? [String: Any])
    #expect(main["ContentView.selectedProduct"] as? String == Self.cherries)
    #expect(main["DetailView.selectedTab"] as? String == "photo")
    #expect(
      side["ContentView.selectedProduct"] as? String == "3F6624CC-5105-492C-A307-235E78AAC4BC")
    #expect(side["DetailView.selectedTab"] == nil)
    #expect(third["EditView.editTitle"] as? String == "Zingiber")
    // The REPL restores all three, with `side` active.
    let second = try sandbox.run(input: "scenes\nscene switch third\nstate\n")
    #expect(second.output.contains("*  side"))
    #expect(second.output.contains("Zingiber"))
  }

  @Test func sceneCloseDeletesTheScenesFileAndStorage() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "scene new side mango\nscene switch main\n")
    #expect(sandbox.exists("scenes/side.json"))
    let closed = try sandbox.run(input: "scene close side\n")
    #expect(closed.status == 0, "\(closed.errors)")
    #expect(!sandbox.exists("scenes/side.json"))
    let state = try sandbox.stateJSON()
    #expect((state["scenes"] as? [[String: Any]])?.map { $0["name"] as? String } == ["main"])
    // Opening it again starts empty.
    let reopened = try sandbox.run(input: "scene new side\nstate\n")
    #expect(reopened.output.contains("Scene 'side' has no stored values."))
  }

  @Test(arguments: CatalogEngine.allCases)
  func freshStartsWithoutSceneStateButKeepsCatalogEdits(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    _ = try sandbox.run(
      input: "select ginger\nedit\nname Ginger Root\ndone\nselect cher\nscene new side\n")
    let fresh = try sandbox.run(["--fresh"], input: "state\nlist\n")
    #expect(fresh.output.contains("Scene 'main' has no stored values."))
    #expect(fresh.output.contains("Ginger Root"))
    let state = try sandbox.stateJSON()
    // The session's one scene, then the two set aside, saved and closed.
    let names = (state["scenes"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
    #expect(names == ["main", "main.fresh", "side.fresh"], "\(state)")
    #expect(!sandbox.exists("scenes/side.json"))
    // Set aside, not deleted: both scenes are closed scenes of their own, listed and
    // restorable, the draft's scene included.
    #expect(
      fresh.errors.contains(
        "--fresh kept the scenes it did not restore as closed scenes ('side' as 'side.fresh', 'main' as 'main.fresh'); 'scenes --all' lists them"
      ), "\(fresh.errors)")
    #expect(sandbox.quarantined().filter { $0.hasPrefix("scenes-") }.isEmpty)
    let listed = try sandbox.run(input: "scenes --all\n").output
    #expect(listed.contains("main.fresh  Cherries"), "\(listed)")
    let restored = try sandbox.run(input: "scene open main.fresh\n")
    #expect(
      restored.output.contains("Opened saved scene 'main.fresh'.\nCherries"), "\(restored.output)")
    #expect(restored.errors.isEmpty, "\(restored.errors)")
  }

  @Test(arguments: CatalogEngine.allCases)
  func aProductRemovedFromTheDataFileIsDroppedFromTheRestoredPathWithANote(engine: CatalogEngine)
    throws
  {
    let sandbox = try CatalogSandbox(engine)
    _ = try sandbox.run(input: "select cher\nedit\nname Morello\n")
    try sandbox.removeProductFromDataFile(named: "Cherries")

    let result = try sandbox.run(input: "state\n")
    #expect(result.status == 0)
    #expect(result.errorLines.count == 1)
    #expect(
      result.errors.hasPrefix(
        "warning: scene 'main': dropped 1 element of the saved path: a product is no longer in the catalog; closed the editor, which had no product; kept the saved scene as '"
      ))
    #expect(!result.output.contains(Self.cherries))
    // The draft is not lost: the scene as it was is kept in quarantine.
    let kept = try sandbox.contents(of: "quarantine/" + sandbox.quarantined()[0])
    #expect(String(decoding: kept, as: UTF8.self).contains("Morello"))
    // The repaired scene was saved: the next launch has nothing to say.
    #expect(try sandbox.run(input: "state\n").errors.isEmpty)
  }

  @Test func everyFinishedCommandIsOnDiskBeforeItsOutput() throws {
    let sandbox = CatalogSandbox()
    let process = sandbox.start()
    for (index, name) in ["ginger", "mango", "peanuts"].enumerated() {
      process.send("scene new s\(index) \(name)")
      process.readOutput(until: "Opened scene 's\(index)'")
    }
    process.killHard()
    let state = try sandbox.stateJSON()
    #expect(state["activeScene"] as? String == "s2")
    #expect(
      (state["scenes"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [
        "main", "s0", "s1", "s2",
      ])
  }
}
