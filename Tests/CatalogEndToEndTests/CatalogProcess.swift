import ActivityIndex
import Foundation
import PostgreSQL
import SQLite
import StateRestoration
import SystemSupport
import TestSupport
import Testing

/// Where a sandbox keeps its catalog: the end-to-end tests that touch the catalog run on both.
enum CatalogEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// `catalog.sqlite` in the data directory.
  case sqlite
  /// A database of its own on the tests' PostgreSQL server, named by `CATALOG_URL`.
  case postgres

  var testDescription: String { rawValue }
}

/// The built `catalog` binary, run with its own temporary state and data directories.
final class CatalogSandbox {
  let root: String
  var stateDirectory: String { root + "/state" }
  var dataDirectory: String { root + "/data" }
  /// Where the catalog is kept.
  let engine: CatalogEngine
  /// The catalog's URI on the tests' server (a Unix socket, no password), for `.postgres`.
  private(set) var catalogURL: String?
  /// The catalog's database on the tests' server, for `.postgres`.
  private(set) var catalogDatabase: String?
  /// Variables set for every process the sandbox starts, on top of the tests' own.
  var environment: [String: String] = [:]

  /// A child that exits before it reads its input must not take the test process with it:
  /// writing to its closed pipe raises SIGPIPE, which ends a process by default.
  private static let ignoringBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

  init() {
    Self.ignoringBrokenPipes
    engine = .sqlite
    root = NSTemporaryDirectory() + "catalog-e2e-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
  }

  /// A sandbox whose catalog is kept by an engine: for `.postgres`, a new database on the tests'
  /// shared server, named to every process by `CATALOG_URL`.
  convenience init(_ engine: CatalogEngine) throws {
    self.init(sharingCatalogOf: nil, engine: engine)
    if engine == .postgres {
      let server = try PostgresTestServer.shared
      let database = try server.makeDatabase()
      catalogDatabase = database
      catalogURL = server.socketURL(database: database)
      environment["CATALOG_URL"] = catalogURL
    }
  }

  /// A second machine: its own state and data directories, the same catalog on the server.
  convenience init(sharingCatalogOf other: CatalogSandbox?, engine: CatalogEngine = .postgres) {
    self.init(engine: other?.engine ?? engine)
    catalogURL = other?.catalogURL
    catalogDatabase = other?.catalogDatabase
    if let catalogURL { environment["CATALOG_URL"] = catalogURL }
  }

  private init(engine: CatalogEngine) {
    Self.ignoringBrokenPipes
    self.engine = engine
    root = NSTemporaryDirectory() + "catalog-e2e-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: root)
  }

  /// The binary next to the test bundle: both are products of the same build.
  static let executable: URL = {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = testBinary.deletingLastPathComponent()
    while directory.path != "/" {
      let candidate = directory.appendingPathComponent("catalog")
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      {
        return candidate
      }
      directory = directory.deletingLastPathComponent()
    }
    return testBinary.deletingLastPathComponent().appendingPathComponent("catalog")
  }()

  struct Result {
    var status: Int32
    var output: String
    var errors: String
    var errorLines: [String] { errors.split(separator: "\n").map(String.init) }
  }

