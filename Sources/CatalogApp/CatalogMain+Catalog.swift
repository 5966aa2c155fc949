import CatalogCore
import CatalogEngines
import CatalogModel
import CatalogResources
import Foundation
import LineEditing
import StateRestoration
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

extension CatalogMain {
  /// `catalog import FILE`: adds and updates products from a JSON or CSV file, all or nothing,
  /// with a progress bar on a terminal.
  static func importProducts(
    _ path: String, options: ImportOptions = .init(), paths: AppPaths, report: Reporter
  ) throws -> Int32 {
    // SQLite's temporary files (the staging table, the sorting that builds an index) go beside
    // the catalog, not to /tmp, often a small memory file system: set before any connection
    // opens and any other thread runs, unless the user chose a directory.
    setenv("SQLITE_TMPDIR", paths.dataDirectory, 0)
    let store = CatalogStore.bundled(paths)
    let progress = isatty(2) == 1 ? ImportProgress() : nil
    var file = ProductFile(path: path)
    if let progress {
      file.onRead = { bytes, size in progress.read(bytes, of: size) }
    }
    let started = Date()
    // Ctrl-C stops the import between records, or SQLite in the middle of a statement, and
    // the transaction is rolled back: the catalog stays as it was.
    guard
      let result = try interruptible(
        by: .importInterrupted, clearing: progress?.finish, report: report,
        { check in
          try store.importFile(
            file, options: options,
            progress: { stage in
              try check()
              progress?.update(stage)
            })
        })
    else { return ExitStatus.interrupted }
    for warning in result.warnings { report.warning(warning) }
    let summary = result.summary
    // More changes than the search index follows cheaply, or a first import of many products
    // with no index yet: it is built in the background now, so that no later search pays for
    // it unannounced.
    let hasIndex = FileManager.default.fileExists(atPath: store.searchIndexPath)
    let changed = summary.inserted + summary.updated
    if changed > CatalogSearchIndex.rebuildThreshold {
      if let executable = SearchService.thisExecutable {
        SearchService.startRebuild(
          with: executable, dataDirectory: paths.dataDirectory,
          indexPath: store.searchIndexPath)
      }
    }
    let seconds = Date().timeIntervalSince(started)
    TextOutput.standardOutput.line(
      "Imported \(summary.inserted.grouped) new and \(summary.updated.grouped) updated product\(summary.inserted + summary.updated == 1 ? "" : "s")"
        + (summary.unchanged > 0 ? ", \(summary.unchanged.grouped) unchanged" : "")
        + (summary.removed > 0
          ? ", and removed \(summary.removed.grouped) not in the file"
          : "")
        + (summary.skippedDeleted > 0
          ? ", and left out \(summary.skippedDeleted.grouped) deleted from the catalog (--restore-deleted brings \(summary.skippedDeleted == 1 ? "it" : "them") back)"
          : "")
        + " in \(String(format: "%.1f", seconds)) s.")
    if summary.sampleBeside > 0 {
      // Said where it happens: a first import after trying the app mixes into the sample.
      TextOutput.standardOutput.line(
        "They were added beside the sample's \(summary.sampleBeside.grouped) product\(summary.sampleBeside == 1 ? "" : "s"); to keep only the file's, type 'catalog import --replace \(CommandParser.quoted(path, asOneWord: true))'."
      )
    }
    if changed > CatalogSearchIndex.rebuildThreshold && !hasIndex {
      report.note("building the search index in the background")
    }
    return ExitStatus.success
  }

  /// `catalog reindex`: builds the search index file again from the catalog database.
  static func reindex(paths: AppPaths, report: Reporter) throws -> Int32 {
    let store = CatalogStore.bundled(paths)
    // As a launch does: creates the database if there is none, and upgrades an earlier one.
    let loaded = try store.load()
    for warning in loaded.warnings { report.warning(warning) }
    guard let database = loaded.database, loaded.readOnlyReason == nil else {
      throw CatalogCoreError.noCatalogDatabase(path: store.location)
    }
    let started = Date()
    // Seconds at a million products: a progress bar on a terminal, and Ctrl-C stops the build
    // leaving the index as it was.
    let progress = isatty(2) == 1 ? ProgressLine(noun: "products") : nil
    guard
      let index = try interruptible(
        by: .reindexInterrupted, clearing: progress?.finish, report: report,
        { check in
          try CatalogSearchIndex.build(
            store.searchIndexPath, database: database, writing: .always
          ) { indexed, total in
            try check()
            progress?.show(fraction: total > 0 ? Double(indexed) / Double(total) : 1, indexed)
          }
        })
    else { return ExitStatus.interrupted }
    let seconds = Date().timeIntervalSince(started)
    TextOutput.standardOutput.line(
      "Indexed \(index.index.count.grouped) product\(index.index.count == 1 ? "" : "s") in \(String(format: "%.1f", seconds)) s: '\(store.searchIndexPath)'."
    )
    return ExitStatus.success
  }

