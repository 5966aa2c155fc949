import Foundation
import TestSupport
import Testing

/// A catalog's password, given in `--catalog-url`: never in a message, and hidden from what
/// other users of the machine can read of the process's command line.
@Suite struct CatalogSecretTests {
  @Test(arguments: [
    "postgresql://ann:hunter2%zz@127.0.0.1:1/shop", "postgresql://ann:hunter2%00@127.0.0.1:1/shop",
    "postgresql://ann:hunter2@[::1/shop", "host=127.0.0.1 port=1 password='hunter2",
  ])
  func noMessageShowsThePassword(_ url: String) throws {
    let sandbox = CatalogSandbox()
    let result = try sandbox.run(["--catalog-url", url, "list"])
    #expect(result.status == 1)
    #expect(result.errors.contains("error: the catalog URL cannot be read"), "\(result.errors)")
    #expect(!result.errors.contains("hunter2"), "\(result.errors)")
    #expect(!result.output.contains("hunter2"), "\(result.output)")
  }

  /// The REPL on a shared catalog, its password on the command line: warned once, and
  /// `/proc/PID/cmdline` (what `ps` shows every user) names the server but not the password.
  @Test func aPasswordOnTheCommandLineIsHiddenAndWarnedOf() throws {
    let server = try PostgresTestServer.shared
    let sandbox = try CatalogSandbox(.postgres)
    let database = try #require(sandbox.catalogDatabase)
    sandbox.environment["CATALOG_URL"] = nil
    let url = server.tcpURL(database: database)
    let process = sandbox.start(["--catalog-url", url])
    process.send("list")
    process.readOutput(until: "Cherries")
    let commandLine = try String(
      decoding: Data(
        contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/cmdline")),
      as: UTF8.self)
    process.finishInput()
    let errors = String(
      decoding: (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        ?? Data(), as: UTF8.self)
    #expect(!commandLine.contains(server.password), "\(commandLine)")
    #expect(commandLine.contains("@127.0.0.1:\(server.port)/\(database)"), "\(commandLine)")
    #expect(process.terminationStatus == 0, "\(errors)")
    let warnings = errors.split(separator: "\n").filter { $0.contains("read by other users") }
    #expect(warnings.count == 1, "\(errors)")
  }
}
