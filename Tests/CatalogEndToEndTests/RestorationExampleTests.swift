import Foundation
import Testing

/// The library's adoption example, `restoration-example`, run as a user would: it comes back
/// where it was after SIGKILL, using StateRestoration's public API alone.
@Suite struct RestorationExampleTests {
  static let executable = CatalogSandbox.executable.deletingLastPathComponent()
    .appendingPathComponent("restoration-example")

  let sandbox = CatalogSandbox()

  func start(_ arguments: [String] = []) -> Process {
    CatalogSandbox.start(Self.executable, ["--state", sandbox.stateDirectory] + arguments)
  }

  @Test func itComesBackWhereItWasAfterSIGKILL() throws {
    let first = start()
    first.readOutput(until: "scene 'main' at /")
    for line in ["new groceries", "cd groceries", "new milk", "new eggs", "cd 2"] {
      first.send(line)
    }
    first.readOutput(until: "/groceries/2 eggs")
    first.killHard()
    #expect(first.terminationReason == .uncaughtSignal)

    let second = start()
    second.readOutput(until: "scene 'main' at /groceries/2 eggs")
    second.send("cd ..")
    second.send("ls")
    let listed = second.readOutput(until: "2. eggs")
    #expect(listed.contains("1. milk"))
    second.killHard()
  }

  @Test func eachSceneIsOwnedByOneProcessAndKeepsItsOwnPlace() throws {
    let main = start()
    main.readOutput(until: "scene 'main' at /")
    main.send("new work")
    main.send("cd work")
    main.readOutput(until: "/work")

    let refused = start()
    let (_, errors) = refused.finishReading()
    #expect(refused.terminationStatus == 1)
    #expect(
      errors.hasPrefix(
        "error: scene 'main' is open in another process (pid \(main.processIdentifier)"))

