import CatalogEngines
import CatalogModel
import Foundation

/// `catalog-bench data --catalog FILE [--runs N]`: every data command of issue 21 at the size
/// of FILE (a `synth_catalog.py` output), each as a whole process beside the `sqlite3` shell
/// doing the same work on the same rows in the same run:
///
/// - import: `catalog import ROWS.csv` into an empty data directory, beside `sqlite3` reading
///   the same CSV with `.import` and building the same table and indexes in one transaction;
/// - re-import: `catalog import ROWS.csv` again (nothing changed), against the fresh import;
/// - export: `catalog export` (JSON and CSV, to standard output), beside `sqlite3 -json` and
///   `sqlite3 -csv` selecting the same columns in list order;
/// - list: `catalog list --all`, beside `sqlite3 -csv`;
/// - delete: `catalog delete N` of a product at the front, the middle and the end, beside
///   `catalog list 1` (a one-command process that changes nothing).
///
/// Standard output goes to `/dev/null`; medians of `--runs` (default 3) for the reads, of 15
/// deletions each. Beside the times: the import's and the export's peak memory, and what the
/// import wrote against the size of the database it made.
func dataCommandsBenchmark() throws {
  guard let source = stringOption("--catalog") else {
    throw CatalogBenchError("data needs --catalog FILE (make one with synth_catalog.py)")
  }
  let runs = option("--runs", default: 3)
  let (catalog, sqlite3) = (Programs.catalog, Programs.sqlite3)
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }

  // The rows as CSV, the format the shell's `.import` reads.
  let rows = root + "/rows.csv"
  let seed = ["--state-dir", root + "/seed-state", "--data-dir", root + "/seed-data"]
  _ = try measure(catalog, ["import", source] + seed)
  _ = try measure(catalog, ["export", rows] + seed)
  waitForBackgroundWork(dataDirectory: seed[3])

  var importTimes: [Double] = []
  var importPeaks: [Int] = []
  var importWrites: [Int] = []
  var reimportTimes: [Double] = []
  var shellImportTimes: [Double] = []
  var directories: [String] = []
  var shellDatabase = ""
  for run in 0..<runs {
    directories = ["--state-dir", root + "/state\(run)", "--data-dir", root + "/data\(run)"]
    // An import of many products starts the search index's rebuild in the background: each
    // measurement waits for it, so that none runs beside another's work.
    let imported = try measure(catalog, ["import", rows] + directories)
    importTimes.append(imported.milliseconds)
    importPeaks.append(imported.peakKilobytes)
    importWrites.append(imported.writtenBytes)
    waitForBackgroundWork(dataDirectory: directories[3])
    reimportTimes.append(try measure(catalog, ["import", rows] + directories).milliseconds)
    waitForBackgroundWork(dataDirectory: directories[3])
    shellDatabase = root + "/shell\(run).sqlite"
    shellImportTimes.append(
      try measure(sqlite3, [shellDatabase], input: shellCSVImport(rows)).milliseconds)
    if run + 1 < runs {
      try? FileManager.default.removeItem(atPath: root + "/data\(run)")
      try? FileManager.default.removeItem(atPath: shellDatabase)
    }
  }

  let columns =
    "SELECT identifier, name, image_name, year, price_cents, keywords FROM products ORDER BY position"
  var jsonTimes: [Double] = []
  var csvTimes: [Double] = []
  var listTimes: [Double] = []
  var shellJSONTimes: [Double] = []
  var shellCSVTimes: [Double] = []
  var exportPeaks: [Int] = []
  for _ in 0..<runs {  // interleaved, so that all see the same machine
    let exported = try measure(catalog, ["export"] + directories)
    jsonTimes.append(exported.milliseconds)
    exportPeaks.append(exported.peakKilobytes)
    shellJSONTimes.append(try measure(sqlite3, ["-json", shellDatabase, columns]).milliseconds)
    csvTimes.append(
      try measure(catalog, ["export", "--format", "csv"] + directories).milliseconds)
    shellCSVTimes.append(try measure(sqlite3, ["-csv", shellDatabase, columns]).milliseconds)
    listTimes.append(try measure(catalog, directories + ["list", "--all"]).milliseconds)
  }

  var deleteTimes: [String: [Double]] = [:]
  var floorTimes: [Double] = []
  for _ in 0..<5 {
    for place in ["front", "middle", "end"] {
      let count = try CatalogDatabase(
        path: directories[3] + "/" + CatalogStore.databaseName, readOnly: true
      ).count
      let number = place == "front" ? 1 : place == "middle" ? count / 2 : count
      deleteTimes[place, default: []].append(
        try measure(catalog, directories + ["delete", String(number)]).milliseconds)
      floorTimes.append(try measure(catalog, directories + ["list", "1"]).milliseconds)
    }
  }

  let databasePath = directories[3] + "/" + CatalogStore.databaseName
  let products = try CatalogDatabase(path: databasePath, readOnly: true).count
  let databaseBytes =
    (try? FileManager.default.attributesOfItem(atPath: databasePath)[.size] as? Int) ?? 0
  print(
    String(
      format: """
        {"benchmark": "data", "products": %d, "runs": %d, \
        "import_s": %.2f, "sqlite3_import_s": %.2f, "import_ratio": %.2f, \
        "reimport_s": %.2f, "reimport_ratio": %.2f, \
        "export_json_s": %.2f, "sqlite3_json_s": %.2f, "export_json_ratio": %.2f, \
        "export_csv_s": %.2f, "sqlite3_csv_s": %.2f, "export_csv_ratio": %.2f, \
        "list_all_s": %.2f, "list_all_ratio": %.2f, \
        "delete_front_ms": %.1f, "delete_middle_ms": %.1f, "delete_end_ms": %.1f, \
        "one_command_floor_ms": %.1f, \
        "import_peak_mb": %.0f, "import_written_mb": %.0f, "database_mb": %.0f, \
        "export_peak_mb": %.0f}
        """, products, runs,
      median(importTimes) / 1000, median(shellImportTimes) / 1000,
      median(importTimes) / median(shellImportTimes),
      median(reimportTimes) / 1000, median(reimportTimes) / median(importTimes),
      median(jsonTimes) / 1000, median(shellJSONTimes) / 1000,
      median(jsonTimes) / median(shellJSONTimes),
      median(csvTimes) / 1000, median(shellCSVTimes) / 1000,
      median(csvTimes) / median(shellCSVTimes),
      median(listTimes) / 1000, median(listTimes) / median(shellCSVTimes),
      median(deleteTimes["front"] ?? []), median(deleteTimes["middle"] ?? []),
      median(deleteTimes["end"] ?? []), median(floorTimes),
      Double(importPeaks.max() ?? 0) / 1024, median(importWrites.map(Double.init)) / 1e6,
      Double(databaseBytes) / 1e6, Double(exportPeaks.max() ?? 0) / 1024))
}

