import CatalogApp
import CatalogCore
import CatalogEngines
import CatalogModel
import Foundation
import StateRestoration

/// `catalog-bench scale --products N [--catalog FILE] [--runs N] [--edits N] [--history N]`:
/// every budget of issue 24 at one catalog size, in one run, as a table: each line what
/// `catalog` took (median), what the reference took on the same machine in the same run, the
/// ratio, and peak memory.
///
/// The catalog is `synth_catalog.py N` (`Tests/Fixtures/bench/`, run with `python3`), or FILE.
/// Its rows are imported once and exported as CSV; then, each as a whole process:
///
/// - import: `catalog import ROWS.csv` into an empty data directory, beside `sqlite3 .import`
///   of the same CSV into the same table and indexes; with what it wrote to disk;
/// - reindex: `catalog reindex`, beside the FTS5 build of the same rows (as
///   `fts5_baseline.py` makes it);
/// - export: `catalog export` as JSON and as CSV, beside `sqlite3 -json` and `sqlite3 -csv`;
/// - launch: `catalog` restoring three scenes, each with an editor open on a draft, to its
///   prompt and out, beside the Foundation hello world (linked statically, as `catalog` is);
/// - saved edit: `catalog done` of a draft price, beside the `sqlite3` shell updating the
///   same row in a transaction (WAL, `synchronous=FULL`, as the catalog's database is);
/// - the edit as typed: `select N`, `edit`, `price X`, `done` in one script to `catalog`,
///   beside the same `sqlite3` UPDATE: what a user's edit costs, not its last step;
/// - one-command select: `catalog select N`, beside the `sqlite3` shell reading that row;
///
/// and in this process, as the REPL runs it: `search QUERY` (parsed, applied and rendered)
/// for the standard query set, `--search-repeats` times each (20), with `--history` products
/// viewed (1,000), which rank the results; its 99th percentile is the budget. The first search
/// of the process, which reads the history and finds its products in the catalog, is shown
/// beside it.
func scaleBenchmark() throws {
  let runs = option("--runs", default: 3)
  let edits = option("--edits", default: 15)
  let viewed = option("--history", default: 1000)
  let (catalog, hello, sqlite3) = (Programs.catalog, Programs.hello, Programs.sqlite3)
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }

  let source = try benchmarkCatalog(for: "scale", in: root) {
    progress("generating \($0) products")
  }

  // The rows as CSV, which both importers read.
  progress("importing \(source) and exporting it as CSV")
  let rows = root + "/rows.csv"
  let seed = ["--state-dir", root + "/seed-state", "--data-dir", root + "/seed-data"]
  _ = try measure(catalog, ["import", source] + seed)
  _ = try measure(catalog, ["export", rows] + seed)
  waitForBackgroundWork(dataDirectory: seed[3])
  try? FileManager.default.removeItem(atPath: seed[3])

  progress("import")
  let state = root + "/state"
  let data = root + "/data"
  let directories = ["--state-dir", state, "--data-dir", data]
  let imported = try measure(catalog, ["import", rows] + directories)
  waitForBackgroundWork(dataDirectory: data)
  let shellDatabase = root + "/shell.sqlite"
  let shellImport = try measure(sqlite3, [shellDatabase], input: shellCSVImport(rows))
  let databasePath = data + "/" + CatalogStore.databaseName
  let databaseBytes = fileSize(databasePath)
  let products = try CatalogDatabase(path: databasePath, readOnly: true).count

  progress("reindex")
  let reindex = try measure(catalog, ["reindex"] + directories)
  let fts = try measure(
    sqlite3, [root + "/fts.sqlite"], input: fts5BuildScript(catalogDatabase: databasePath))
  try? FileManager.default.removeItem(atPath: root + "/fts.sqlite")

  progress("export")
  let columns =
    "SELECT identifier, name, image_name, year, price_cents, keywords FROM products ORDER BY position"
  var json: [ProcessMeasure] = []
  var csv: [ProcessMeasure] = []
  var shellJSON: [ProcessMeasure] = []
  var shellCSV: [ProcessMeasure] = []
  for _ in 0..<runs {  // interleaved, so that all see the same machine
    json.append(try measure(catalog, ["export"] + directories))
    shellJSON.append(try measure(sqlite3, ["-json", shellDatabase, columns]))
    csv.append(try measure(catalog, ["export", "--format", "csv"] + directories))
    shellCSV.append(try measure(sqlite3, ["-csv", shellDatabase, columns]))
  }

  progress("search in the REPL")
  let search = try replSearchTimes(
    data: data, state: root + "/search-state", viewed: viewed,
    repeats: option("--search-repeats", default: 20))

  progress("launch")
  _ = try measure(
    catalog, directories,
    input: threeScenesWithEditors)
  var launches: [ProcessMeasure] = []
  var hellos: [ProcessMeasure] = []
  // Processes of a few milliseconds are timed alone: the thread that samples a process's peak
  // memory starts as it does and takes a core from it (2 of them here), and a process that
  // runs two threads, as a saved edit does, felt it more than the single-threaded `sqlite3`
  // shell. Their peaks come from one more run each, sampled and not timed.
  for run in 0..<(runs * 10 + 3) {
    let launch = try measure(catalog, directories, samplingPeak: false)
    let baseline = try measure(hello, [], samplingPeak: false)
    if run >= 3 {  // the first warm the page cache
      launches.append(launch)
      hellos.append(baseline)
    }
  }
  let launchPeak = try measure(catalog, directories).peakKilobytes

  progress("saved edits")
  let position = max(1, products / 2)
  let editing = directories + ["--scene", "edits"]
  _ = try measure(catalog, editing + ["select", String(position)])
  var saves: [ProcessMeasure] = []
  var updates: [ProcessMeasure] = []
  var selects: [ProcessMeasure] = []
  var reads: [ProcessMeasure] = []
  var typedEdits: [ProcessMeasure] = []
  var savePeak = 0
  var updatePeak = 0
  for run in 0...edits {
    // The last cycle samples the peaks, untimed.
    let sampling = run == edits
    _ = try measure(catalog, editing + ["edit"])
    _ = try measure(catalog, editing + ["price", String(format: "%d.%02d", 10 + run, run % 100)])
    let save = try measure(catalog, editing + ["done"], samplingPeak: sampling)
    let update = try measure(
      sqlite3,
      [
        shellDatabase,
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; BEGIN; UPDATE products SET price_cents = \(1000 + run) WHERE position = \(position); COMMIT;",
      ], samplingPeak: sampling)
    // The four commands of an edit as a user types them, in one process.
    let typed = try measure(
      catalog, directories + ["--scene", "typed"],
      input:
        "select \(position)\nedit\nprice \(20 + run).\(String(format: "%02d", run % 100))\ndone\n",
      samplingPeak: false)
    // A one-command `select N` of another product, beside the shell reading that row.
    let other = max(1, products / 3 + run)
    let select = try measure(
      catalog, directories + ["--scene", "selects", "select", String(other)],
      samplingPeak: false)
    let read = try measure(
      sqlite3,
      [
        shellDatabase,
        "SELECT name, year, price_cents, keywords FROM products WHERE position = \(other);",
      ],
      samplingPeak: false)
    if sampling {
      (savePeak, updatePeak) = (save.peakKilobytes, update.peakKilobytes)
    } else {
      saves.append(save)
      updates.append(update)
      selects.append(select)
      reads.append(read)
      typedEdits.append(typed)
    }
  }

  let table = ScaleTable(products: products)
  table.row(
    "import (CSV)", seconds(imported),
    "\(mb(imported.peakKilobytes)), wrote \(String(format: "%.2f", Double(imported.writtenBytes) / Double(max(databaseBytes, 1))))× the \(String(format: "%.0f", Double(databaseBytes) / 1e6)) MB database",
    "`sqlite3 .import`", seconds(shellImport), mb(shellImport.peakKilobytes),
    imported.milliseconds / shellImport.milliseconds)
  table.row(
    "reindex", seconds(reindex), mb(reindex.peakKilobytes), "FTS5 build", seconds(fts),
    mb(fts.peakKilobytes), reindex.milliseconds / fts.milliseconds)
  for (name, ours, theirs, reference) in [
    ("export JSON", json, shellJSON, "`sqlite3 -json`"),
    ("export CSV", csv, shellCSV, "`sqlite3 -csv`"),
  ] {
    let time = median(ours.map(\.milliseconds))
    let referenceTime = median(theirs.map(\.milliseconds))
    table.row(
      name, String(format: "%.2f s", time / 1000), mb(ours.map(\.peakKilobytes).max() ?? 0),
      reference, String(format: "%.2f s", referenceTime / 1000),
      mb(theirs.map(\.peakKilobytes).max() ?? 0), time / referenceTime)
  }
  table.row(
    "REPL `search`, p99 (p50; the first)",
    String(
      format: "%.1f ms (%.1f ms; %.1f ms)", percentile(search, 0.99), median(search),
      search.first ?? 0), "", "budget", "20 ms", "", percentile(search, 0.99) / 20)
  let launchTime = median(launches.map(\.milliseconds))
  let helloTime = median(hellos.map(\.milliseconds))
  table.row(
    "launch, 3 scenes with editors", String(format: "%.2f ms", launchTime),
    mb(launchPeak), "hello world (static Foundation)",
    // Too short for its own high-water mark to be sampled; `wait4` would report this
    // benchmark's, which the child shares until it execs.
    String(format: "%.2f ms", helloTime), "—",
    launchTime / helloTime)
  let saveTime = median(saves.map(\.milliseconds))
  let updateTime = median(updates.map(\.milliseconds))
  table.row(
    "saved edit (`catalog done`)", String(format: "%.2f ms", saveTime),
    mb(savePeak), "`sqlite3` UPDATE in a transaction",
    String(format: "%.2f ms", updateTime), mb(updatePeak),
    saveTime / updateTime)
  let typedTime = median(typedEdits.map(\.milliseconds))
  table.row(
    "the edit as typed (`select`, `edit`, `price`, `done`)", String(format: "%.2f ms", typedTime),
    "—", "`sqlite3` UPDATE in a transaction", String(format: "%.2f ms", updateTime), "—",
    typedTime / updateTime)
  let selectTime = median(selects.map(\.milliseconds))
  let readTime = median(reads.map(\.milliseconds))
  table.row(
    "one-command `catalog select N`", String(format: "%.2f ms", selectTime), "—",
    "`sqlite3` SELECT of that row", String(format: "%.2f ms", readTime), "—",
    selectTime / readTime)
  table.print()
}

