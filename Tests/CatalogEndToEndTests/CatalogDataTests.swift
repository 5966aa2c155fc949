import Foundation
import Testing

/// A user's own data at scale: deleted products stay deleted, duplicates are decided as asked,
/// and a deletion at the front of a large catalog leaves every other product as it was.
@Suite struct CatalogDataTests {
  /// Deleted products are not brought back by importing an export made before; the import says
  /// how many it left out, and `--restore-deleted` brings them back.
  @Test(arguments: CatalogEngine.allCases)
  func anOlderExportDoesNotBringBackDeletedProducts(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let backup = sandbox.root + "/backup.json"
    #expect(try sandbox.run(["export", backup]).status == 0)
    let deleted = try sandbox.run(input: "delete cherries\ndelete mango\n")
    #expect(deleted.status == 0, "\(deleted.errors)")
    let again = try sandbox.run(["import", backup])
    #expect(again.status == 0, "\(again.errors)")
    #expect(
      again.output.hasPrefix(
        "Imported 0 new and 0 updated products, 8 unchanged, and left out 2 deleted from the catalog (--restore-deleted brings them back)"
      ), "\(again.output)")
    #expect(try sandbox.run(input: "list\n").output.contains("8 products."))
    let restored = try sandbox.run(["import", "--restore-deleted", backup])
    #expect(
      restored.output.hasPrefix("Imported 2 new and 0 updated products, 8 unchanged in"),
      "\(restored.output)")
    #expect(try sandbox.run(["select", "cherries"]).status == 0)
    // Restored, they are no longer deleted ones.
    #expect(
      try sandbox.run(["import", backup]).output.hasPrefix(
        "Imported 0 new and 0 updated products, 10 unchanged"))
    // What --replace removes counts as deleted too.
    let one = try sandbox.writeFile(
      "one.csv",
      "identifier,name,imageName,year,price\nFA542E3D-4895-44B6-942F-E112101D5160,Cherries,Cherries,2015,10.99\n"
    )
    #expect(try sandbox.run(["import", "--replace", one]).status == 0)
    let after = try sandbox.run(["import", backup])
    #expect(after.output.contains("and left out 9 deleted"), "\(after.output)")
  }

  /// A spreadsheet of names, years and prices, its header as people write it, imports as
  /// products without pictures, which show as such.
  @Test func aSpreadsheetWithoutPicturesImports() throws {
    let sandbox = CatalogSandbox()
    let sheet = try sandbox.writeFile(
      "sheet.csv", "Name,Year,Price\nKiwi Gold,2020,\"$1,299.00\"\n")
    let imported = try sandbox.run(["import", sheet])
    #expect(imported.status == 0, "\(imported.errors)")
    #expect(imported.output.hasPrefix("Imported 1 new"), "\(imported.output)")
    let shown = try sandbox.run(input: "select kiwi\ntab photo\n")
    #expect(shown.status == 0, "\(shown.errors)")
    #expect(shown.output.contains("$1,299.00"), "\(shown.output)")
    #expect(shown.output.contains("no picture"), "\(shown.output)")
  }

  /// A first import after trying the app goes beside the sample, and says so where it
  /// happens, with the way to keep the file's products alone; a replacing import does not.
  @Test func anImportBesideTheSampleSaysSo() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    let sheet = try sandbox.writeFile("mine.csv", "name,year,price\nKiwi Gold,2020,3\n")
    let beside = try sandbox.run(["import", sheet])
    #expect(beside.status == 0, "\(beside.errors)")
    #expect(
      beside.output.contains(
        "They were added beside the sample's 10 products; to keep only the file's, type 'catalog import --replace"
      ), "\(beside.output)")
    let replaced = try sandbox.run(["import", "--replace", sheet])
    #expect(replaced.status == 0, "\(replaced.errors)")
    #expect(!replaced.output.contains("beside the sample"), "\(replaced.output)")
    #expect(try sandbox.run(input: "list\n").output.contains("1 product"))
  }

  /// A catalog emptied by deletions is filled again the fast way, and still leaves out what was
  /// deleted unless asked.
  @Test(arguments: CatalogEngine.allCases)
  func anEmptiedCatalogStillLeavesOutDeletedProducts(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let backup = sandbox.root + "/backup.csv"
    #expect(try sandbox.run(["export", backup]).status == 0)
    let deleted = try sandbox.run(input: String(repeating: "delete 1\n", count: 10))
    #expect(deleted.status == 0, "\(deleted.errors)")
    #expect(try sandbox.run(input: "list\n").output.contains("The catalog is empty"))
    let again = try sandbox.run(["import", backup])
    #expect(
      again.output.hasPrefix(
        "Imported 0 new and 0 updated products, and left out 10 deleted from the catalog"),
      "\(again.output)")
    let restored = try sandbox.run(["import", "--restore-deleted", backup])
    #expect(restored.output.hasPrefix("Imported 10 new and 0 updated"), "\(restored.output)")
    #expect(try sandbox.run(["select", "cherries"]).status == 0)
    #expect(
      try sandbox.run(["import", backup]).output.hasPrefix(
        "Imported 0 new and 0 updated products, 10 unchanged"))
  }

  /// What a record without an identifier does when its name is taken: updates the product
  /// (the default), is added (`allow`), or refuses the import (`refuse`); two such records of
  /// one product's name are refused, not both applied.
  @Test(
    arguments: CatalogEngine.allCases.flatMap { engine in
      [
        (engine, "update", 0, "Imported 1 new and 1 updated products"),
        (engine, "allow", 0, "Imported 2 new and 0 updated products"),
        (
          engine, "refuse", 1,
          "error: 1 record without an identifier names products the catalog has (such as 'Cherries'); import with --duplicates update"
        ),
      ]
    })
  func duplicatesAreDecidedAsAsked(
    _ engine: CatalogEngine, policy: String, status: Int32, message: String
  ) throws {
    let sandbox = try CatalogSandbox(engine)
    _ = try sandbox.run(input: "list\n")
    let sheet = try sandbox.writeFile(
      "sheet.csv", "name,imageName,year,price\nCherries,,2020,1\nQuince,,2021,2\n")
    let result = try sandbox.run(["import", "--duplicates", policy, sheet])
    #expect(result.status == status, "\(result.errors)")
    #expect((result.output + result.errors).hasPrefix(message), "\(result.output)\(result.errors)")
    let count = try sandbox.run(input: "list\n").output
    #expect(
      count.contains(
        ["update": "11 products.", "allow": "12 products.", "refuse": "10 products."][policy]!))
  }

  @Test(arguments: CatalogEngine.allCases)
  func twoRecordsOfOneProductsNameAreRefused(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    _ = try sandbox.run(input: "list\n")
    let sheet = try sandbox.writeFile(
      "sheet.csv", "name,imageName,year,price\nCherries,,2020,1\nCherries,,2021,2\n")
    let result = try sandbox.run(["import", sheet])
    #expect(result.status == 1)
    #expect(
      result.errorLines.first?.contains(
        "2 records without an identifier share a name the catalog has fewer products of (such as 'Cherries')"
      )
        == true, "\(result.errors)")
    #expect(try sandbox.run(["import", "--duplicates", "allow", sheet]).status == 0)
    #expect(try sandbox.run(input: "list\n").output.contains("12 products."))
  }

  /// A sheet of one's own with two products of one name and no identifiers imports both, and
  /// importing it again changes nothing: the records of a name update the products of that
  /// name in order, the first record the first product. A sheet with more or fewer records of
  /// the name than the catalog has products of it is refused, naming one.
  @Test(arguments: CatalogEngine.allCases)
  func aSheetWithRepeatedNamesImportsAgainToTheSameCatalog(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let sheet = try sandbox.writeFile(
      "roses.csv", "name,imageName,year,price\nRose,,2020,1\nTulip,,2020,2\nRose,,2021,3\n")
    let first = try sandbox.run(["import", "--replace", sheet])
    #expect(first.status == 0, "\(first.errors)")
    #expect(first.output.hasPrefix("Imported 3 new"), "\(first.output)")
    let again = try sandbox.run(["import", sheet])
    #expect(again.status == 0, "\(again.errors)")
    #expect(
      again.output.hasPrefix("Imported 0 new and 0 updated products, 3 unchanged"),
      "\(again.output)")
    // The second Rose's price changed in the sheet: the second Rose is updated.
    let changed = try sandbox.writeFile(
      "changed.csv", "name,imageName,year,price\nRose,,2020,1\nTulip,,2020,2\nRose,,2021,4\n")
    let update = try sandbox.run(["import", changed])
    #expect(update.output.hasPrefix("Imported 0 new and 1 updated product, 2 unchanged"))
    let listed = try sandbox.run(input: "list\n").output
    #expect(listed.contains("3 products."), "\(listed)")
    #expect(listed.contains("3  Rose   2021  $4.00"), "\(listed)")
    #expect(listed.contains("1  Rose   2020  $1.00"), "\(listed)")
    let three = try sandbox.writeFile(
      "three.csv", "name,imageName,year,price\nRose,,2020,1\nRose,,2021,3\nRose,,2022,5\n")
    let more = try sandbox.run(["import", three])
    #expect(more.status == 1)
    #expect(
      more.errors.contains("share a name the catalog has fewer products of"), "\(more.errors)")
    let one = try sandbox.writeFile("one.csv", "name,imageName,year,price\nRose,,2020,1\n")
    let fewer = try sandbox.run(["import", one])
    #expect(fewer.status == 1)
    #expect(
      fewer.errors.contains("products the catalog has more of than the file has records"),
      "\(fewer.errors)")
    #expect(try sandbox.run(input: "list\n").output.contains("3 products."))
  }

  /// Products whose text a CSV export once lost or a spreadsheet would run: keywords with
  /// spaces (ASCII or other) at an end, empty, holding `;` or beginning with `[`; names and
  /// pictures beginning with `=`, `+`, `-`, `@` or `'`.
  static let trickyProducts = #"""
    [{"name": "=HYPERLINK(\"http://x\")", "imageName": "", "year": 2020, "price": 1, "keywords": [" padded ", "", "a;b", "plain"]},
     {"name": "+1 Rose", "imageName": "@picture", "year": 2020, "price": 2, "keywords": ["[x]", "y"]},
     {"name": "'= quoted", "imageName": "", "year": 2020, "price": 3, "keywords": ["-minus"]},
     {"name": "Plain", "imageName": "", "year": 2020, "price": 4, "keywords": ["fruit", "Grün"]},
     {"name": "Wide", "imageName": "", "year": 2020, "price": 5, "keywords": ["樱桃", "\u3000wide"]},
     {"name": "Narrow", "imageName": "", "year": 2020, "price": 6, "keywords": ["nb\u00A0", "x"]},
     {"name": "Ogham", "imageName": "", "year": 2020, "price": 7, "keywords": ["\u1680o", "ö"]}]
    """#

  /// A CSV export imported again gives the same catalog, whatever its text; one for
  /// spreadsheets (`--bom`) has no cell a spreadsheet would run as a formula.
  @Test(arguments: CatalogEngine.allCases)
  func aCSVExportImportsBackToTheSameCatalog(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let source = try sandbox.writeFile("tricky.json", Self.trickyProducts)
    #expect(try sandbox.run(["import", "--replace", source]).status == 0)
    let original = try sandbox.run(["export"]).output
    for options in [[], ["--bom"]] {
      let path = sandbox.root + "/export\(options.count).csv"
      let exported = try sandbox.run(["export", path] + options)
      #expect(exported.status == 0, "\(exported.errors)")
      #expect(exported.errors.isEmpty, "\(exported.errors)")
      let text = try String(contentsOfFile: path, encoding: .utf8)
      if !options.isEmpty {
        for row in text.split(separator: "\r\n").dropFirst() {
          for cell in row.split(separator: ",", omittingEmptySubsequences: false) {
            let value = cell.hasPrefix("\"") ? cell.dropFirst() : cell
            #expect(!["=", "+", "-", "@"].contains(value.first.map(String.init) ?? ""), "\(row)")
          }
        }
      }
      let other = try CatalogSandbox(engine)
      let imported = try other.run(["import", "--replace", path])
      #expect(imported.status == 0, "\(imported.errors)")
      #expect(try other.run(["export"]).output == original)
    }
  }

  /// A sheet saved as Excel's "Unicode Text" (UTF-16 little-endian with a byte order mark,
  /// tabs between columns) imports as the same sheet in UTF-8 would.
  @Test func aSpreadsheetSavedAsUnicodeTextImports() throws {
    let sandbox = CatalogSandbox()
    let text =
      "name\timageName\tyear\tprice\tkeywords\r\nGrüne Äpfel 🍏\t\t2020\t$1,299.00\tfruit\r\n"
    var bytes: [UInt8] = [0xFF, 0xFE]
    for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
    let path = sandbox.root + "/sheet.txt"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let result = try sandbox.run(["import", path])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.hasPrefix("Imported 1 new and 0 updated product"), "\(result.output)")
    let shown = try sandbox.run(["select", "grüne"])
    #expect(shown.output.contains("Grüne Äpfel 🍏"), "\(shown.output)")
    #expect(shown.output.contains("$1,299.00"), "\(shown.output)")
  }

  @Test func importOptionsAreCheckedOnTheCommandLine() throws {
    let sandbox = CatalogSandbox()
    let wrong = try sandbox.run(["import", "--duplicates", "maybe", "x.csv"])
    #expect(wrong.status == 64)
    #expect(wrong.errors.contains("'--duplicates' takes update, allow or refuse, not 'maybe'"))
    let misplaced = try sandbox.run(["export", "--restore-deleted"])
    #expect(misplaced.status == 64)
    #expect(misplaced.errors.contains("'--restore-deleted' goes with 'catalog import'"))
  }

  /// Ctrl-C during an import, early and well into reading the records (`ImportStoppingTests`
  /// stops one inside SQLite's statements): it says so in one line, exits 130, and the catalog
  /// is as it was.
  @Test(arguments: [(CatalogEngine.sqlite, 0.4), (.sqlite, 2.5), (.postgres, 2.5)])
  func anImportInterruptedWithCtrlCChangesNothing(
    _ engine: CatalogEngine, after seconds: Double
  ) throws {
    let sandbox = try CatalogSandbox(engine)
    _ = try sandbox.run(input: "list\n")
    let before = try sandbox.run(["export", "--format", "csv"]).output
    let file = try sandbox.writeFile("many.json", CatalogDatabaseTests.productsJSON(300_000))
    // About 14 s in a debug build on two cores: still reading records either time.
    guard let (status, errors) = interrupt(sandbox.start(["import", file]), after: seconds)
    else { return }
    #expect(status == 130, "\(errors)")
    #expect(
      errors.split(separator: "\n").last
        == "error: the import was interrupted; nothing was imported, and the catalog is as it was",
      "\(errors)")
    #expect(try sandbox.run(["export", "--format", "csv"]).output == before)
    #expect(try sandbox.run(input: "list\n").output.contains("10 products."))
  }

  /// SQLite's temporary files during an import (the staging table, the sorts that build indexes)
  /// are in the data directory, not in `/tmp`: seen from `/proc` while the import runs, as the
  /// files it holds open (unlinked at once, as SQLite does).
  @Test func anImportKeepsItsTemporaryFilesInTheDataDirectory() throws {
    // The user's own choice is kept: nothing to check then.
    guard ProcessInfo.processInfo.environment["SQLITE_TMPDIR"] == nil else { return }
    let sandbox = CatalogSandbox()
    let first = try sandbox.writeFile("first.json", CatalogDatabaseTests.productsJSON(1_000))
    #expect(try sandbox.run(["import", first]).status == 0)
    // Into a catalog with products: through the staging table, which spills to a file.
    let more = try sandbox.writeFile(
      "more.json", CatalogDatabaseTests.productsJSON(80_000, start: 2_000))
    let process = sandbox.start(["import", more])
    var temporaryFiles: Set<String> = []
    while process.isRunning {
      let descriptors = "/proc/\(process.processIdentifier)/fd"
      for name in (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? [] {
        if let target = try? FileManager.default.destinationOfSymbolicLink(
          atPath: descriptors + "/" + name), target.contains("etilqs_")
        {
          temporaryFiles.insert(target)
        }
      }
      usleep(5_000)
    }
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(!temporaryFiles.isEmpty)
    #expect(
      temporaryFiles.allSatisfy { $0.hasPrefix(sandbox.dataDirectory + "/etilqs_") },
      "\(temporaryFiles)")
  }

  /// Deleting the first of 200,000 products renumbers nothing on disk, yet every later product
  /// moves up one list number with its data intact, and the search index follows; an export of
  /// them stopped with Ctrl-C leaves no file, and a reindex stopped so leaves the index as it was.
  @Test func deletingTheFirstOfManyProductsKeepsEveryOtherIntact() throws {
    let sandbox = CatalogSandbox()
    let count = 200_000
    let file = try sandbox.writeFile("many.json", CatalogDatabaseTests.productsJSON(count))
    #expect(try sandbox.run(["import", file]).status == 0)
    let before = try sandbox.run(["export", "--format", "csv"]).output
    let deleted = try sandbox.run(
      input: "delete 1\nlist 1\nselect \(count - 1)\nsearch \"Product 000002\"\n")
    #expect(deleted.status == 0, "\(deleted.errors)")
    #expect(deleted.output.contains("1  Product 000002"), "\(deleted.output.prefix(2_000))")
    #expect(deleted.output.contains("Product 200000\n"), "\(deleted.output.suffix(2_000))")
    let after = try sandbox.run(["export", "--format", "csv"]).output
    var lines = before.split(separator: "\r\n", omittingEmptySubsequences: false)
    lines.remove(at: 1)
    #expect(after == lines.joined(separator: "\r\n"))
    #expect(try sandbox.run(input: "select \(count)\n").status == 1)

    // Ctrl-C during an export to a file, once its file is being written (or flushed), leaves
    // no file.
    let path = sandbox.root + "/stopped.csv"
    let exporting = sandbox.start(["export", path])
    let writing = Date()
    while exporting.isRunning, Date().timeIntervalSince(writing) < 30,
      try !FileManager.default.contentsOfDirectory(atPath: sandbox.root).contains(where: {
        $0.hasPrefix(".stopped.csv.")
      })
    {
      usleep(1_000)
    }
    guard let (status, errors) = interrupt(exporting, after: 0) else { return }
    #expect(status == 130, "\(errors)")
    #expect(errors == "error: the export was interrupted; '\(path)' was not written\n")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: sandbox.root).allSatisfy {
        !$0.contains("stopped")
      })

    // Ctrl-C during `catalog reindex` leaves the index file as it was, and no slices.
    let indexPath = sandbox.dataDirectory + "/search.index"
    _ = try sandbox.run(["reindex"])
    let index = try Data(contentsOf: URL(fileURLWithPath: indexPath))
    _ = try sandbox.run(input: "delete 1\n")
    guard let (indexStatus, indexErrors) = interrupt(sandbox.start(["reindex"]), after: 0.5)
    else { return }
    #expect(indexStatus == 130, "\(indexErrors)")
    #expect(
      indexErrors
        == "error: the index build was interrupted; the search index is as it was\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: indexPath)) == index)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: sandbox.dataDirectory).allSatisfy {
        !$0.hasPrefix(".search-slice")
      })
  }

  /// Sends Ctrl-C (SIGINT) to a running command after a while: its exit status and standard
  /// error; nil, and an issue recorded, when it ended first.
  private func interrupt(_ process: Process, after seconds: Double) -> (Int32, String)? {
    Thread.sleep(forTimeInterval: seconds)
    guard process.isRunning else {
      process.waitUntilExit()
      Issue.record("the command ended before Ctrl-C (status \(process.terminationStatus))")
      return nil
    }
    kill(process.processIdentifier, SIGINT)
    let errors = String(
      decoding: (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        ?? Data(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, errors)
  }
}