  /// Runs `catalog` to completion with a script on standard input.
  ///
  /// A run that takes longer than `timeout` seconds is killed and recorded as an issue, so a
  /// hang fails its test instead of the whole suite. With `sentFirst`, the whole script is in
  /// the pipe before the process starts, rather than written as it runs.
  func run(
    _ arguments: [String] = [], input: String = "", inputData: Data? = nil, sentFirst: Bool = false,
    timeout: Double = 120, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Result {
    let data = inputData ?? Data(input.utf8)
    let process = start(arguments, input: sentFirst ? data : nil)
    let finished = DispatchSemaphore(value: 0)
    let watchdog = Thread { [process] in
      if finished.wait(timeout: .now() + timeout) == .timedOut {
        Issue.record(
          "catalog \(arguments) did not finish in \(timeout) s", sourceLocation: sourceLocation)
        kill(process.processIdentifier, SIGKILL)
      }
    }
    watchdog.start()
    defer { finished.signal() }
    let writer = Thread { [process] in
      guard !sentFirst else { return }
      // A child that quit early is a broken pipe, not a crash of the test process.
      try? (process.standardInput as? Pipe)?.fileHandleForWriting.write(contentsOf: data)
      try? (process.standardInput as? Pipe)?.fileHandleForWriting.close()
    }
    writer.start()
    let output =
      (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
    let errors =
      (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
      errors: String(decoding: errors, as: UTF8.self))
  }

  /// Starts `catalog` with pipes for its standard streams; the caller writes and reads, unless
  /// `input` is given: it is then in the pipe, which is closed, before the process starts.
  func start(_ arguments: [String] = [], input: Data? = nil) -> Process {
    var directoryArguments = ["--state-dir", stateDirectory, "--data-dir", dataDirectory]
    if arguments.first == "state" { directoryArguments = ["state"] + directoryArguments }
    return Self.start(
      Self.executable,
      directoryArguments + (arguments.first == "state" ? Array(arguments.dropFirst()) : arguments),
      environment: environment, input: input)
  }

  /// Starts a built program with pipes for its standard streams, `NO_COLOR` set.
  static func start(
    _ executable: URL, _ arguments: [String], environment extra: [String: String] = [:],
    input: Data? = nil
  ) -> Process {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    environment.merge(extra) { $1 }
    process.environment = environment
    let standardInput = Pipe()
    if let input {
      // Within the pipe's buffer (64 KiB): more would wait here for a reader not yet started.
      if input.count <= 65_536 {
        try? standardInput.fileHandleForWriting.write(contentsOf: input)
      } else {
        Issue.record("an input sent before the process starts must fit in a pipe (64 KiB)")
      }
      try? standardInput.fileHandleForWriting.close()
    }
    process.standardInput = standardInput
    process.standardOutput = Pipe()
    process.standardError = Pipe()
    do {
      try process.run()
    } catch {
      Issue.record("cannot start \(executable.path): \(error)")
    }
    return process
  }

  /// Runs `catalog` on a terminal of its own (`script` gives it one), standard input empty,
  /// and returns its exit status and what it wrote there.
  func runOnTerminal(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let command =
      ([CatalogSandbox.executable.path] + arguments + [
        "--state-dir", stateDirectory, "--data-dir", dataDirectory,
      ]).map { "'\($0)'" }.joined(separator: " ")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    process.arguments = ["-qec", command, "/dev/null"]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  /// `catalog state --json`, decoded.
  func stateJSON(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    let result = try run(["state", "--json"])
    #expect(
      result.status == 0, "state --json failed: \(result.errors)", sourceLocation: sourceLocation)
    let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
    return try #require(object as? [String: Any], sourceLocation: sourceLocation)
  }

  func scene(_ name: String, in state: [String: Any]) -> [String: Any]? {
    (state["scenes"] as? [[String: Any]])?.first { $0["name"] as? String == name }
  }

  func file(_ relativePath: String) -> String { stateDirectory + "/" + relativePath }

  /// Creates the state and data directories as the app would (0700), before its first launch.
  func createStateDirectory(_ subfolders: [String] = []) throws {
    for folder in [stateDirectory, dataDirectory] + subfolders.map(file) {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    }
  }

  /// Writes a file in the state directory, as a user or a crash might leave it.
  func write(_ contents: Data, to relativePath: String) throws {
    try contents.write(to: URL(fileURLWithPath: file(relativePath)))
  }

  /// Writes text to a file in the state directory.
  func write(_ text: String, to relativePath: String) throws {
    try write(Data(text.utf8), to: relativePath)
  }

  /// The contents of a file in the state directory.
  func contents(of relativePath: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: file(relativePath)))
  }

  func exists(_ relativePath: String) -> Bool {
    FileManager.default.fileExists(atPath: file(relativePath))
  }

  /// Writes the user's catalog file in the data directory, as a person or another program might.
  /// The saved activity history, read through the library as the app reads it.
  var history: ActivityHistory {
    ActivityHistory(directory: StateDirectory(existing: stateDirectory))
  }

  /// The saved activities, newest first, once `catalog activities` has saved what the scene
  /// files keep pending into the history, as a user who lists them sees them.
  ///
  /// - Returns: The history's records.
  /// - Throws: When the command fails or the history cannot be read.
  func savedActivities(sourceLocation: SourceLocation = #_sourceLocation) throws
    -> [UserActivityRecord]
  {
    let listed = try run(["activities"])
    #expect(listed.status == 0, "\(listed.errors)", sourceLocation: sourceLocation)
    return try history.records()
  }

  /// Removes the activity history's database and its companions, as if never written.
  func removeHistory() {
    for suffix in ["", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: file("activities.sqlite" + suffix))
    }
  }

  /// The catalog database's path.
  var databasePath: String { dataDirectory + "/catalog.sqlite" }