/// The time of each `search` of the standard query set typed into a REPL over a data
/// directory, `repeats` times each, in milliseconds: parsed, applied and rendered, as the REPL
/// does between reading a line and writing its output; the first includes opening the index.
private func replSearchTimes(data: String, state: String, viewed: Int, repeats: Int) throws
  -> [Double]
{
  try replSearches(data: data, state: state, viewed: viewed, repeats: repeats).map(\.ms)
}

/// `catalog-bench repl-search --data-dir DIR [--history N] [--search-repeats N]`: the REPL's
/// search of `scale` alone, over a data directory made before (a 10,000,000-product one takes
/// a quarter of an hour to make), with the slowest searches named.
func replSearchBenchmark() throws {
  guard let data = stringOption("--data-dir") else {
    throw CatalogBenchError("repl-search needs --data-dir DIR (a data directory with a catalog)")
  }
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }
  let searches = try replSearches(
    data: data, state: root + "/state", viewed: option("--history", default: 1000),
    repeats: option("--search-repeats", default: 20))
  let times = searches.map(\.ms)
  print(
    String(
      format: "searches %d: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, first %.2f ms", times.count,
      median(times), percentile(times, 0.90), percentile(times, 0.99), times.first ?? 0))
  for (index, search) in searches.enumerated().sorted(by: { $0.element.ms > $1.element.ms })
    .prefix(8)
  {
    print(String(format: "  %8.2f ms  #%d  search %@", search.ms, index + 1, search.query))
  }
}

