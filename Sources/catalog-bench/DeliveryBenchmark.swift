import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `catalog-bench deliver [--runs N]`: `catalog open LINK` from the shell, as a whole process
/// from exec to exit, delivered to a running REPL that applies it and makes it durable before
/// answering, beside the same link with no REPL running (restore, apply, save, print), in the
/// same run, interleaved.
func deliveryBenchmark() throws {
  let runs = option("--runs", default: 30)
  let catalog = Programs.catalog
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }
  let alone = ["--state-dir", root + "/alone/state", "--data-dir", root + "/alone/data"]
  let shared = ["--state-dir", root + "/shared/state", "--data-dir", root + "/shared/data"]
  _ = try measure(catalog, alone, input: "select 1\n")
  _ = try measure(catalog, shared, input: "select 1\n")

  // The running REPL: standard input a pipe kept open, its output thrown away.
  let repl = Process()
  repl.executableURL = catalog
  repl.arguments = shared
  let input = Pipe()
  repl.standardInput = input
  repl.standardOutput = FileHandle.nullDevice
  repl.standardError = FileHandle.nullDevice
  try repl.run()
  defer {
    try? input.fileHandleForWriting.close()
    repl.waitUntilExit()
  }
  let socket = root + "/shared/state/\(repl.processIdentifier).socket"
  for _ in 0..<500 where !FileManager.default.fileExists(atPath: socket) {
    usleep(10_000)
  }
  guard FileManager.default.fileExists(atPath: socket) else {
    throw CatalogBenchError("the REPL did not open its socket")
  }

  var delivered: [Double] = []
  var local: [Double] = []
  let links = ["catalog://product/Cherries?tab=photo", "catalog://product/Mango?tab=detail"]
  for run in 0..<runs {
    let link = links[run % links.count]
    delivered.append(try measure(catalog, ["open", link] + shared).milliseconds)
    local.append(try measure(catalog, ["open", link] + alone).milliseconds)
  }
  print(
    String(
      format: """
        {"benchmark": "deliver", "runs": %d, "delivered_p50_ms": %.2f, "delivered_p90_ms": %.2f, \
        "no_repl_p50_ms": %.2f, "no_repl_p90_ms": %.2f, "ratio": %.2f}
        """, runs, median(delivered), percentile(delivered, 0.9), median(local),
      percentile(local, 0.9), median(delivered) / median(local)))
}