/// Waits until no `catalog` process works on a data directory in the background (the search
/// index's rebuild that a large import starts), looking at every process's command line.
func waitForBackgroundWork(dataDirectory: String) {
  while true {
    let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    let busy = processes.contains { process in
      guard process.allSatisfy(\.isNumber),
        let line = FileManager.default.contents(atPath: "/proc/\(process)/cmdline")
      else { return false }
      let arguments = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      return arguments.contains(dataDirectory) && arguments.last == "reindex"
    }
    guard busy else { return }
    usleep(100_000)
  }
}

/// The `sqlite3` shell script that imports the CSV export into the catalog's table and
/// indexes, durably and in one transaction, as `catalog import` does: `.import` into a
/// staging table, then the same columns (cents, folded names, keywords joined by the unit
/// separator) and the same five indexes.
func shellCSVImport(_ file: String) -> String {
  """
  PRAGMA journal_mode = WAL;
  PRAGMA synchronous = FULL;
  BEGIN;
  CREATE TABLE staging(identifier TEXT, name TEXT, imageName TEXT, year INTEGER, price TEXT,
    keywords TEXT);
  .import --csv --skip 1 '\(file.replacingOccurrences(of: "'", with: "''"))' staging
  CREATE TABLE products(identifier TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL,
    folded_name TEXT NOT NULL, image_name TEXT NOT NULL, year INTEGER NOT NULL,
    price_cents INTEGER NOT NULL, keywords TEXT NOT NULL, changed INTEGER NOT NULL,
    image_directory TEXT);
  INSERT INTO products SELECT upper(identifier), rowid, trim(name), lower(trim(name)), imageName,
    year, CAST(round(price * 100) AS INTEGER), replace(keywords, ';', char(31)), 1, NULL
    FROM staging ORDER BY rowid;
  DROP TABLE staging;
  CREATE UNIQUE INDEX products_identifier ON products(identifier);
  CREATE UNIQUE INDEX products_position ON products(position);
  CREATE INDEX products_folded_name ON products(folded_name);
  CREATE INDEX products_year ON products(year, position);
  CREATE INDEX products_changed ON products(changed);
  COMMIT;

  """
}