  /// Replaces the user's catalog with products in the earlier format: the database is removed
  /// and a `products.json` written, which the next launch migrates.
  func writeCatalog(_ contents: String) throws {
    try createStateDirectory()
    for suffix in ["", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: databasePath + suffix)
    }
    try Data(contents.utf8).write(to: URL(fileURLWithPath: dataDirectory + "/products.json"))
  }

  /// The user's catalog's products, as JSON objects, from `catalog export`.
  func catalogProducts(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]]
  {
    let result = try run(["export"])
    #expect(result.status == 0, "export: \(result.errors)", sourceLocation: sourceLocation)
    let file = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
    return try #require(file as? [[String: Any]])
  }

  /// Writes a file in the sandbox.
  ///
  /// - Returns: Its path.
  func writeFile(_ name: String, _ text: String) throws -> String {
    let path = root + "/" + name
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// Deletes a product from the catalog database behind the app's back, as another program
  /// might.
  func removeProductFromDataFile(named name: String) throws {
    if let catalogURL {
      let connection = try PostgresConnection(
        PostgresAddress(catalogURL), applicationName: "catalog-tests")
      try connection.transaction {
        let position = try #require(
          try connection.execute("SELECT position FROM catalog.products WHERE name = $1", [name])
            .integer)
        try connection.execute("DELETE FROM catalog.products WHERE name = $1", [name])
        try connection.execute(
          "UPDATE catalog.blocks SET live = live - 1 WHERE block = ($1::bigint - 1) >> 10",
          [String(position)])
        try connection.execute(
          "UPDATE catalog.block_groups SET live = live - 1 WHERE grp = ($1::bigint - 1) >> 16",
          [String(position)])
        try connection.run(
          "UPDATE catalog.info SET value = value + 1 WHERE key = 'generation'")
      }
      return
    }
    let database = try Database(path: databasePath, mode: .readWrite)
    try database.writeTransaction {
      let position = try #require(
        try database.integer("SELECT position FROM products WHERE name = ?", .text(name)))
      try database.run("DELETE FROM products WHERE name = ?", .text(name))
      try database.run(
        "UPDATE blocks SET live = live - 1 WHERE block = (? - 1) >> 10", .integer(position))
      try database.run(
        "UPDATE block_groups SET live = live - 1 WHERE grp = (? - 1) >> 16", .integer(position))
      try database.run("UPDATE catalog_info SET value = value - 1 WHERE key = 'count'")
      try database.run("UPDATE catalog_info SET value = value + 1 WHERE key = 'generation'")
    }
  }

  func quarantined() -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: file("quarantine")))?.sorted() ?? []
  }
}

extension Process {
  /// Writes a line to the process's standard input.
  func send(_ line: String) {
    try? (standardInput as? Pipe)?.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
  }

  /// Reads standard output until it contains `text`, or fails after `timeout` seconds.
  @discardableResult
  func readOutput(
    until text: String, timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation
  ) -> String {
    guard let handle = (standardOutput as? Pipe)?.fileHandleForReading else { return "" }
    return read(
      handle.fileDescriptor, until: text, timeout: timeout, sourceLocation: sourceLocation)
  }

  /// Ends the input, as Ctrl-D would, and waits for the process to end.
  func finishInput() {
    try? (standardInput as? Pipe)?.fileHandleForWriting.close()
    waitUntilExit()
  }

  /// Ends the input, reads what the process writes until it ends, and waits for it.
  ///
  /// - Returns: Its standard output and standard error.
  func finishReading() -> (output: String, errors: String) {
    try? (standardInput as? Pipe)?.fileHandleForWriting.close()
    func text(_ pipe: Any?) -> String {
      String(
        decoding: (pipe as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data(),
        as: UTF8.self)
    }
    let output = text(standardOutput)
    let errors = text(standardError)
    waitUntilExit()
    return (output, errors)
  }

  /// Sends SIGKILL and waits for the process to end.
  func killHard() {
    kill(processIdentifier, SIGKILL)
    waitUntilExit()
  }
}

/// Reads a descriptor until what came contains `text`, or records an issue after `timeout`
/// seconds.
///
/// - Returns: All that came.
func read(
  _ descriptor: Int32, until text: String, timeout: Double,
  sourceLocation: SourceLocation
) -> String {
  var collected = Data()
  let found = read(descriptor, into: &collected, until: text, timeout: timeout)
  if !found {
    Issue.record(
      "no '\(text)' in the output: \(String(decoding: collected, as: UTF8.self).debugDescription)",
      sourceLocation: sourceLocation)
  }
  return String(decoding: collected, as: UTF8.self)
}

/// Reads a descriptor into `collected` until it holds `text`, for at most `timeout` seconds.
///
/// - Returns: Whether `collected` holds `text`.
func read(_ descriptor: Int32, into collected: inout Data, until text: String, timeout: Double)
  -> Bool
{
  let marker = Data(text.utf8)
  let deadline = Date().addingTimeInterval(timeout)
  while collected.range(of: marker) == nil {
    guard Date() < deadline else { return false }
    var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&waiting, 1, 100) > 0 else { continue }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes {
      Foundation.read(descriptor, $0.baseAddress, $0.count)
    }
    guard count > 0 else { return false }
    collected += buffer[..<count]
  }
  return true
}