/// Each search of the standard query set in a REPL, in order, with its time in milliseconds.
private func replSearches(data: String, state: String, viewed: Int, repeats: Int) throws
  -> [(query: String, ms: Double)]
{
  let database = try CatalogDatabase(path: data + "/" + CatalogStore.databaseName, readOnly: true)
  try fillHistory(viewed, of: database, in: state)
  let paths = try AppPaths(stateDirectory: state, dataDirectory: data, environment: [:])
  let (store, initial, _) = try AppStore.launch(LaunchOptions(paths: paths))
  var current = initial
  let clock = ContinuousClock()
  var times: [(query: String, ms: Double)] = []
  for _ in 0..<repeats {
    for (_, queries) in try standardQueries() {
      for query in queries {
        let start = clock.now
        guard let command = try CommandParser.parse("search " + query) else { continue }
        let result = try current.applying(command, environment: store.environment)
        var output = result.output
        try result.continuation?.produce { output += $0 }
        times.append((query, milliseconds(clock.now - start)))
        current = result.state
        withExtendedLifetime(output) {}
      }
    }
  }
  _ = store.environment.settleHistory(closing: true)
  return times
}

/// The catalog a benchmark runs on: `--catalog FILE`, or `--products N` of them made by
/// `synth_catalog.py` into a directory.
///
/// - Parameters:
///   - benchmark: The benchmark's name, for the message when neither is given.
///   - directory: Where a generated catalog goes.
///   - generating: Called with the count before generating.
/// - Returns: The catalog file's path.
/// - Throws: When neither option is given, or the generator fails.
func benchmarkCatalog(
  for benchmark: String, in directory: String, generating: (Int) -> Void = { _ in }
) throws -> String {
  if let file = stringOption("--catalog") { return file }
  let count = option("--products", default: 0)
  guard (1...10_000_000).contains(count) else {
    throw CatalogBenchError(
      "\(benchmark) needs --products N (1 to 10,000,000) or --catalog FILE")
  }
  let source = directory + "/catalog.json"
  generating(count)
  let generator = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Tests/Fixtures/bench/synth_catalog.py").standardized.path
  _ = try measure(
    URL(fileURLWithPath: "/usr/bin/env"), ["python3", generator, String(count), source])
  return source
}

