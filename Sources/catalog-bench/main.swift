import ActivityIndex
// catalog-bench: measures what the issues budget, in a release build.
//
//   catalog-bench startup [--runs N] [--scenes N]
//       Median wall time from exec to exit of `catalog` restoring N scenes (stdin at end of
//       input, so it restores, reaches its prompt and quits), beside the Foundation hello world.
//   catalog-bench commit [--runs N]
//       Median time to make one command's change durable (AppStore.commit of one scene; and of
//       a command that also makes a new activity current, whose history write then finishes in
//       the background, the activity being durable in the scene's file already),
//       beside the floor: write, fsync, rename and fsync of the directory, same bytes.
//   catalog-bench catalog --catalog FILE [--runs N] [--done-runs N]
//       The catalog's budgets: import, launch to prompt, one durable done, peak memory; each
//       beside the same work done by the sqlite3 shell (or the floor) in the same run.
//   catalog-bench data --catalog FILE [--runs N]
//       Every data command (import, re-import, export, list --all, delete) as a whole process,
//       beside the sqlite3 shell doing the same work on the same rows in the same run.
//   catalog-bench scale --products N | --catalog FILE [--runs N] [--edits N] [--history N]
//                      [--search-repeats N]
//       Every budget of issue 24 at one size (up to 10,000,000 products) in one run, as a
//       table: import, reindex, export, REPL search, launch, a saved edit, each beside its
//       reference (sqlite3, FTS5, the hello world) with ratios and peak memory.
//   catalog-bench order-file [--output FILE]
//       Profiles a launch and everyday commands under Valgrind and writes the functions they
//       run and the variables they touch, which the linker places together
//       (Sources/catalog/startup.order).
//   catalog-bench search --catalog FILE [--queries FILE] [--repeat N] [--limit K]
//       Builds the search index from a catalog and answers the standard query set; prints the
//       JSON shape of Tests/Fixtures/bench/fts5_baseline.py, plus the index's memory.
import CatalogApp
import CatalogCore
import Foundation
import StateRestoration
import SystemSupport

func option(_ name: String, default value: Int) -> Int {
  let arguments = CommandLine.arguments
  guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else {
    return value
  }
  return Int(arguments[index + 1]) ?? value
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
  let sorted = values.sorted()
  return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(fraction * Double(sorted.count)))]
}

func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func temporaryDirectory() -> String {
  let path = NSTemporaryDirectory() + "catalog-bench-" + UUID().uuidString
  try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

/// Runs a program to completion with standard input at its end, and times it from exec to
/// exit (``measure(_:_:input:)``: `posix_spawn` and `wait4`, no run loop in between).
func timeRun(_ executable: URL, _ arguments: [String]) throws -> Double {
  try measure(executable, arguments).milliseconds
}

/// The programs the benchmarks run: the `catalog` and hello world built beside this one, and
/// the `sqlite3` shell.
enum Programs {
  /// The folder of this executable, where `swift build` put the others.
  static let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent()
  static let catalog = folder.appendingPathComponent("catalog")
  static let hello = folder.appendingPathComponent("hello-foundation")
  static let sqlite3 = URL(fileURLWithPath: "/usr/bin/sqlite3")

  /// The `psql` binary of the installed PostgreSQL (under `pg_config --bindir`): Debian's
  /// `/usr/bin/psql` is a Perl script that picks a version first, and adds its start to every
  /// run.
  static func psql() throws -> URL {
    let folder = try output(of: "pg_config", ["--bindir"]).trimmingCharacters(
      in: .whitespacesAndNewlines)
    let binary = URL(fileURLWithPath: folder).appendingPathComponent("psql")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
      throw CatalogBenchError("no psql under `pg_config --bindir` ('\(folder)')")
    }
    return binary
  }
}

/// Runs a program found on the `PATH` to completion, its output discarded; fails with what it
/// printed on standard error when it fails.
func run(_ program: String, _ arguments: [String]) throws {
  _ = try output(of: program, arguments, keeping: false)
}

