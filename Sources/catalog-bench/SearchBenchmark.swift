import CatalogEngines
import CatalogModel
import Foundation
import SearchIndex

/// `catalog-bench search --catalog FILE [--queries FILE] [--repeat N] [--limit K] [--builds N]
/// [--overlay N]`: builds the index from a catalog's decoded products (the median of N builds),
/// changes N documents after the build if asked, and answers the standard query set, printing
/// the same JSON shape as `fts5_baseline.py`, plus the index's memory. With `--index FILE`
/// instead of `--catalog`, it maps an index file and answers the queries from it.
func searchBenchmark() throws {
  let repeats = option("--repeat", default: 50)
  let limit = option("--limit", default: 20)
  // `--index FILE`: an index file `catalog reindex` wrote, mapped as the REPL maps it: a
  // catalog of ten million products need not be decoded to be searched.
  if let indexPath = stringOption("--index") {
    let index = try SearchIndex(contentsOf: indexPath)
    try answerStandardQueries(
      index, products: index.count, buildSeconds: 0, buildRuns: 0, residentGrowth: 0,
      repeats: repeats, limit: limit)
    return
  }
  guard let catalogPath = stringOption("--catalog") else {
    throw CatalogBenchError(
      "search needs --catalog FILE (make one with synth_catalog.py) or --index FILE")
  }

  guard let data = FileManager.default.contents(atPath: catalogPath) else {
    throw CatalogBenchError("cannot read '\(catalogPath)'")
  }
  let products = try ProductFile.products(in: data, name: catalogPath)
  let documents = products.map { SearchDocument(title: $0.name, keywords: $0.keywords) }
  let residentBefore = residentBytes()
  let clock = ContinuousClock()
  var start = clock.now
  var index = SearchIndex(documents)
  var buildTimes = [milliseconds(clock.now - start) / 1000]
  // `--overlay N`: N documents changed since the build, searched by their text.
  for step in 0..<min(option("--overlay", default: 0), documents.count) {
    let number = (step * 7919) % documents.count
    index.update(documents[(number + 1) % documents.count], at: number)
  }
  let residentAfter = residentBytes()
  // The machine is shared: the build time is the median of a few builds.
  for _ in 1..<option("--builds", default: 3) {
    start = clock.now
    withExtendedLifetime(SearchIndex(documents)) {}
    buildTimes.append(milliseconds(clock.now - start) / 1000)
  }
  let buildSeconds = median(buildTimes)

  try answerStandardQueries(
    index, products: products.count, buildSeconds: buildSeconds, buildRuns: buildTimes.count,
    residentGrowth: residentAfter - residentBefore, repeats: repeats, limit: limit)
}

/// Answers the standard query set `repeats` times each and prints the JSON report: medians and
/// 99th percentiles per class, in microseconds.
private func answerStandardQueries(
  _ index: SearchIndex, products: Int, buildSeconds: Double, buildRuns: Int,
  residentGrowth: Int, repeats: Int, limit: Int
) throws {
  let clock = ContinuousClock()
  let classes = try standardQueries()
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
        """, products, index.termCount, buildSeconds, buildRuns, footprint,
      Double(footprint) / Double(max(products, 1)), residentGrowth,
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
