import CatalogApp
import CatalogCore
import CatalogEngines
import CatalogModel
import Foundation
import PostgreSQL
import StateRestoration

/// `catalog-bench scale --products N [--catalog FILE] [--runs N] [--edits N] [--history N]
/// [--catalog-url URL]`: every budget at one catalog size, in one run, as a table: each line
/// what `catalog` took (median), what the reference took on the same machine in the same run,
/// the ratio, peak memory, and the machine's load average (1 minute) as the line's
/// measurements ended.
///
/// The catalog is `synth_catalog.py N` (`Tests/Fixtures/bench/`, run with `python3`), or FILE.
/// Its rows are imported once and exported as CSV; then, each as a whole process:
///
/// - import: `catalog import ROWS.csv` into an empty data directory, beside `sqlite3 .import`
///   of the same CSV into the same table and indexes; with what it wrote to disk;
/// - reindex: `catalog reindex`, beside the FTS5 build of the same rows (as
///   `fts5_baseline.py` makes it);
/// - export: `catalog export` as JSON and as CSV, beside `sqlite3 -json` and `sqlite3 -csv`;
/// - search from the shell: `catalog search QUERY` for each class of the standard query set
///   (a word, two words, a prefix, Chinese and Japanese, a rare word, a miss), beside the
///   `sqlite3` shell asking the FTS5 table for the best ten names;
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
///
/// With `--catalog-url URL` (a database the benchmark may write to), the same rows on
/// PostgreSQL, in a schema of their own dropped at the end, beside `psql` (the binary under
/// `pg_config --bindir`) running the same statements: the import beside `\copy` into a staging
/// table and one INSERT with the same indexes, the CSV export beside `\copy … TO STDOUT`,
/// `select N`, the edit as typed and `done` beside `psql -c` reading or updating the row, and
/// the REPL's search. `psql` works on the table its own import made, as `sqlite3` works on a
/// file of its own: an UPDATE of the catalog's table would be another program's change, which
/// the catalog's next command counts again.
func scaleBenchmark() throws {
  let runs = option("--runs", default: 3)
  let edits = option("--edits", default: 41)
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
  let table = ScaleTable(products: products)
  table.row(
    "import (CSV)", seconds(imported),
    "\(mb(imported.peakKilobytes)), wrote \(String(format: "%.2f", Double(imported.writtenBytes) / Double(max(databaseBytes, 1))))× the \(String(format: "%.0f", Double(databaseBytes) / 1e6)) MB database",
    "`sqlite3 .import`", seconds(shellImport), mb(shellImport.peakKilobytes),
    imported.milliseconds / shellImport.milliseconds)

  progress("reindex")
  let reindex = try measure(catalog, ["reindex"] + directories)
  let ftsDatabase = root + "/fts.sqlite"
  let fts = try measure(
    sqlite3, [ftsDatabase], input: fts5BuildScript(catalogDatabase: databasePath))
  table.row(
    "reindex", seconds(reindex), mb(reindex.peakKilobytes), "FTS5 build", seconds(fts),
    mb(fts.peakKilobytes), reindex.milliseconds / fts.milliseconds)

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
  table.rows(
    "export JSON", json, "`sqlite3 -json`", shellJSON, inSeconds: true)
  table.rows("export CSV", csv, "`sqlite3 -csv`", shellCSV, inSeconds: true)

  progress("search from the shell")
  for (name, queries) in try standardQueries() {
    var ours: [ProcessMeasure] = []
    var theirs: [ProcessMeasure] = []
    for _ in 0..<max(runs, 5) {
      for query in queries {
        ours.append(
          try measure(catalog, directories + ["search", query], samplingPeak: false))
        theirs.append(
          try measure(
            sqlite3,
            [
              ftsDatabase,
              "SELECT name FROM p WHERE p MATCH '\(fts5Query(query).replacingOccurrences(of: "'", with: "''"))' ORDER BY rank LIMIT 10;",
            ], samplingPeak: false))
      }
    }
    // The peak, from one more run of each, sampled and not timed.
    let peak =
      try queries.map { try measure(catalog, directories + ["search", $0]) }
      .map(\.peakKilobytes).max() ?? 0
    table.row(
      "shell `search`, \(name) (\(queries.joined(separator: ", ")))",
      milliseconds(ours), mb(peak), "`sqlite3` FTS5 query, best 10", milliseconds(theirs), "—",
      median(ours.map(\.milliseconds)) / median(theirs.map(\.milliseconds)))
  }
  try? FileManager.default.removeItem(atPath: ftsDatabase)

  progress("search in the REPL")
  let search = try replSearchTimes(
    data: data, state: root + "/search-state", viewed: viewed,
    repeats: option("--search-repeats", default: 20), database: databasePath)
  table.searchRow("REPL `search`", search)

  progress("launch")
  _ = try measure(catalog, directories, input: threeScenesWithEditors)
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
  // Too short for the hello world's own high-water mark to be sampled; `wait4` would report
  // this benchmark's, which the child shares until it execs.
  table.rows(
    "launch, 3 scenes with editors", launches, "hello world (static Foundation)", hellos,
    peak: try measure(catalog, directories).peakKilobytes)

  progress("saved edits")
  let position = max(1, products / 2)
  let edit = EditScripts(
    catalog: catalog, directories: directories, position: position, other: products / 3)
  let times = try edit.times(
    edits,
    update: { run, sampling in
      try measure(
        sqlite3,
        [
          shellDatabase,
          "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; BEGIN; UPDATE products SET price_cents = \(1000 + run) WHERE position = \(position); COMMIT;",
        ], samplingPeak: sampling)
    },
    read: { other in
      try measure(
        sqlite3,
        [
          shellDatabase,
          "SELECT name, year, price_cents, keywords FROM products WHERE position = \(other);",
        ], samplingPeak: false)
    })
  table.editRows(
    "", times, update: "`sqlite3` UPDATE in a transaction", read: "`sqlite3` SELECT of that row")

  if let url = stringOption("--catalog-url") {
    try postgresRows(
      url: url, rows: rows, source: databasePath, position: position, products: products,
      runs: runs, edits: edits, viewed: viewed, root: root, into: table)
  }
  table.print()
}