/// Runs a program found on the `PATH` to completion; fails with what it printed on standard
/// error when it fails.
///
/// - Returns: What it printed on standard output (nothing when not `keeping` it).
func output(of program: String, _ arguments: [String], keeping: Bool = true) throws
  -> String
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [program] + arguments
  process.standardInput = FileHandle.nullDevice
  let printed = Pipe()
  process.standardOutput = keeping ? printed : FileHandle.nullDevice
  let errors = Pipe()
  process.standardError = errors
  try process.run()
  // Read at once: a listing larger than a pipe holds would otherwise stop the program.
  let text = keeping ? printed.fileHandleForReading.readDataToEndOfFile() : Data()
  let message = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    let reason = String(decoding: message, as: UTF8.self).split(separator: "\n").last ?? ""
    throw CatalogBenchError(
      "\(program) failed (status \(process.terminationStatus)): \(reason)"
        + (process.terminationStatus == 127 ? " — is \(program) installed?" : ""))
  }
  return String(decoding: text, as: UTF8.self)
}

/// The `sqlite3` script that builds the FTS5 table of a catalog database's products into the
/// shell's database, as `fts5_baseline.py` makes it: unicode61, diacritics removed, prefix
/// indexes on 2 and 3 characters, optimized.
func fts5BuildScript(catalogDatabase path: String) -> String {
  """
  ATTACH '\(path.replacingOccurrences(of: "'", with: "''"))' AS c;
  CREATE VIRTUAL TABLE p USING fts5(name, keywords,
    tokenize='unicode61 remove_diacritics 2', prefix='2 3');
  INSERT INTO p(rowid, name, keywords)
    SELECT position, name, replace(keywords, char(31), ' ') FROM c.products;
  INSERT INTO p(p) VALUES ('optimize');

  """
}

struct CatalogBenchError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

func startup() throws {
  let runs = option("--runs", default: 30)
  let sceneCount = option("--scenes", default: 8)
  let (catalog, hello) = (Programs.catalog, Programs.hello)
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }
  let directories = ["--state-dir", root + "/state", "--data-dir", root + "/data"]
  // Set up the scenes, each on a product with a tab and an open editor.
  let setup = Process()
  setup.executableURL = catalog
  setup.arguments = directories
  let input = Pipe()
  setup.standardInput = input
  setup.standardOutput = FileHandle.nullDevice
  try setup.run()
  var script = "select 1\ntab photo\nedit\nname Draft 0\n"
  for index in 1..<sceneCount {
    script += "scene new s\(index) \(index + 1)\ntab photo\nedit\nname Draft \(index)\n"
  }
  input.fileHandleForWriting.write(Data(script.utf8))
  try input.fileHandleForWriting.close()
  setup.waitUntilExit()

  var catalogTimes: [Double] = []
  var helloTimes: [Double] = []
  for _ in 0..<3 {  // warm the page cache
    _ = try timeRun(catalog, directories)
    _ = try timeRun(hello, [])
  }
  for _ in 0..<runs {  // interleaved, so that both see the same machine
    catalogTimes.append(try timeRun(catalog, directories))
    helloTimes.append(try timeRun(hello, []))
  }
  let ratio = median(catalogTimes) / median(helloTimes)
  print(
    String(
      format: """
        {"benchmark": "startup", "scenes": %d, "runs": %d, \
        "catalog_p50_ms": %.2f, "catalog_p90_ms": %.2f, "hello_foundation_p50_ms": %.2f, \
        "hello_foundation_p90_ms": %.2f, "ratio": %.2f}
        """, sceneCount, runs, median(catalogTimes), percentile(catalogTimes, 0.9),
      median(helloTimes),
      percentile(helloTimes, 0.9), ratio))
}