  /// `catalog export [FILE] [--format csv|json] [--bom]`: writes the catalog as JSON or CSV
  /// (by the file's extension unless a format is given), to standard output by default.
  static func exportProducts(
    _ path: String?, format: ProductExport.Format?, byteOrderMark: Bool, paths: AppPaths,
    report: Reporter
  ) throws -> Int32 {
    let store = CatalogStore.bundled(paths)
    let loaded = try store.loadForReading()
    if let reason = loaded.readOnlyReason {
      throw CatalogCoreError.cannotExport(path: store.location, reason: reason)
    }
    for warning in loaded.warnings { report.warning(warning) }
    let summary: ProductExport.Summary
    if let path, path != "-" {
      // A file takes a while at a million products: a progress bar on a terminal, and Ctrl-C
      // stops it without leaving a file.
      let count = loaded.catalog.count
      let progress = isatty(2) == 1 ? ProgressLine(noun: "products") : nil
      guard
        let written = try interruptible(
          by: .exportInterrupted(path: path), clearing: progress?.finish, report: report,
          { check in
            try ProductExport.write(
              loaded.catalog, toFile: path, format: format, byteOrderMark: byteOrderMark
            ) { written in
              try check()
              progress?.show(fraction: count > 0 ? Double(written) / Double(count) : 1, written)
            }
          })
      else { return ExitStatus.interrupted }
      summary = written
      // A report, not a warning: on standard output, as `cp -v` and `sqlite3` say what they did.
      TextOutput.standardOutput.line("Exported \(summary.count.grouped) products to '\(path)'.")
    } else {
      summary = try ProductExport.write(
        loaded.catalog, to: 1, path: "standard output",
        directory: FileManager.default.currentDirectoryPath, format: format ?? .json,
        byteOrderMark: byteOrderMark)
    }
    for row in loaded.catalog.source.takeSkippedRows() {
      report.warning(row)
    }
    return ExitStatus.success
  }
}

/// Runs a long command with Ctrl-C caught: SIGINT only marks the command interrupted, and the
/// `check` its body calls now and then throws `error` once it is, so that the command stops
/// where it can leave everything as it was.
private func interruptible<Result>(
  by error: CatalogCoreError, _ body: (_ check: () throws -> Void) throws -> Result
) throws -> Result {
  Signals.catchInterrupt()
  defer { Signals.releaseInterrupt() }
  return try body {
    if Signals.pending == SIGINT { throw error }
  }
}

/// Runs a long command with Ctrl-C caught, as the other `interruptible` does, clears its
/// progress line when it ends, and reports Ctrl-C in one line: nil when Ctrl-C stopped it.
private func interruptible<Result>(
  by error: CatalogCoreError, clearing clear: (() -> Void)?, report: Reporter,
  _ body: (_ check: () throws -> Void) throws -> Result
) throws -> Result? {
  defer { clear?() }
  do {
    return try interruptible(by: error, body)
  } catch let caught as CatalogCoreError where caught == error {
    clear?()
    report.error(error.localizedDescription)
    return nil
  }
}

/// A progress line on standard error — a bar, the count so far and the rate, or a note in
/// their place — redrawn at most ten times a second.
private final class ProgressLine: Sendable {
  private struct State {
    var fraction = 0.0
    var count = 0
    var note: String?
    var lastDrawn = 0.0
  }
  private let state = Mutex(State())
  private let started = Date()
  private let noun: String

  /// - Parameter noun: What is counted, plural: `records`, `products`.
  init(noun: String) {
    self.noun = noun
  }

  /// Shows how far the work is, and how many things it did.
  func show(fraction: Double? = nil, _ count: Int? = nil, note: String? = nil, now: Bool = false) {
    state.withLock {
      if let fraction { $0.fraction = min(1, max(0, fraction)) }
      if let count { $0.count = count }
      $0.note = note ?? $0.note
      if now { $0.lastDrawn = -1 }
    }
    draw()
  }

  private func draw() {
    let elapsed = Date().timeIntervalSince(started)
    let line: String? = state.withLock { state in
      guard elapsed - state.lastDrawn >= 0.1 else { return nil }
      state.lastDrawn = elapsed
      let width = 30
      let filled = Int(state.fraction * Double(width))
      let rate = elapsed > 0 ? Int(Double(state.count) / elapsed) : 0
      let bar =
        "\r[" + String(repeating: "#", count: filled)
        + String(repeating: " ", count: width - filled) + "] \(Int(state.fraction * 100))%  "
      return bar + (state.note ?? "\(state.count.grouped) \(noun)  \(rate.grouped)/s")
    }
    if let line { TextOutput.standardError.write(line + "\u{1B}[K") }
  }

  /// Clears the line.
  func finish() {
    TextOutput.standardError.write("\r\u{1B}[K")
  }
}

/// An import's progress: how much of the file is read, the records so far and the rate, then
/// that the records are being saved.
private final class ImportProgress: Sendable {
  private let line = ProgressLine(noun: "records")

  func read(_ bytes: Int, of size: Int) {
    line.show(fraction: size > 0 ? Double(bytes) / Double(size) : 0)
  }

  func update(_ stage: ImportStage) {
    switch stage {
    case .reading(let count):
      line.show(count)
    case .saving(let count):
      line.show(
        fraction: 1, count,
        note: "\(count.grouped) records read; saving them to the catalog…", now: true)
    }
  }

  func finish() {
    line.finish()
  }
}