    let other = start(["--scene", "other"])
    other.readOutput(until: "scene 'other' at /")
    other.send("ls")
    other.send("pwd")
    let shown = other.readOutput(until: "/\n")
    #expect(!shown.contains("work"), "scene storage is the scene's own")
    other.finishInput()
    main.finishInput()
    let session = try String(
      contentsOfFile: sandbox.stateDirectory + "/session.json", encoding: .utf8)
    #expect(session.contains("\"main\"") && session.contains("\"other\""))
  }

  /// Two scenes: the lists each opens are advertised, and either finds them by search — a
  /// word, a prefix, a typo — says which scene has a list, continues its own, and is back in
  /// it after SIGKILL.
  @Test func scenesFindAndContinueTheListsTheyOpened() throws {
    let main = start()
    for line in ["new groceries", "cd groceries", "new milk", "new eggs", "cd ..", "new work"] {
      main.send(line)
    }
    main.send("pwd")
    main.readOutput(until: "/\n/\n")
    let other = start(["--scene", "other"])
    other.readOutput(until: "scene 'other' at /")
    other.send("search milk")
    other.readOutput(until: "1. Show list groceries (scene main)")
    other.send("search grocreies")
    other.readOutput(until: "1. Show list groceries (scene main)")
    other.send("search work")
    other.readOutput(until: "nothing found")
    other.send("open 1")
    for line in ["new errands", "cd errands", "new stamps", "cd ..", "search stam", "open 1"] {
      other.send(line)
    }
    other.readOutput(until: "1. Show list errands (scene other)\n/errands")
    other.killHard()
    let again = start(["--scene", "other"])
    again.readOutput(until: "scene 'other' at /errands")
    let (_, errors) = again.finishReading()
    #expect(errors.isEmpty, "\(errors)")
    let (_, mainErrors) = main.finishReading()
    #expect(mainErrors.isEmpty, "\(mainErrors)")
  }

  /// A program that saves an activity a run and exits without closing anything leaves a log
  /// of bounded size, which every later run would otherwise read back whole.
  @Test func runsThatSaveOnceLeaveASmallLog() throws {
    for run in 0..<80 {
      let program = start()
      for line in ["cd ..", "new list\(run)", "cd list\(run)", "quit"] { program.send(line) }
      let (_, errors) = program.finishReading()
      #expect(errors.isEmpty, "\(errors)")
    }
    let log =
      try FileManager.default.attributesOfItem(
        atPath: sandbox.stateDirectory + "/activities.sqlite-wal")[.size] as? Int
    #expect((log ?? 0) <= 1 << 20 + 256 * 1024, "\(log ?? 0) bytes")
    let found = start()
    found.send("search list79")
    found.readOutput(until: "1. Show list list79")
    _ = found.finishReading()
  }

  /// Launches that exit on their own — refused because the scene is open elsewhere — are no
  /// crashes: the next launch keeps the saved state and says nothing of crashes.
  @Test func launchesThatExitOnTheirOwnAreNotCrashes() throws {
    let main = start()
    main.send("new kept")
    main.send("ls")
    main.readOutput(until: "kept (0)")
    for _ in 1...3 {
      let refused = start()
      let (_, errors) = refused.finishReading()
      #expect(refused.terminationStatus == 1)
      #expect(!errors.contains("crashed"), "\(errors)")
    }
    let other = start(["--scene", "other"])
    other.readOutput(until: "scene 'other' at /")
    let (_, errors) = other.finishReading()
    #expect(!errors.contains("crashed"), "\(errors)")
    main.finishInput()
    let again = start()
    again.send("ls")
    again.readOutput(until: "kept (0)")
    again.finishInput()
  }

  /// A full disk (a small tmpfs; needs root): the save fails with one line, every file stays
  /// as it was, and the change is saved by the next command once there is room.
  @Test func aFullDiskLeavesTheSavedStateAndTheNextCommandSaves() throws {
    guard let disk = SmallDisk(at: sandbox.stateDirectory, kilobytes: 64) else { return }
    let first = start()
    first.send("new kept")
    first.send("ls")
    first.readOutput(until: "kept (0)")
    let saved = try Data(contentsOf: URL(fileURLWithPath: sandbox.file("scenes/main.json")))
    disk.fill()
    first.send("new lost")
    first.send("ls")
    first.readOutput(until: "lost (0)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.file("scenes/main.json"))) == saved)
    disk.empty()
    first.send("pwd")
    let (_, errors) = first.finishReading()
    #expect(errors.hasPrefix("error: cannot write '"), "\(errors)")
    #expect(errors.contains("No space left on device; not saved yet: the next command tries again"))
    let second = start()
    second.send("ls")
    let (listed, _) = second.finishReading()
    #expect(listed.contains("kept (0)") && listed.contains("lost (0)"), "\(listed)")
  }

  @Test func helpAndBadArgumentsSayHowToRunIt() throws {
    let help = start(["--help"])
    let (output, _) = help.finishReading()
    #expect(help.terminationStatus == 0)
    #expect(output.hasPrefix("usage: restoration-example [--state DIR] [--scene NAME]\n"))
    let bad = start(["--scene", "no/slash"])
    let (_, errors) = bad.finishReading()
    #expect(bad.terminationStatus == 1)
    #expect(errors == "error: --scene needs a name of letters, digits, '-' and '_'\n")
  }

  @Test func anUnreadableSceneFileIsSetAsideAndTheSceneStartsFresh() throws {
    try sandbox.createStateDirectory(["scenes"])
    try sandbox.write("{ not json", to: "scenes/main.json")
    let process = start()
    process.send("pwd")
    let (output, errors) = process.finishReading()
    #expect(process.terminationStatus == 0)
    #expect(output.hasPrefix("scene 'main' at /\n"))
    #expect(errors.contains("warning: '\(sandbox.stateDirectory)/scenes/main.json' is not valid"))
    #expect(errors.contains("and scene 'main' starts fresh"))
    #expect(sandbox.quarantined().count == 1)
  }
}