func commit() throws {
  let runs = option("--runs", default: 200)
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }
  let paths = try AppPaths(
    stateDirectory: root + "/state", dataDirectory: root + "/data", environment: [:])
  let (store, initial, _) = try AppStore.launch(LaunchOptions(paths: paths))
  let environment = store.environment
  var state = initial
  let clock = ContinuousClock()
  // A change of the scene's storage alone (the tab), then changes that also make a new
  // activity current, which the scene's file lists for the activity history's next batch.
  func measure(_ commands: [Command]) throws -> [Double] {
    var times: [Double] = []
    for index in 0..<runs {
      let result = try state.applying(commands[index % commands.count], environment: environment)
      let start = clock.now
      var next = result.state
      try store.commit(from: state, to: &next, catalogChanges: result.catalogChanges)
      times.append(milliseconds(clock.now - start))
      state = next
    }
    return times
  }
  state = try state.applying(.select("cher"), environment: environment).state
  let commitTimes = try measure([.tab(.photo), .tab(.detail)])
  let activityTimes = try measure([.select("cher"), .select("mango")])
  let bytes = try Data(contentsOf: URL(fileURLWithPath: root + "/state/scenes/main.json"))
  // The CPU part: encoding the scene's file.
  var encodeTimes: [Double] = []
  for _ in 0..<runs {
    let start = clock.now
    _ = try SceneFile(state.activeScene).encoded()
    encodeTimes.append(milliseconds(clock.now - start))
  }
  var floorTimes: [Double] = []
  for _ in 0..<runs {
    let start = clock.now
    try DurableFile.write(bytes, to: root + "/state/floor.json")
    floorTimes.append(milliseconds(clock.now - start))
  }
  // Saving one activity in the history (what the background write does), into a history that
  // already holds `--history N` entries.
  let history = ActivityHistory(directory: try StateDirectory(creating: root + "/history"))
  let filled = option("--history", default: 10_000)
  var template = UserActivityRecord(activityType: "bench")
  template.isEligibleForSearch = true
  for index in 0..<filled where index % 1000 == 0 {
    try fill(
      history,
      with: (index..<min(filled, index + 1000)).map { number -> UserActivityRecord in
        var record = template
        record.persistentIdentifier = "filled-\(number)"
        record.lastActiveDate = Date(timeIntervalSinceReferenceDate: Double(number))
        return record
      })
  }
  var saveTimes: [Double] = []
  for run in 0..<runs {
    var record = template
    record.persistentIdentifier = "saved-\(run % 50)"
    record.lastActiveDate = Date()
    let start = clock.now
    try history.save(record)
    saveTimes.append(milliseconds(clock.now - start))
  }
  print(
    String(
      format: """
        {"benchmark": "commit", "runs": %d, "bytes": %d, "commit_p50_ms": %.3f, "commit_p99_ms": %.3f, \
        "with_activity_p50_ms": %.3f, "with_activity_p99_ms": %.3f, "encode_p50_ms": %.3f, \
        "floor_p50_ms": %.3f, "floor_p99_ms": %.3f, "history_entries": %d, \
        "history_save_p50_ms": %.3f, "history_save_p99_ms": %.3f}
        """, runs, bytes.count, median(commitTimes), percentile(commitTimes, 0.99),
      median(activityTimes), percentile(activityTimes, 0.99), median(encodeTimes),
      median(floorTimes), percentile(floorTimes, 0.99), try history.count(), median(saveTimes),
      percentile(saveTimes, 0.99)))
}

do {
  switch CommandLine.arguments.dropFirst().first {
  case "startup": try startup()
  case "commit": try commit()
  case "search": try searchBenchmark()
  case "catalog": try catalogBenchmark()
  case "data": try dataCommandsBenchmark()
  case "cold-search": try coldSearchBenchmark()
  case "deliver": try deliveryBenchmark()
  case "pictures": try pictureBenchmark()
  case "scale": try scaleBenchmark()
  case "repl-search": try replSearchBenchmark()
  case "engines": try enginesBenchmark()
  case "order-file": try orderFileCommand()
  default:
    FileHandle.standardError.write(
      Data(
        """
        usage: catalog-bench startup [--runs N] [--scenes N] | commit [--runs N]
               catalog-bench search --catalog FILE [--queries FILE] [--repeat N] [--limit K] [--overlay N]
               catalog-bench catalog --catalog FILE [--runs N] [--done-runs N]
               catalog-bench data --catalog FILE [--runs N]
               catalog-bench cold-search --catalog FILE [--queries FILE] [--runs N] [--history N]
               catalog-bench deliver [--runs N]
               catalog-bench pictures [--runs N]
               catalog-bench scale --products N | --catalog FILE [--runs N] [--edits N] [--history N]
                                   [--search-repeats N]
               catalog-bench repl-search --data-dir DIR [--catalog-url URL --products-from FILE]
                                         [--history N] [--search-repeats N]
               catalog-bench engines --catalog-url URL --products N | --catalog FILE [--runs N]
               catalog-bench order-file [--output FILE]

        """.utf8))
    exit(64)
  }
} catch {
  FileHandle.standardError.write(Data("error: \(error)\n".utf8))
  exit(1)
}

/// Saves activities in a history a thousand a transaction, not one save (and `fsync`) each.
func fill(_ history: ActivityHistory, with activities: [UserActivityRecord]) throws {
  for start in stride(from: 0, to: activities.count, by: 1000) {
    try history.importRecords(Array(activities[start..<min(activities.count, start + 1000)]))
  }
}