/// The PostgreSQL lines of `scale`: each command beside `psql` running the same statements,
/// on the same rows imported into a schema of the reference's own; the export's reference reads
/// the catalog's own table.
private func postgresRows(
  url: String, rows: String, source: String, position: Int, products: Int, runs: Int,
  edits: Int, viewed: Int, root: String, into table: ScaleTable
) throws {
  let catalog = Programs.catalog
  let psql = try Programs.psql()
  let schema = "bench_\(getpid())"
  let reference = schema + "_psql"
  let server = try PostgresConnection(PostgresAddress(url), applicationName: "catalog-bench")
  defer {
    _ = try? server.run(
      "DROP SCHEMA IF EXISTS \(schema) CASCADE; DROP SCHEMA IF EXISTS \(reference) CASCADE")
  }
  let environment = ["CATALOG_URL": url, "CATALOG_SCHEMA": schema]
  for (name, value) in environment { setenv(name, value, 1) }
  defer { for name in environment.keys { unsetenv(name) } }
  let directories = ["--state-dir", root + "/pg-state", "--data-dir", root + "/pg-data"]
  func psqlRun(_ arguments: [String], input: String = "") throws -> ProcessMeasure {
    try measure(psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url] + arguments, input: input)
  }

  progress("PostgreSQL: import")
  let imported = try measure(catalog, ["import", rows] + directories)
  waitForBackgroundWork(dataDirectory: directories[3])
  let copied = try psqlRun([], input: psqlCSVImport(rows, schema: reference))
  table.row(
    "PostgreSQL import (CSV)", seconds(imported), mb(imported.peakKilobytes),
    "`psql`: `\\copy` into staging, INSERT", seconds(copied), mb(copied.peakKilobytes),
    imported.milliseconds / copied.milliseconds)

  progress("PostgreSQL: export")
  var exports: [ProcessMeasure] = []
  var copies: [ProcessMeasure] = []
  for _ in 0..<runs {
    exports.append(try measure(catalog, ["export", "--format", "csv"] + directories))
    // The catalog's own table: the same pages, as cached as the export left them, where a
    // copy of the rows would be as cached as its own import left it.
    copies.append(
      try psqlRun([
        "-c",
        "\\copy (SELECT identifier, name, image_name, year, price_cents, keywords FROM \(schema).products ORDER BY position) TO STDOUT WITH (FORMAT csv, HEADER true)",
      ]))
  }
  table.rows(
    "PostgreSQL export CSV", exports, "`psql`: `\\copy (SELECT …) TO STDOUT`", copies,
    inSeconds: true)

  progress("PostgreSQL: search in the REPL")
  _ = try measure(catalog, ["reindex"] + directories)
  let search = try replSearchTimes(
    data: directories[3], state: root + "/pg-search-state", viewed: viewed,
    repeats: option("--search-repeats", default: 20), database: source,
    environment: environment)
  table.searchRow("PostgreSQL REPL `search`", search)

  progress("PostgreSQL: saved edits")
  let edit = EditScripts(
    catalog: catalog, directories: directories, position: position, other: products / 3)
  let times = try edit.times(
    edits,
    update: { run, _ in
      try psqlRun([
        "-c",
        "BEGIN; UPDATE \(reference).products SET price_cents = \(1000 + run) WHERE position = \(position); COMMIT;",
      ])
    },
    read: { other in
      try psqlRun([
        "-A", "-t", "-c",
        "SELECT name, year, price_cents, keywords FROM \(reference).products WHERE position = \(other)",
      ])
    })
  table.editRows(
    "PostgreSQL ", times, update: "`psql -c` UPDATE", read: "`psql -c` SELECT of that row")
}

