import CatalogEngines
import CatalogModel
import Foundation
import SQLite
import Synchronization
import SystemSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `catalog-bench catalog --catalog FILE [--runs N] [--done-runs N]`: the catalog's budgets at
/// the size of FILE (a `synth_catalog.py` output), each beside the same work done with the
/// `sqlite3` shell on the same data in the same run:
///
/// - import: `catalog import FILE` into an empty data directory, as a whole process, with its
///   peak memory; beside `sqlite3` reading the same JSON with `readfile` and `json_each` into
///   the same table and indexes.
/// - launch: `catalog` restoring a scene on product 5 and reaching its prompt (standard input
///   at its end), as a whole process, with its peak memory; beside the Foundation hello world
///   and `sqlite3` answering the same point query.
/// - done: one edit made durable (`CatalogDatabase.apply`, in process), beside the floor: the
///   same `UPDATE` alone, autocommitted with the same pragmas.
/// - parse: reading the file's records without storing them, in process.
func catalogBenchmark() throws {
  let arguments = CommandLine.arguments
  guard let index = arguments.firstIndex(of: "--catalog"), index + 1 < arguments.count else {
    throw CatalogBenchError("catalog needs --catalog FILE (make one with synth_catalog.py)")
  }
  let file = arguments[index + 1]
  let runs = option("--runs", default: 20)
  let doneRuns = option("--done-runs", default: 200)
  let (catalog, hello, sqlite3) = (Programs.catalog, Programs.hello, Programs.sqlite3)
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }

  // Parse alone.
  let clock = ContinuousClock()
  var start = clock.now
  var records = 0
  try ProductFile(path: file).forEachProduct { _ in records += 1 }
  let parseSeconds = milliseconds(clock.now - start) / 1000

  // Import, ours then the shell's.
  let directories = ["--state-dir", root + "/state", "--data-dir", root + "/data"]
  let ours = try measure(catalog, ["import", file] + directories)
  let shellDatabase = root + "/shell.sqlite"
  let shell = try measure(sqlite3, [shellDatabase], input: shellImport(file))

  // Launch to the prompt, on a scene showing product 5.
  _ = try measure(catalog, directories, input: "select 5\n")
  var launchTimes: [Double] = []
  var launchPeak = 0
  var helloTimes: [Double] = []
  var queryTimes: [Double] = []
  for _ in 0..<runs {  // interleaved, so that all see the same machine
    let launch = try measure(catalog, directories)
    launchTimes.append(launch.milliseconds)
    launchPeak = max(launchPeak, launch.peakKilobytes)
    helloTimes.append(try measure(hello, []).milliseconds)
    queryTimes.append(
      try measure(
        sqlite3, [shellDatabase, "SELECT name, year, price_cents FROM products WHERE position = 5"]
      ).milliseconds)
  }

  // One done, durable, beside the bare UPDATE.
  let database = try CatalogDatabase(path: root + "/data/" + CatalogStore.databaseName)
  let floor = try Database(path: root + "/data/" + CatalogStore.databaseName, mode: .readWrite)
  try floor.execute("PRAGMA synchronous = FULL")
  var doneTimes: [Double] = []
  var floorTimes: [Double] = []
  for run in 0..<doneRuns {
    let number = 1 + (run * 7919) % max(1, database.count)
    guard let product = database.product(number: number) else { break }
    var edited = ProductFields(product)
    edited.price = Price(cents: (product.price.cents + 1) % 100_000_000)
    let change = ProductChange(
      identifier: product.identifier, base: ProductFields(product), edited: edited)
    start = clock.now
    try database.apply([.edit(change)])
    doneTimes.append(milliseconds(clock.now - start))
    start = clock.now
    try floor.run(
      "UPDATE products SET price_cents = ? WHERE identifier = ?", .integer(product.price.cents),
      .text(product.identifier.uuidString))
    floorTimes.append(milliseconds(clock.now - start))
  }

  print(
    String(
      format: """
        {"benchmark": "catalog", "products": %d, "parse_s": %.2f, \
        "import_s": %.2f, "import_peak_mb": %.1f, "sqlite3_import_s": %.2f, \
        "sqlite3_import_peak_mb": %.1f, \
        "launch_p50_ms": %.2f, "launch_peak_mb": %.1f, "hello_foundation_p50_ms": %.2f, \
        "launch_ratio": %.2f, "sqlite3_query_p50_ms": %.2f, \
        "done_p50_ms": %.3f, "done_p99_ms": %.3f, "update_floor_p50_ms": %.3f}
        """, records, parseSeconds, ours.milliseconds / 1000,
      Double(ours.peakKilobytes) / 1024, shell.milliseconds / 1000,
      Double(shell.peakKilobytes) / 1024, median(launchTimes), Double(launchPeak) / 1024,
      median(helloTimes), median(launchTimes) / median(helloTimes), median(queryTimes),
      median(doneTimes), percentile(doneTimes, 0.99), median(floorTimes)))
}