/// The table `scale` prints: Markdown, with the machine and the date above it.
private final class ScaleTable {
  private var lines: [String] = []
  private let products: Int

  init(products: Int) {
    self.products = products
  }

  func row(
    _ what: String, _ ours: String, _ ourPeak: String, _ reference: String,
    _ referenceValue: String, _ referencePeak: String, _ ratio: Double
  ) {
    lines.append(
      "| \(what) | \(ours) | \(ourPeak) | \(reference) | \(referenceValue) | \(referencePeak) | "
        + String(format: "%.2f×", ratio) + " |")
  }

  func print() {
    var system = utsname()
    uname(&system)
    let machine = withUnsafeBytes(of: &system.machine) {
      String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
    let memory =
      (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8))?.split(separator: "\n")
      .first { $0.hasPrefix("MemTotal:") }
      .flatMap {
        Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
      }
      ?? 0
    let date = ISO8601DateFormatter().string(from: Date())
    Swift.print(
      "\(products) products; \(ProcessInfo.processInfo.activeProcessorCount) cores (\(machine)), "
        + String(format: "%.0f GiB", Double(memory) / 1_048_576) + "; \(date)\n")
    Swift.print("| what | catalog | peak | reference | reference's | peak | ratio |")
    Swift.print("|---|---|---|---|---|---|---|")
    for line in lines { Swift.print(line) }
  }
}

private func seconds(_ measure: ProcessMeasure) -> String {
  String(format: "%.2f s", measure.milliseconds / 1000)
}

/// A peak in megabytes; a dash for a process too short for its memory to be sampled.
private func mb(_ kilobytes: Int) -> String {
  kilobytes < 1024 ? "—" : String(format: "%.0f MB", Double(kilobytes) / 1024)
}

private func fileSize(_ path: String) -> Int {
  (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

/// A line on standard error: what the benchmark is doing now (a run at ten million products
/// takes a quarter of an hour).
private func progress(_ step: String) {
  FileHandle.standardError.write(Data("catalog-bench scale: \(step)…\n".utf8))
}