/// The times of the edit commands, beside their references'.
private struct EditTimes {
  var saves: [ProcessMeasure] = []
  var updates: [ProcessMeasure] = []
  var typed: [ProcessMeasure] = []
  var selects: [ProcessMeasure] = []
  var reads: [ProcessMeasure] = []
  /// The peaks of `done` and of the reference's update, from a cycle sampled and not timed.
  var peaks = (save: 0, update: 0)
}

/// The commands of a saved edit on one catalog, as `scale` times them.
private struct EditScripts {
  let catalog: URL
  let directories: [String]
  /// The product edited.
  let position: Int
  /// The first product a one-command `select` shows (one more each run).
  let other: Int

  /// Times `done`, the edit as typed and a one-command `select` `edits` times, each beside
  /// the reference's update or read, interleaved so that all see the same machine; then one
  /// more cycle samples the peaks of `done` and the update, untimed.
  ///
  /// - Parameters:
  ///   - edits: How many times.
  ///   - update: The reference's update of the product: the run, and whether to sample its peak.
  ///   - read: The reference's read of a product at a position.
  /// - Returns: The times.
  /// - Throws: When a command fails.
  func times(
    _ edits: Int, update: (Int, Bool) throws -> ProcessMeasure,
    read: (Int) throws -> ProcessMeasure
  ) throws -> EditTimes {
    // The product, selected in the scene `edits`, whose editor each run opens.
    _ = try measure(catalog, directories + ["--scene", "edits", "select", String(position)])
    var times = EditTimes()
    for run in 0...edits {
      let sampling = run == edits
      let save = try done(run, samplingPeak: sampling)
      let updated = try update(run, sampling)
      if sampling {
        times.peaks = (save.peakKilobytes, updated.peakKilobytes)
        break
      }
      times.saves.append(save)
      times.updates.append(updated)
      times.typed.append(try typed(run))
      times.selects.append(try select(run))
      times.reads.append(try read(max(1, other + run)))
    }
    return times
  }

  /// `catalog done` of a draft price, the editor opened and the price typed before.
  func done(_ run: Int, samplingPeak: Bool) throws -> ProcessMeasure {
    let editing = directories + ["--scene", "edits"]
    _ = try measure(catalog, editing + ["edit"])
    _ = try measure(catalog, editing + ["price", String(format: "%d.%02d", 10 + run, run % 100)])
    return try measure(catalog, editing + ["done"], samplingPeak: samplingPeak)
  }

