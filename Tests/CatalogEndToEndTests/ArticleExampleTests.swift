import Foundation
import Testing

/// The examples in the shape of SwiftUI's restoration articles, run as a user would: each
/// changes its state, ends — on its own, by SIGTERM, or by SIGKILL after its durability
/// call — and comes back where it was.
@Suite struct ArticleExampleTests {
  static func executable(_ name: String) -> URL {
    CatalogSandbox.executable.deletingLastPathComponent().appendingPathComponent(name)
  }

  let sandbox = CatalogSandbox()

  /// How a run ends.
  enum Ending: CaseIterable {
    case exit, terminate, kill
  }

  func end(_ process: Process, _ ending: Ending) {
    switch ending {
    case .exit:
      _ = process.finishReading()
      #expect(process.terminationStatus == 0)
    case .terminate:
      kill(process.processIdentifier, SIGTERM)
      process.waitUntilExit()
      #expect(process.terminationReason == .uncaughtSignal)
    case .kill:
      process.killHard()
    }
  }

  /// The path store saves a NavigationPath holding its own Codable type, and an [Int], in
  /// URL.documentsDirectory on every change: its durability call is each change's write, and
  /// it catches no signal (SIGTERM ends it as SIGKILL would).
  @Test(arguments: [Ending.exit, .kill])
  func thePathStoreComesBack(_ ending: Ending) throws {
    let data = sandbox.stateDirectory + "/data"
    let environment = ["XDG_DATA_HOME": data]
    let start = {
      CatalogSandbox.start(Self.executable("path-store-example"), [], environment: environment)
    }
    let first = start()
    first.readOutput(until: "path: (empty); numbers: []")
    for line in ["push 3", "point 1 2", "push cherries", "add 7", "add 8", "pop", "show"] {
      first.send(line)
    }
    first.readOutput(until: "numbers: [7, 8]")
    end(first, ending)
    let second = start()
    second.readOutput(
      until: #"path: Swift.Int 3 / path_store_example.Point {"x":1,"y":2}; numbers: [7, 8]"#)
    second.finishInput()
    #expect(FileManager.default.fileExists(atPath: data + "/path-store-example/SavedPath.json"))
  }

  /// The route manager's path, in `@SceneStorage("navigationState")` declared outside any
  /// scene, comes back after a normal exit and SIGTERM with no save called, and after
  /// SIGKILL once `sync` (the one durability call) was made.
  @Test(arguments: Ending.allCases)
  func theRouteManagersPathComesBack(_ ending: Ending) throws {
    let start = {
      CatalogSandbox.start(Self.executable("route-example"), ["--state", sandbox.stateDirectory])
    }
    let first = start()
    first.readOutput(until: "at /")
    first.send("open shop://product/3")
    first.send("continue com.example.shop.product 9")
    first.send("open shop://settings")
    if ending == .kill { first.send("sync") }
    first.send("path")
    first.readOutput(until: #"at {"product":{"_0":9}} / {"settings":{}}"# + "\nat")
    end(first, ending)
    let second = start()
    second.readOutput(until: #"at {"product":{"_0":9}} / {"settings":{}}"#)
    let (_, errors) = second.finishReading()
    #expect(errors.isEmpty, "\(errors)")
  }

  /// A signal that comes as input ends — a terminal closed — races the exit the end of input
  /// makes: the change is saved either way, and the process ends with the signal.
  @Test(arguments: [SIGTERM, SIGHUP])
  func aSignalAsInputEndsStillSaves(_ signal: Int32) throws {
    let start = {
      CatalogSandbox.start(Self.executable("route-example"), ["--state", sandbox.stateDirectory])
    }
    for product in 1...5 {
      let process = start()
      process.send("open shop://product/\(product)")
      process.readOutput(until: #"{"_0":\#(product)}}"#)
      kill(process.processIdentifier, signal)
      try? (process.standardInput as? Pipe)?.fileHandleForWriting.close()
      process.waitUntilExit()
      #expect(process.terminationReason == .uncaughtSignal)
      let next = start()
      next.readOutput(until: #"{"_0":\#(product)}}\#n"#)
      next.finishInput()
    }
  }
}
