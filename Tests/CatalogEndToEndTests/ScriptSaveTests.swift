import Foundation
import Testing

/// A script's commands whose lines arrive together are saved as one: one scene file written
/// for all of them, their output shown once it is on disk, none of it when it could not be.
@Suite(.serialized) struct ScriptSaveTests {
  /// The names of the files renamed into a folder, as inotify reports them.
  final class RenameWatch {
    private let descriptor: Int32

    init?(_ folder: String) {
      descriptor = inotify_init1(Int32(IN_NONBLOCK))
      guard descriptor >= 0, inotify_add_watch(descriptor, folder, UInt32(IN_MOVED_TO)) >= 0
      else { return nil }
    }

    /// The names renamed in since the watch began, in order.
    func names() -> [String] {
      var names: [String] = []
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return names }
        var offset = 0
        // Each event: wd, mask, cookie and the name's length (four 32-bit words), the name.
        while offset + 16 <= count {
          let length = buffer[(offset + 12)..<(offset + 16)].reversed().reduce(0) {
            $0 << 8 | Int($1)
          }
          let name = buffer[(offset + 16)..<min(count, offset + 16 + length)]
          names.append(String(decoding: name.prefix { $0 != 0 }, as: UTF8.self))
          offset += 16 + length
        }
      }
    }

    deinit { close(descriptor) }
  }

  /// Three commands of a script that arrive together write the scene's file once, and what
  /// comes back is where the last left it.
  @Test func commandsThatArriveTogetherWriteTheSceneOnce() throws {
    let sandbox = CatalogSandbox()
    #expect(try sandbox.run(["select", "cherries"]).status == 0)
    let watch = try #require(RenameWatch(sandbox.file("scenes")))
    let result = try sandbox.run(input: "select mango\nedit\nprice 2.50\n")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("Mango") && result.output.contains("2.50"))
    #expect(watch.names().filter { $0 == "main.json" }.count == 1)
    let main = try #require(sandbox.scene("main", in: try sandbox.stateJSON()))
    let storage = try #require(main["storage"] as? [String: Any])
    #expect(storage["DetailView.showEditView"] as? Bool == true)
    #expect(storage["EditView.editPrice"] as? String == "2.50")
  }

  /// `quit` says nothing: a script that ends with it prints no empty line after the output
  /// of the command before, and saves that command.
  @Test func quitPrintsNothing() throws {
    let sandbox = CatalogSandbox()
    #expect(try sandbox.run(input: "quit\n").output == "")
    let result = try sandbox.run(input: "select mango\nquit\n")
    #expect(
      result.output.hasSuffix("[detail] photo\n") && !result.output.hasSuffix("\n\n"),
      "\(result.output)")
    #expect(try sandbox.run(["state"]).output.contains("): Mango"))
  }

  /// What a script printed is on disk: killed as soon as the last command's output shows,
  /// the scene comes back where that command left it.
  @Test func outputShownIsSavedWhenTheProcessIsKilled() throws {
    let sandbox = CatalogSandbox()
    let process = sandbox.start()
    process.send("select mango\nselect ginger")  // one write: both lines arrive together
    process.readOutput(until: "Ginger")
    process.killHard()
    let state = try sandbox.run(["state"])
    #expect(state.output.contains("): Ginger"), "\(state.output)")
  }

  /// Lines that arrived together run on one read of the catalog, but a line sent after another
  /// process saved a change sees it, however soon after the line before it comes.
  @Test(arguments: CatalogEngine.allCases)
  func aLineSentAfterAnotherProcessSavedSeesIt(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let process = sandbox.start()
    process.send("select ginger\nselect mango")  // one write: both lines arrive together
    let other = try sandbox.run(input: "select ginger\nedit\nprice 7.77\ndone\n")
    #expect(other.output.contains("Saved Ginger."), "\(other.output)\(other.errors)")
    process.send("select ginger")
    process.readOutput(until: "$7.77")
    _ = process.finishReading()
  }

  /// The state directory is full: the commands saved together fail in one line, show none of
  /// their output, and the scene stays as it was. Uses a small tmpfs mount (needs root).
  @Test func aFullDiskShowsNothingOfTheCommandsNotSaved() throws {
    let sandbox = CatalogSandbox()
    guard let disk = SmallDisk(at: sandbox.stateDirectory) else { return }
    #expect(try sandbox.run(["select", "cherries"]).status == 0)
    disk.fill()
    let result = try sandbox.run(input: "select mango\nselect ginger\n")
    disk.empty()
    #expect(result.status == 1)
    #expect(result.errorLines.count == 1, "\(result.errors)")
    #expect(result.errors.contains("No space left on device"), "\(result.errors)")
    #expect(result.errors.contains("output is not shown"), "\(result.errors)")
    #expect(!result.output.contains("Mango") && !result.output.contains("Ginger"))
    let state = try sandbox.run(["state"])
    #expect(state.output.contains("): Cherries"), "\(state.output)")
    withExtendedLifetime(disk) {}  // unmounted only now
  }
}