  /// The four commands of an edit as a user types them, in one process.
  func typed(_ run: Int) throws -> ProcessMeasure {
    try measure(
      catalog, directories + ["--scene", "typed"],
      input:
        "select \(position)\nedit\nprice \(20 + run).\(String(format: "%02d", run % 100))\ndone\n",
      samplingPeak: false)
  }

  /// A one-command `select N` of another product each run.
  func select(_ run: Int) throws -> ProcessMeasure {
    try measure(
      catalog, directories + ["--scene", "selects", "select", String(max(1, other + run))],
      samplingPeak: false)
  }
}

/// The `psql` script that imports the catalog's CSV as `shellCSVImport` does with `sqlite3`:
/// `\copy` into a staging table, one INSERT into a table like the catalog's, and its indexes,
/// in one transaction.
private func psqlCSVImport(_ file: String, schema: String) -> String {
  """
  BEGIN;
  CREATE SCHEMA \(schema);
  CREATE TABLE \(schema).staging(record bigserial, identifier text, name text, image_name text,
    year bigint, price numeric, keywords text);
  \\copy \(schema).staging(identifier, name, image_name, year, price, keywords) FROM '\(file.replacingOccurrences(of: "'", with: "''"))' WITH (FORMAT csv, HEADER true)
  CREATE TABLE \(schema).products(identifier text PRIMARY KEY, position bigint NOT NULL UNIQUE,
    name text NOT NULL, folded_name text COLLATE "C" NOT NULL, image_name text NOT NULL,
    year bigint NOT NULL, price_cents bigint NOT NULL, keywords text NOT NULL,
    changed bigint NOT NULL, image_directory text);
  INSERT INTO \(schema).products SELECT upper(identifier), record, trim(name), lower(trim(name)),
    image_name, year, round(price * 100), replace(keywords, ';', chr(31)), 1, NULL
    FROM \(schema).staging ORDER BY record;
  DROP TABLE \(schema).staging;
  CREATE INDEX ON \(schema).products(folded_name);
  CREATE INDEX ON \(schema).products(year, position);
  CREATE INDEX ON \(schema).products(changed);
  COMMIT;

  """
}

