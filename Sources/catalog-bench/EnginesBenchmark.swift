import CatalogModel
import Foundation
import PostgreSQL

/// `catalog-bench engines --catalog-url URL (--products N | --catalog FILE) [--runs N]`: the
/// same commands on SQLite and on PostgreSQL, side by side in one run, each as a whole `catalog`
/// process (median of `--runs`, 9): a first import into an empty catalog, `select N` of a
/// product in the middle, one saved edit (`done`), and a search from the shell over an index
/// already built. The PostgreSQL catalog goes into a schema of its own (`bench_PID`), dropped
/// at the end; URL names a database on a server the benchmark may write to.
func enginesBenchmark() throws {
  guard let url = stringOption("--catalog-url") else {
    throw CatalogBenchError("engines needs --catalog-url URL (a database it may write to)")
  }
  let runs = option("--runs", default: 9)
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }
  let source = try benchmarkCatalog(for: "engines", in: root)
  let schema = "bench_\(getpid())"
  let server = try PostgresConnection(PostgresAddress(url), applicationName: "catalog-bench")
  defer { _ = try? server.run("DROP SCHEMA IF EXISTS \(schema) CASCADE") }

  struct Engine {
    var name: String
    var environment: [String: String?]
    var import_ = 0.0, select = [Double](), done = [Double](), search = [Double]()
  }
  var engines = [
    Engine(name: "SQLite", environment: ["CATALOG_URL": nil]),
    Engine(name: "PostgreSQL", environment: ["CATALOG_URL": url, "CATALOG_SCHEMA": schema]),
  ]
  func use(_ engine: Engine) {
    for (name, value) in engine.environment {
      if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
  }
  func directories(_ index: Int) -> [String] {
    ["--state-dir", root + "/state-\(index)", "--data-dir", root + "/data-\(index)"]
  }
  var products = 0
  for index in engines.indices {
    use(engines[index])
    FileHandle.standardError.write(Data("catalog-bench engines: \(engines[index].name)…\n".utf8))
    engines[index].import_ = try measure(
      Programs.catalog, ["import", source] + directories(index)
    ).milliseconds
    waitForBackgroundWork(dataDirectory: root + "/data-\(index)")
    _ = try measure(Programs.catalog, ["reindex"] + directories(index))
    products = max(products, option("--products", default: 0))
  }
  let middle = String(max(1, products / 2))
  for run in 0..<runs {  // interleaved, so that both see the same machine
    for index in engines.indices {
      use(engines[index])
      let editing = directories(index) + ["--scene", "edits"]
      engines[index].select.append(
        try measure(Programs.catalog, directories(index) + ["select", middle]).milliseconds)
      _ = try measure(Programs.catalog, editing + ["select", middle])
      _ = try measure(Programs.catalog, editing + ["edit"])
      _ = try measure(Programs.catalog, editing + ["price", "\(10 + run).50"])
      engines[index].done.append(try measure(Programs.catalog, editing + ["done"]).milliseconds)
      engines[index].search.append(
        try measure(Programs.catalog, directories(index) + ["search", "golden mango"])
          .milliseconds)
    }
  }
  print("\(products > 0 ? products.formatted() + " products" : source); medians of \(runs)\n")
  print("| what | SQLite | PostgreSQL | ratio |")
  print("|---|---|---|---|")
  let (sqlite, postgres) = (engines[0], engines[1])
  print(
    String(
      format: "| import (first, into an empty catalog) | %.2f s | %.2f s | %.2f× |",
      sqlite.import_ / 1000, postgres.import_ / 1000, postgres.import_ / sqlite.import_))
  for (what, ours, theirs) in [
    ("`select N` (a product in the middle)", sqlite.select, postgres.select),
    ("one saved edit (`done`)", sqlite.done, postgres.done),
    ("a search from the shell", sqlite.search, postgres.search),
  ] {
    print(
      String(
        format: "| %@ | %.1f ms | %.1f ms | %.2f× |", what, median(ours), median(theirs),
        median(theirs) / median(ours)))
  }
}
