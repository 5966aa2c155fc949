import CatalogModel
import Foundation
import SearchIndex

/// `catalog-bench search --catalog FILE [--queries FILE] [--repeat N] [--limit K] [--builds N]`:
/// builds the index from a catalog's decoded products (the median of N builds) and answers the
/// standard query set, printing the same JSON shape as `fts5_baseline.py`, plus the index's
/// memory.
func searchBenchmark() throws {
  let arguments = CommandLine.arguments
  func value(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
  }
  guard let catalogPath = value("--catalog") else {
    throw CatalogBenchError("search needs --catalog FILE (make one with synth_catalog.py)")
  }
  let queriesPath =
    value("--queries")
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../shared/bench/queries.txt").standardized.path
  let repeats = option("--repeat", default: 50)
  let limit = option("--limit", default: 20)

  guard let data = FileManager.default.contents(atPath: catalogPath) else {
    throw CatalogBenchError("cannot read '\(catalogPath)'")
  }
  let products = try CatalogFile.parse(data, path: catalogPath).products
  let documents = products.map { SearchDocument(title: $0.name, keywords: $0.keywords) }
  let residentBefore = residentBytes()
  let clock = ContinuousClock()
  var start = clock.now
  let index = SearchIndex(documents)
  var buildTimes = [milliseconds(clock.now - start) / 1000]
  let residentAfter = residentBytes()
  // The machine is shared: the build time is the median of a few builds.
  for _ in 1..<option("--builds", default: 3) {
    start = clock.now
    withExtendedLifetime(SearchIndex(documents)) {}
    buildTimes.append(milliseconds(clock.now - start) / 1000)
  }
  let buildSeconds = median(buildTimes)

  guard let queryText = try? String(contentsOfFile: queriesPath, encoding: .utf8) else {
    throw CatalogBenchError("cannot read '\(queriesPath)'")
  }
  var classes: [(name: String, queries: [String])] = []
  for line in queryText.split(separator: "\n") where !line.hasPrefix("#") {
    let parts = line.split(separator: "\t", maxSplits: 1)
    guard parts.count == 2 else { continue }
    let name = String(parts[0])
    if let position = classes.firstIndex(where: { $0.name == name }) {
      classes[position].queries.append(String(parts[1]))
    } else {
      classes.append((name, [String(parts[1])]))
    }
  }

  var report: [String] = []
  for (name, queries) in classes {
    var samples: [Double] = []
    var hits = 0
    for text in queries {
      hits += (try? index.search(SearchQuery(text), limit: limit).count) ?? 0
      for _ in 0..<repeats {
        let started = clock.now
        let results = (try? index.search(SearchQuery(text), limit: limit)) ?? []
        samples.append(milliseconds(clock.now - started) * 1000)
        withExtendedLifetime(results) {}
      }
    }
    report.append(
      String(
        format: "\"%@\": {\"p50_us\": %.1f, \"p99_us\": %.1f, \"hits\": %d}", name,
        median(samples), percentile(samples, 0.99), hits))
  }
  let footprint = index.memoryFootprint
  print(
    String(
      format: """
        {"engine": "catalog-index", "products": %d, "terms": %d, "build_s": %.3f, "build_runs": %d, \
        "index_bytes": %d, "bytes_per_product": %.1f, "resident_growth_bytes": %d, "classes": {%@}}
        """, products.count, index.termCount, buildSeconds, buildTimes.count, footprint,
      Double(footprint) / Double(max(products.count, 1)), residentAfter - residentBefore,
      report.joined(separator: ", ")))
}

/// The process's resident memory, from `/proc/self/statm`.
func residentBytes() -> Int {
  guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
    return 0
  }
  let fields = text.split(separator: " ")
  return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}