/// A query of the standard set as `fts5_baseline.py` asks FTS5: each word quoted, the last a
/// prefix.
private func fts5Query(_ text: String) -> String {
  let terms = text.split(separator: " ").map {
    "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
  return terms.joined(separator: " ") + "*"
}

/// The time of each `search` of the standard query set typed into a REPL over a data
/// directory, `repeats` times each, in milliseconds: parsed, applied and rendered, as the REPL
/// does between reading a line and writing its output; the first includes opening the index.
private func replSearchTimes(
  data: String, state: String, viewed: Int, repeats: Int, database: String,
  environment: [String: String] = [:]
) throws -> [Double] {
  try replSearches(
    data: data, state: state, viewed: viewed, repeats: repeats, database: database,
    environment: environment
  ).map(\.ms)
}

/// `catalog-bench repl-search --data-dir DIR [--catalog-url URL --products-from FILE]
/// [--history N] [--search-repeats N]`: the REPL's search of `scale` alone, over a data
/// directory made before (a 10,000,000-product one takes a quarter of an hour to make), with the
/// slowest searches named. With `--catalog-url`, the REPL searches the catalog on the server
/// (its index in DIR), and the history holds products read from a SQLite catalog of the same
/// rows.
func replSearchBenchmark() throws {
  guard let data = stringOption("--data-dir") else {
    throw CatalogBenchError("repl-search needs --data-dir DIR (a data directory with a catalog)")
  }
  let url = stringOption("--catalog-url")
  let source = stringOption("--products-from")
  guard (url == nil) == (source == nil) else {
    throw CatalogBenchError(
      "repl-search --catalog-url needs --products-from FILE (a SQLite catalog of the same rows)")
  }
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }
  let searches = try replSearches(
    data: data, state: root + "/state", viewed: option("--history", default: 1000),
    repeats: option("--search-repeats", default: 20),
    database: source ?? data + "/" + CatalogStore.databaseName,
    environment: url.map { ["CATALOG_URL": $0] } ?? [:])
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
///
/// - Parameters:
///   - data: The REPL's data directory.
///   - state: Its state directory, where the history goes.
///   - viewed: How many products the history holds.
///   - repeats: How many times the query set runs.
///   - path: The SQLite catalog whose products the history holds (the same rows as the
///     catalog searched, on a server too).
///   - environment: The REPL's environment: `CATALOG_URL` for a catalog on a server.
/// - Returns: Each search and its time.
/// - Throws: When the REPL cannot start or a search fails.
private func replSearches(
  data: String, state: String, viewed: Int, repeats: Int, database path: String,
  environment: [String: String] = [:]
) throws -> [(query: String, ms: Double)] {
  let database = try CatalogDatabase(path: path, readOnly: true)
  try fillHistory(viewed, of: database, in: state)
  let paths = try AppPaths(stateDirectory: state, dataDirectory: data, environment: environment)
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
  _ = store.environment.closeForExit()
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

  /// Adds a line, with the load average now.
  func row(
    _ what: String, _ ours: String, _ ourPeak: String, _ reference: String,
    _ referenceValue: String, _ referencePeak: String, _ ratio: Double
  ) {
    lines.append(
      "| \(what) | \(ours) | \(ourPeak) | \(reference) | \(referenceValue) | \(referencePeak) | "
        + String(format: "%.2f× | %.2f |", ratio, loadAverage()))
  }

  /// Adds the line of the REPL's searches: the 99th percentile beside its budget, 20 ms.
  func searchRow(_ what: String, _ times: [Double]) {
    row(
      what + ", p99 (p50; the first)",
      String(
        format: "%.1f ms (%.1f ms; %.1f ms)", percentile(times, 0.99), median(times),
        times.first ?? 0), "", "budget", "20 ms", "", percentile(times, 0.99) / 20)
  }

  /// Adds the lines of a saved edit, the edit as typed and a one-command `select`.
  fileprivate func editRows(_ prefix: String, _ times: EditTimes, update: String, read: String) {
    rows(
      prefix + "saved edit (`catalog done`)", times.saves, update, times.updates,
      peak: times.peaks.save, referencePeak: times.peaks.update)
    rows(
      prefix + "edit as typed (`select`, `edit`, `price`, `done`)", times.typed, update,
      times.updates)
    rows(prefix + "one-command `catalog select N`", times.selects, read, times.reads)
  }

  /// Adds a line of medians of whole processes, with their ratio.
  func rows(
    _ what: String, _ ours: [ProcessMeasure], _ reference: String,
    _ theirs: [ProcessMeasure], inSeconds: Bool = false, peak: Int? = nil,
    referencePeak: Int? = nil
  ) {
    let (time, referenceTime) = (
      median(ours.map(\.milliseconds)), median(theirs.map(\.milliseconds))
    )
    let format = { (value: Double) in
      inSeconds ? String(format: "%.2f s", value / 1000) : String(format: "%.2f ms", value)
    }
    row(
      what, format(time), mb(peak ?? ours.map(\.peakKilobytes).max() ?? 0), reference,
      format(referenceTime), mb(referencePeak ?? theirs.map(\.peakKilobytes).max() ?? 0),
      time / referenceTime)
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
    Swift.print("| what | catalog | peak | reference | reference's | peak | ratio | load |")
    Swift.print("|---|---|---|---|---|---|---|---|")
    for line in lines { Swift.print(line) }
  }
}

/// The median of whole processes' times, in milliseconds.
private func milliseconds(_ measures: [ProcessMeasure]) -> String {
  String(format: "%.2f ms", median(measures.map(\.milliseconds)))
}

/// The machine's load average over the last minute (`/proc/loadavg`).
private func loadAverage() -> Double {
  (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
    .flatMap { Double($0.split(separator: " ").first ?? "") } ?? 0
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
