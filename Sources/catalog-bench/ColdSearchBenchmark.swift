import ActivityIndex
import CatalogCore
import CatalogEngines
import CatalogModel
import Foundation
import StateRestoration
import SystemSupport

/// `catalog-bench cold-search --catalog FILE [--queries FILE] [--runs N]`: a search from the
/// shell, as a whole process from exec to exit, at the size of FILE (a `synth_catalog.py`
/// output), beside the same query answered by the `sqlite3` shell from an FTS5 table of the
/// same products, and beside a Foundation hello world, all in the same run:
///
/// - `catalog search QUERY --json --limit 10`, for every query of the standard set, each class
///   the median of its queries' runs (interleaved with the baselines, so that all see the same
///   machine);
/// - `sqlite3 FTS.db "SELECT rowid FROM p WHERE p MATCH … ORDER BY rank LIMIT 10"`, the table
///   made as `fts5_baseline.py` makes it (unicode61, diacritics removed, prefix indexes on 2
///   and 3 characters) from the catalog database, the last term a prefix;
/// - the index file: its size per product, and `catalog reindex` (building it) as a process;
/// - with `--history N`, the first search, which builds the history's index.
func coldSearchBenchmark() throws {
  guard let file = stringOption("--catalog") else {
    throw CatalogBenchError("cold-search needs --catalog FILE (make one with synth_catalog.py)")
  }
  let runs = option("--runs", default: 15)
  let viewed = option("--history", default: 0)
  let (catalog, hello, sqlite3) = (Programs.catalog, Programs.hello, Programs.sqlite3)
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }
  let directories = ["--state-dir", root + "/state", "--data-dir", root + "/data"]

  _ = try measure(catalog, ["import", file] + directories)
  let reindex = try measure(catalog, ["reindex"] + directories)
  let indexPath = root + "/data/search.index"
  let indexBytes =
    (try FileManager.default.attributesOfItem(atPath: indexPath)[.size] as? Int) ?? 0
  let fts = root + "/fts.sqlite"
  let ftsBuild = try measure(
    sqlite3, [fts], input: fts5BuildScript(catalogDatabase: root + "/data/catalog.sqlite"))
  let database = try CatalogDatabase(path: root + "/data/catalog.sqlite", readOnly: true)
  let products = database.count
  try fillHistory(viewed, of: database, in: root + "/state")
  // The first search that reads the history builds its index (`activities.searchindex`).
  let firstQuery = try standardQueries().first?.queries.first ?? "a"
  let firstSearch = try measure(
    catalog, ["search", firstQuery, "--json", "--limit", "10"] + directories)

  var report: [String] = []
  var helloTimes: [Double] = []
  for (name, queries) in try standardQueries() {
    var ours: [Double] = []
    var theirs: [Double] = []
    for query in queries {
      let terms = query.split(separator: " ").map {
        "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\""
      }
      let match = (terms.joined(separator: " ") + "*").replacingOccurrences(of: "'", with: "''")
      let sql = "SELECT rowid FROM p WHERE p MATCH '\(match)' ORDER BY rank LIMIT 10"
      let search = ["search", query, "--json", "--limit", "10"] + directories
      _ = try measure(catalog, search)  // the page cache, as for any search after the first
      _ = try measure(sqlite3, [fts, sql])
      for _ in 0..<runs {
        ours.append(try measure(catalog, search).milliseconds)
        theirs.append(try measure(sqlite3, [fts, sql]).milliseconds)
        helloTimes.append(try measure(hello, []).milliseconds)
      }
    }
    report.append(
      String(
        format: "\"%@\": {\"catalog_p50_ms\": %.2f, \"sqlite3_fts5_p50_ms\": %.2f}", name,
        median(ours), median(theirs)))
  }
  print(
    String(
      format: """
        {"benchmark": "cold-search", "products": %d, "runs": %d, "reindex_s": %.2f, \
        "index_bytes": %d, "index_bytes_per_product": %.1f, "sqlite3_fts5_build_s": %.2f, \
        "history": %d, "first_search_s": %.2f, "hello_foundation_p50_ms": %.2f, \
        "classes": {%@}}
        """, products, runs, reindex.milliseconds / 1000, indexBytes,
      Double(indexBytes) / Double(max(products, 1)), ftsBuild.milliseconds / 1000, viewed,
      firstSearch.milliseconds / 1000,
      median(helloTimes), report.joined(separator: ", ")))
}

/// Saves the *Show NAME product* activities of `count` products spread over the catalog, as if
/// each had been viewed once, the later in the list the more recently: what a search ranks by.
func fillHistory(_ count: Int, of database: CatalogDatabase, in stateDirectory: String) throws {
  guard count > 0 else { return }
  let history = ActivityHistory(directory: try StateDirectory(creating: stateDirectory))
  let step = max(1, database.count / count)
  var activities: [UserActivityRecord] = []
  for index in 0..<min(count, database.count) {
    guard let product = database.product(number: 1 + index * step) else { continue }
    var activity = ProductActivity.show(product)
    activity.lastActiveDate = Date(timeIntervalSinceNow: Double(index - count))
    activities.append(activity)
  }
  try fill(history, with: activities)
}

/// The standard query set, `Tests/Fixtures/bench/queries.txt` (or `--queries FILE`), by class
/// in the file's order.
func standardQueries() throws -> [(name: String, queries: [String])] {
  let path =
    stringOption("--queries")
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Tests/Fixtures/bench/queries.txt").standardized.path
  guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
    throw CatalogBenchError("cannot read '\(path)'")
  }
  var classes: [(name: String, queries: [String])] = []
  for line in text.split(separator: "\n") where !line.hasPrefix("#") {
    let parts = line.split(separator: "\t", maxSplits: 1)
    guard parts.count == 2 else { continue }
    let name = String(parts[0])
    if let position = classes.firstIndex(where: { $0.name == name }) {
      classes[position].queries.append(String(parts[1]))
    } else {
      classes.append((name, [String(parts[1])]))
    }
  }
  return classes
}

/// The value after an option on the command line.
func stringOption(_ name: String) -> String? {
  let arguments = CommandLine.arguments
  return arguments.firstIndex(of: name).flatMap {
    $0 + 1 < arguments.count ? arguments[$0 + 1] : nil
  }
}
