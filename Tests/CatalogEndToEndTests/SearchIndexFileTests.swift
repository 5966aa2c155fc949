import Foundation
import SearchIndex
import Testing

/// `search.index` beside the catalog: opened by every search, followed by edits, never trusted
/// when it is bad, built again in the background without leaving no index.
@Suite struct SearchIndexFileEndToEndTests {
  static func indexPath(_ sandbox: CatalogSandbox) -> String {
    sandbox.dataDirectory + "/search.index"
  }

  static func indexBytes(_ sandbox: CatalogSandbox) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: indexPath(sandbox)))
  }

  /// A sandbox whose catalog has been searched once, so that its index file exists.
  static func indexedSandbox() throws -> CatalogSandbox {
    let sandbox = CatalogSandbox()
    // The first launch creates the catalog database; a search from the shell changes nothing
    // before there is one.
    _ = try sandbox.run(input: "list\n")
    let first = try sandbox.run(["search", "cherries", "--json"])
    #expect(first.status == 0, "\(first.errors)")
    #expect(FileManager.default.fileExists(atPath: indexPath(sandbox)))
    return sandbox
  }

  /// A sandbox with `count` products, indexed, then with the first `renamed` renamed by an
  /// import (the index's overlay), and the index's origin before the renames.
  static func renamedSandbox(count: Int, renamed: Int) throws -> (
    CatalogSandbox, SearchIndex.Origin
  ) {
    let sandbox = CatalogSandbox()
    // The sample catalog first: a first import into a new data directory adds no sample.
    _ = try sandbox.run(input: "list\n")
    let file = try sandbox.writeFile("large.json", CatalogDatabaseTests.productsJSON(count))
    #expect(try sandbox.run(["import", file]).status == 0)
    #expect(try sandbox.run(["search", "product"]).status == 0)
    let origin = try #require(try SearchIndex(contentsOf: indexPath(sandbox)).origin)
    // In imports of at most 600, each too small to start a rebuild by itself.
    for start in stride(from: 1, through: renamed, by: 600) {
      let renames = try sandbox.writeFile(
        "renamed-\(start).json",
        CatalogDatabaseTests.productsJSON(min(600, renamed - start + 1), start: start)
          .replacingOccurrences(of: "Product ", with: "Renamed "))
      #expect(try sandbox.run(["import", renames]).status == 0)
    }
    #expect(try SearchIndex(contentsOf: indexPath(sandbox)).origin == origin)
    return (sandbox, origin)
  }

  /// Whether the index file is replaced by one built after `origin`, within ten seconds.
  static func isRebuilt(_ sandbox: CatalogSandbox, after origin: SearchIndex.Origin) -> Bool {
    for _ in 0..<100 {
      if let now = try? SearchIndex(contentsOf: indexPath(sandbox)).origin,
        now.generation > origin.generation
      {
        return true
      }
      Thread.sleep(forTimeInterval: 0.1)
    }
    return false
  }

  @Test func editsInOneProcessAreFoundByASearchInAnotherWithoutARebuild() throws {
    let sandbox = try Self.indexedSandbox()
    let built = try Self.indexBytes(sandbox)
    let editor = sandbox.start(["--scene", "editor"])
    editor.send("select cherries")
    editor.send("edit")
    editor.send("name Morello")
    editor.send("done")
    editor.readOutput(until: "Saved Morello.")
    editor.send("add Quince")
    editor.send("done")
    editor.readOutput(until: "Added Quince.")
    editor.send("delete ginger")
    editor.readOutput(until: "Deleted Ginger.")
    let morello = try sandbox.run(["search", "morello", "--json"])
    #expect(morello.output.contains("\"product\": \"Morello\""), "\(morello.output)")
    #expect(!(try sandbox.run(["search", "cherries"]).output.contains("Cherries")))
    #expect(try sandbox.run(["search", "quince"]).output.contains("Quince"))
    #expect(!(try sandbox.run(["search", "ginger"]).output.contains("Ginger")))
    // Every product after Ginger moved up one place; the results say so.
    let mango = try sandbox.run(["search", "mango", "--json"])
    #expect(mango.output.contains("\"product\": \"Mango\""), "\(mango.output)")
    // A REPL that searched before the edits sees them too.
    let other = try sandbox.run(["--scene", "other"], input: "search quince\nsearch morello\n")
    #expect(other.output.contains("Quince"), "\(other.output)")
    #expect(other.output.contains("Morello"), "\(other.output)")
    editor.finishInput()
    #expect(try Self.indexBytes(sandbox) == built, "the index file was built again")
  }

  /// Each kind of bad file: the search answers from the catalog, and a new file replaces it.
  @Test(arguments: [
    "empty", "truncated", "header byte", "section byte", "older version", "not an index",
    "another catalog",
  ])
  func aBadIndexFileIsBuiltAgainNeverTrusted(_ damage: String) throws {
    let sandbox = try Self.indexedSandbox()
    var bytes = [UInt8](try Self.indexBytes(sandbox))
    switch damage {
    case "empty": bytes = []
    case "truncated": bytes = Array(bytes.prefix(bytes.count / 2))
    case "header byte": bytes[44] ^= 0x01
    case "section byte": bytes[bytes.count - 10] ^= 0x40
    case "older version": bytes[8] = 0
    case "not an index": bytes = Array("SQLite format 3\u{0}".utf8) + bytes.dropFirst(16)
    default:
      // The index of a catalog with one more product, Zucchini.
      let other = CatalogSandbox()
      _ = try other.run(input: "list\n")
      let file = try other.writeFile(
        "more.json",
        "[{\"name\": \"Zucchini\", \"imageName\": \"Mango\", \"year\": 2020, \"price\": 1.5}]")
      #expect(try other.run(["import", file]).status == 0)
      #expect(try other.run(["search", "zucchini"]).output.contains("Zucchini"))
      bytes = [UInt8](try Self.indexBytes(other))
    }
    try Data(bytes).write(to: URL(fileURLWithPath: Self.indexPath(sandbox)))
    let result = try sandbox.run(["search", "cherries", "--json"])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.isEmpty, "\(result.errors)")
    #expect(result.output.contains("\"product\": \"Cherries\""), "\(result.output)")
    #expect(!(try sandbox.run(["search", "zucchini"]).output.contains("Zucchini")))
    // Replaced by a good file of this catalog.
    let index = try SearchIndex(contentsOf: Self.indexPath(sandbox))
    try index.verify()
    #expect(index.count == 10)
  }

  /// The file is a cache: when it cannot be written, the search answers from memory.
  @Test func anIndexThatCannotBeWrittenIsNoError() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    try FileManager.default.createDirectory(
      atPath: Self.indexPath(sandbox) + "/in-the-way", withIntermediateDirectories: true)
    let result = try sandbox.run(["search", "cherries", "--json"])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.isEmpty, "\(result.errors)")
    #expect(result.output.contains("\"product\": \"Cherries\""), "\(result.output)")
    let repl = try sandbox.run(input: "search mango\n")
    #expect(repl.status == 0, "\(repl.errors)")
    #expect(repl.output.contains("Show Mango product"), "\(repl.output)")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: sandbox.dataDirectory).filter {
        $0.hasSuffix(".tmp")
      }.isEmpty)
  }

  @Test func aSearchOnATerminalNotesABuildOfALargeCatalog() throws {
    let sandbox = CatalogSandbox()
    // The sample catalog first: a first import into a new data directory adds no sample.
    _ = try sandbox.run(input: "list\n")
    let file = try sandbox.writeFile("large.json", CatalogDatabaseTests.productsJSON(12_000))
    #expect(try sandbox.run(["import", file]).status == 0)
    // The import built the index in the background; without it, a search builds one.
    let index = sandbox.dataDirectory + "/search.index"
    let deadline = Date().addingTimeInterval(30)
    while !FileManager.default.fileExists(atPath: index) && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.05)
    }
    while CatalogSearchIndexLock.isHeld(index + ".lock") && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.05)
    }
    unlink(index)
    // `script` gives the search a terminal; the note is for people, not for scripts.
    let text = try sandbox.runOnTerminal(["search", "product"]).output
    #expect(text.contains("note: building the search index for 12,010 products…"), "\(text)")
    let quiet = try sandbox.run(["search", "product"])
    #expect(quiet.errors.isEmpty, "\(quiet.errors)")
  }

  /// An import larger than the threshold starts the rebuild itself.
  @Test func aLargeImportBuildsTheIndexAgainInTheBackground() throws {
    let (sandbox, origin) = try Self.renamedSandbox(count: 3_000, renamed: 0)
    let renames = try sandbox.writeFile(
      "renamed.json",
      CatalogDatabaseTests.productsJSON(1_100).replacingOccurrences(
        of: "Product ", with: "Renamed "))
    #expect(try sandbox.run(["import", renames]).status == 0)
    #expect(Self.isRebuilt(sandbox, after: origin), "the import did not start a rebuild")
  }

  @Test func theREPLBuildsTheIndexAgainInTheBackgroundPastTheThreshold() throws {
    let (sandbox, origin) = try Self.renamedSandbox(count: 5_000, renamed: 1_200)
    let repl = sandbox.start()
    repl.send("search renamed 001199")
    repl.readOutput(until: "Renamed 001199")
    #expect(Self.isRebuilt(sandbox, after: origin), "the REPL did not build the index again")
    // It searches the new file from then on, with the same answers.
    repl.send("search renamed 000007")
    repl.readOutput(until: "Renamed 000007")
    repl.finishInput()
    #expect(repl.terminationStatus == 0)
    let index = try SearchIndex(contentsOf: Self.indexPath(sandbox))
    try index.verify()
    #expect(index.count == 5_010)
  }

  /// Past the threshold, the REPL builds the file again in the background; `kill -9` in the
  /// middle leaves the old file, which still answers with the changes laid over it.
  @Test func killingABackgroundRebuildLeavesAWorkingSearch() throws {
    // 1,500 products renamed: more than the overlay keeps before a rebuild.
    let (sandbox, origin) = try Self.renamedSandbox(count: 60_000, renamed: 1_500)
    let repl = sandbox.start()
    repl.send("search renamed 001499")
    repl.readOutput(until: "Renamed 001499")
    repl.killHard()
    let after = try sandbox.run(["search", "renamed", "001499", "--json"])
    #expect(after.status == 0, "\(after.errors)")
    #expect(after.output.contains("Renamed 001499"), "\(after.output)")
    #expect(!(try sandbox.run(["search", "product", "001499"]).output.contains("Product 001499")))
    // The old file, or a complete new one: never none, never a torn one.
    try SearchIndex(contentsOf: Self.indexPath(sandbox)).verify()
    // The search from the shell started `catalog reindex` in the background, which replaces
    // the file.
    #expect(Self.isRebuilt(sandbox, after: origin), "no background rebuild replaced the file")
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.dataDirectory)
      .filter { $0.hasSuffix(".tmp") }
    #expect(leftovers.count <= 1, "\(leftovers)")
  }

  /// The REPL's background rebuild is the shell's: a `catalog reindex` process of its own,
  /// which finishes the file after the REPL that started it has quit, and which a REPL still
  /// running reads once it has ended.
  @Test func theREPLsBackgroundRebuildOutlivesItAndIsReadWhenDone() throws {
    let (sandbox, origin) = try Self.renamedSandbox(count: 60_000, renamed: 1_500)
    let quitting = sandbox.start()
    quitting.send("search renamed 001499")
    quitting.readOutput(until: "Renamed 001499")
    quitting.finishInput()
    #expect(quitting.terminationStatus == 0)
    #expect(Self.isRebuilt(sandbox, after: origin), "the rebuild ended with the REPL")

    let rebuilt = try #require(try SearchIndex(contentsOf: Self.indexPath(sandbox)).origin)
    let repl = sandbox.start()
    repl.send("search renamed 000001")
    repl.readOutput(until: "Renamed 000001")
    repl.finishInput()
    #expect(try SearchIndex(contentsOf: Self.indexPath(sandbox)).origin == rebuilt)
  }

  /// A first import of many products into a new data directory builds the index in the
  /// background at once: no later search pays for it unannounced.
  @Test func aFirstLargeImportBuildsTheIndexInTheBackground() throws {
    let sandbox = CatalogSandbox()
    let file = sandbox.root + "/many.json"
    try Data(CatalogDatabaseTests.productsJSON(3_000).utf8).write(
      to: URL(fileURLWithPath: file))
    #expect(try sandbox.run(["import", file]).status == 0)
    let index = sandbox.dataDirectory + "/search.index"
    let deadline = Date().addingTimeInterval(30)
    while !FileManager.default.fileExists(atPath: index) && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.05)
    }
    #expect(FileManager.default.fileExists(atPath: index), "no index was built")
  }
}

/// Whether a process holds the search index's build lock (`flock`), as `catalog reindex` does
/// while it writes the file.
enum CatalogSearchIndexLock {
  static func isHeld(_ path: String) -> Bool {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return true }
    flock(descriptor, LOCK_UN)
    return false
  }
}