/// The `sqlite3` shell script that imports a product JSON file into the catalog's table and
/// indexes, in one transaction, as `catalog import` does.
private func shellImport(_ file: String) -> String {
  """
  PRAGMA journal_mode = WAL;
  PRAGMA synchronous = FULL;
  BEGIN;
  CREATE TABLE products(identifier TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL,
    folded_name TEXT NOT NULL, image_name TEXT NOT NULL, year INTEGER NOT NULL,
    price_cents INTEGER NOT NULL, keywords TEXT NOT NULL, changed INTEGER NOT NULL);
  INSERT INTO products SELECT upper(json_extract(value, '$.identifier')), key + 1,
    json_extract(value, '$.name'), lower(json_extract(value, '$.name')),
    json_extract(value, '$.imageName'), json_extract(value, '$.year'),
    CAST(round(json_extract(value, '$.price') * 100) AS INTEGER),
    json_extract(value, '$.keywords'), 1
    FROM json_each(readfile('\(file.replacingOccurrences(of: "'", with: "''"))'));
  CREATE UNIQUE INDEX products_identifier ON products(identifier);
  CREATE INDEX products_position ON products(position);
  CREATE INDEX products_folded_name ON products(folded_name);
  CREATE INDEX products_year ON products(year, position);
  COMMIT;

  """
}

/// A whole process's wall time, peak memory, and what it wrote to disk.
struct ProcessMeasure {
  var milliseconds: Double
  var peakKilobytes: Int
  /// Bytes the process wrote to storage (`ru_oublock`, 512-byte blocks): what it synced, or
  /// what was written back while it ran; not what stayed in the page cache after it exited.
  var writtenBytes: Int = 0
}

/// The REPL script that leaves three scenes, each on a product with its editor open on a draft
/// price: what the launch the budgets time restores.
let threeScenesWithEditors = """
  select 1
  edit
  price 1.11
  scene new second 2
  edit
  price 2.22
  scene new third 3
  edit
  price 3.33

  """

/// Runs a program to completion, with a script (or nothing) on standard input, and measures it
/// from exec to exit; the peak resident memory comes from `wait4`. The process is started with
/// `posix_spawn`, not `Process`, whose own reaper could collect it (and its usage) first.
func measure(
  _ executable: URL, _ arguments: [String], input: String = "", samplingPeak: Bool = true
) throws -> ProcessMeasure {
  var pipe: [Int32] = [0, 0]
  guard Glibc.pipe(&pipe) == 0 else { throw CatalogBenchError("pipe failed") }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_adddup2(&actions, pipe[0], 0)
  posix_spawn_file_actions_addclose(&actions, pipe[1])
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  // Standard error is kept, to say why a run failed.
  let errors = NSTemporaryDirectory() + "catalog-bench-errors-\(getpid())"
  posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  defer { unlink(errors) }
  let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
  defer { for pointer in argv { free(pointer) } }
  var pid: pid_t = 0
  let clock = ContinuousClock()
  let start = clock.now
  let status = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
  close(pipe[0])
  guard status == 0 else {
    close(pipe[1])
    throw CatalogBenchError("cannot start \(executable.path): \(String(cString: strerror(status)))")
  }
  let bytes = Array(input.utf8)
  bytes.withUnsafeBytes { buffer in
    guard let base = buffer.baseAddress else { return }
    var offset = 0
    while offset < buffer.count {
      let written = write(pipe[1], base + offset, buffer.count - offset)
      if written <= 0 { break }
      offset += written
    }
  }
  close(pipe[1])
  // The peak is sampled from the process's own high-water mark: `wait4`'s `ru_maxrss` counts
  // this benchmark's resident memory too, shared with the child between `posix_spawn`'s vfork
  // and its exec.
  let peak = samplingPeak ? PeakSampler(pid: pid) : nil
  var exitStatus: Int32 = 0
  var usage = rusage()
  while wait4(pid, &exitStatus, 0, &usage) < 0 {
    guard errno == EINTR else { throw CatalogBenchError("wait4 failed") }
  }
  let elapsed = milliseconds(clock.now - start)
  // Not sampled: none (`ru_maxrss` is this benchmark's, see above).
  let peakKilobytes = peak.map { $0.stop() ?? usage.ru_maxrss } ?? 0
  guard exitStatus & 0x7F == 0, (exitStatus >> 8) & 0xFF == 0 else {
    let reason = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
    throw CatalogBenchError(
      "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed (status \(exitStatus)): \(reason)"
    )
  }
  return ProcessMeasure(
    milliseconds: elapsed, peakKilobytes: peakKilobytes, writtenBytes: usage.ru_oublock * 512)
}

/// Reads a running process's peak resident memory (`VmHWM` in `/proc/PID/status`) every 5 ms
/// on a thread of its own, until stopped: the last reading before the process ended. A peak in
/// its last milliseconds is missed; a process too short for one reading has none.
private final class PeakSampler: Sendable {
  private let isStopped = Atomic(false)
  private let readings = Mutex<BackgroundWork<Int?>?>(nil)

  init(pid: pid_t) {
    let work = BackgroundWork { [self] () -> Int? in
      var peak: Int?
      while !isStopped.load(ordering: .acquiring) {
        if let reading = Self.highWaterMark(pid) { peak = max(peak ?? 0, reading) }
        usleep(5_000)
      }
      return peak
    }
    readings.withLock { $0 = work }
  }

  /// Stops the readings (call once the process is reaped): the peak in kilobytes, if read.
  func stop() -> Int? {
    isStopped.store(true, ordering: .releasing)
    return readings.withLock { $0 }?.wait() ?? nil
  }

  private static func highWaterMark(_ pid: pid_t) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return nil }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
  }
}
