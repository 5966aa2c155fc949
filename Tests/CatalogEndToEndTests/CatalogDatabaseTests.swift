import Foundation
import SQLite
import Testing

/// The catalog in SQLite, as a user meets it: migration, import and export, paging and lookups
/// in a large catalog, adding and deleting, damage that is never written over.
@Suite(.serialized) struct CatalogDatabaseTests {
  /// A product file of `count` generated products, as JSON; names `Product 000001`, ….
  static func productsJSON(_ count: Int, start: Int = 1) -> String {
    var text = "["
    for number in start..<(start + count) {
      let digits = String(number)
      let padded = String(repeating: "0", count: max(0, 6 - digits.count)) + digits
      let identifier =
        "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count)
        + digits
      text +=
        (number == start ? "\n" : ",\n")
        + "{\"identifier\": \"\(identifier)\", \"name\": \"Product \(padded)\", \"imageName\": \"Mango\", \"year\": \(2000 + number % 20), \"price\": \(number % 1000).\(number % 10)5, \"keywords\": [\"k\(number % 7)\"]}"
    }
    return text + "\n]\n"
  }

  @Test func anEarlierProductsFileIsImportedOnceAndKept() throws {
    let sandbox = CatalogSandbox()
    try sandbox.writeCatalog(Self.productsJSON(3))
    let first = try sandbox.run(input: "list\n")
    #expect(first.status == 0, "\(first.errors)")
    #expect(first.errors.contains("imported 3 products from"))
    #expect(first.output.contains("Product 000003"))
    #expect(!first.output.contains("Cherries"))
    let legacy = sandbox.dataDirectory + "/products.json"
    #expect(!FileManager.default.fileExists(atPath: legacy))
    #expect(FileManager.default.fileExists(atPath: legacy + ".imported"))
    let second = try sandbox.run(input: "list\n")
    #expect(second.errors.isEmpty, "\(second.errors)")
    #expect(second.output.contains("3 products."))
  }

  @Test func aMigrationKilledHalfwayIsDoneAgainInFull() throws {
    let sandbox = CatalogSandbox()
    try sandbox.writeCatalog(Self.productsJSON(150_000))
    let process = sandbox.start()
    Thread.sleep(forTimeInterval: 0.6)
    process.killHard()
    let legacy = sandbox.dataDirectory + "/products.json"
    // Killed during the import: the database exists, its import was not committed, and the
    // earlier file is where it was.
    #expect(FileManager.default.fileExists(atPath: sandbox.databasePath))
    #expect(FileManager.default.fileExists(atPath: legacy), "the file was renamed before the end")
    let result = try sandbox.run(input: "list\n")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.contains("imported 150000 products"), "\(result.errors)")
    #expect(result.output.contains("of 150,000 products"))
    #expect(!FileManager.default.fileExists(atPath: legacy))
    #expect(FileManager.default.fileExists(atPath: legacy + ".imported"))
  }

  @Test func importValidatesEveryRecordAndImportsAllOrNothing() throws {
    let sandbox = CatalogSandbox()
    let before = try sandbox.run(["export"]).output
    let bad = try sandbox.writeFile(
      "bad.json",
      """
      [{"name": "Kiwi", "imageName": "", "year": 2020, "price": 1.50},
       {"name": "Lime", "imageName": "", "year": 2020, "price": 2},
       {"name": "Plum", "imageName": "",
        "year": 2020, "price": 10.999}]
      """)
    let result = try sandbox.run(["import", bad])
    #expect(result.status == 1)
    #expect(
      result.errorLines == [
        "error: '\(bad)' record 3 (line 3): price: the price '10.999' has more than two digits after the point; nothing was imported"
      ])
    #expect(try sandbox.run(["export"]).output == before)
    // CSV: the first bad record by number and line, the field named.
    let csv = try sandbox.writeFile(
      "bad.csv", "name,imageName,year,price\nKiwi,,2020,1.50\nLime,,1492,2\n")
    let csvResult = try sandbox.run(["import", csv])
    #expect(
      csvResult.errorLines == [
        "error: '\(csv)' record 2 (line 3): year: '1492' is not a year from 1900 to 2100; nothing was imported"
      ])
    #expect(try sandbox.run(["export"]).output == before)
  }

  /// `export FILE.csv` writes RFC 4180 CSV with the importer's header; CSV → import → export →
  /// import gives the same bytes; `--format csv` and `--bom` on standard output.
  @Test func csvExportRoundTrips() throws {
    let sandbox = CatalogSandbox()
    let odd = try sandbox.writeFile(
      "odd.json",
      #"[{"name": "Fish, \"n\" chips", "imageName": "", "year": 2020, "price": 1234.5, "keywords": ["fried", "老 ', x"]}]"#
    )
    #expect(try sandbox.run(["import", odd]).status == 0)
    let first = sandbox.root + "/first.csv"
    let exported = try sandbox.run(["export", first])
    #expect(exported.status == 0, "\(exported.errors)")
    let text = try String(contentsOfFile: first, encoding: .utf8)
    #expect(text.hasPrefix("identifier,name,imageName,year,price,keywords\r\n"), "\(text)")
    #expect(text.contains(#","Fish, ""n"" chips",,2020,1234.50,"fried;老 ', x"\#r\#n"#), "\(text)")
    let other = CatalogSandbox()
    #expect(try other.run(["import", first]).status == 0)
    let second = other.root + "/second.csv"
    #expect(try other.run(["export", second]).status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: second)) == Data(text.utf8))
    let third = CatalogSandbox()
    #expect(try third.run(["import", second]).status == 0)
    #expect(try third.run(["export", "--format", "csv"]).output == text)
    let bom = try sandbox.run(["export", "--format", "csv", "--bom"]).output
    #expect(bom.hasPrefix("\u{FEFF}identifier,name"))
    #expect(try sandbox.run(["state", "--format", "csv"]).status == 64)
  }

  /// A first import into a new data directory makes a catalog of the user's products alone;
  /// a refused one, or one killed, leaves the directory as it was (the next launch seeds the
  /// sample); `--replace` makes the catalog exactly the file's products, saying how many
  /// others went.
  @Test func startingFromYourOwnDataAndReplacingTheSample() throws {
    let sandbox = CatalogSandbox()
    let bad = try sandbox.writeFile(
      "bad.csv", "name,imageName,year,price\nKiwi,,2020,1\nLime,,1800,2\n")
    #expect(try sandbox.run(["import", bad]).status == 1)
    #expect(!FileManager.default.fileExists(atPath: sandbox.databasePath))
    let mine = try sandbox.writeFile(
      "mine.csv", "name,imageName,year,price\nKiwi,,2020,1\nLime,,2021,2\n")
    let imported = try sandbox.run(["import", mine])
    #expect(
      imported.output.hasPrefix("Imported 2 new and 0 updated products"), "\(imported.output)")
    let list = try sandbox.run(input: "list\n").output
    #expect(list.contains("2 products."), "\(list)")
    #expect(!list.contains("Cherries"))

    let sample = CatalogSandbox()
    _ = try sample.run(input: "select cherries\n")
    let one = try sample.writeFile(
      "one.csv",
      "identifier,name,imageName,year,price\nFA542E3D-4895-44B6-942F-E112101D5160,Cherries,Cherries,2015,10.99\n"
    )
    let replaced = try sample.run(["import", "--replace", one])
    #expect(
      replaced.output.hasPrefix(
        "Imported 0 new and 1 updated product, and removed 9 not in the file"),
      "\(replaced.output)")
    let after = try sample.run(input: "list\nselect 1\nsearch cherries\n").output
    #expect(after.contains("1 product."), "\(after)")
    #expect(after.contains("Show Cherries product") || after.contains("Cherries"))
    #expect(try sample.run(["search", "mango"]).output.contains("No results"))
  }

  /// Records without identifiers are matched to the product of the same name: importing the
  /// same sheet twice updates, never duplicates; a name the catalog has twice is refused.
  @Test func recordsWithoutIdentifiersAreMatchedByName() throws {
    let sandbox = CatalogSandbox()
    let sheet = try sandbox.writeFile(
      "sheet.csv",
      "name,imageName,year,price\nKiwi,,2020,1\nLime,,2021,2\nKiwi 2,,2022,3\n")
    #expect(try sandbox.run(["import", sheet]).output.hasPrefix("Imported 3 new and 0 updated"))
    let again = try sandbox.run(["import", sheet])
    #expect(
      again.output.hasPrefix("Imported 0 new and 0 updated products, 3 unchanged"),
      "\(again.output)")
    // Only what differs is updated.
    let changed = try sandbox.writeFile(
      "changed.csv",
      "name,imageName,year,price\nKiwi,,2020,1\nLime,,2021,2.5\nKiwi 2,,2022,3\n")
    let update = try sandbox.run(["import", changed])
    #expect(
      update.output.hasPrefix("Imported 0 new and 1 updated product, 2 unchanged"),
      "\(update.output)")
    #expect(try sandbox.run(input: "list\n").output.contains("3 products."))
    let twice = try sandbox.writeFile(
      "twice.json",
      #"[{"identifier": "00000000-0000-4000-8000-000000000001", "name": "Kiwi", "imageName": "", "year": 2020, "price": 1}]"#
    )
    #expect(try sandbox.run(["import", twice]).status == 0)
    let refused = try sandbox.run(["import", sheet])
    #expect(refused.status == 1)
    #expect(
      refused.errors.contains(
        "1 record without an identifier names products the catalog has more of than the file has records (such as 'Kiwi')"
      ),
      "\(refused.errors)")
  }

  /// A repeated identifier is named like every other bad record: by file and record, into a
  /// new catalog (where the products' own index finds it) as into one with products.
  @Test(arguments: CatalogEngine.allCases)
  func aRepeatedIdentifierNamesTheFileAndRecord(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let file = try sandbox.writeFile(
      "twice.csv",
      "identifier,name,imageName,year,price\n00000000-0000-4000-8000-000000000001,A,,2020,1\n00000000-0000-4000-8000-000000000002,C,,2020,1\n00000000-0000-4000-8000-000000000001,B,,2020,1\n"
    )
    for _ in 0..<2 {
      let result = try sandbox.run(["import", file])
      #expect(result.status == 1)
      #expect(
        result.errorLines == [
          "error: '\(file)' record 3: 'B' repeats the identifier 00000000-0000-4000-8000-000000000001 of an earlier record; nothing was imported"
        ])
      // The second time into the sample catalog.
      _ = try sandbox.run(input: "list\n")
    }
    #expect(try sandbox.run(input: "list\n").output.contains("10 products."))
  }

  /// A repeated identifier of a product deleted from an empty catalog is refused too, not left
  /// out with the deleted product's records.
  @Test(arguments: CatalogEngine.allCases)
  func aRepeatedIdentifierOfADeletedProductIsRefused(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let one = try sandbox.writeFile(
      "one.csv",
      "identifier,name,imageName,year,price\n00000000-0000-4000-8000-000000000001,A,,2020,1\n")
    #expect(try sandbox.run(["import", one]).status == 0)
    #expect(try sandbox.run(["delete", "1"]).status == 0)
    let twice = try sandbox.writeFile(
      "twice.csv",
      "identifier,name,imageName,year,price\n00000000-0000-4000-8000-000000000001,A,,2020,1\n00000000-0000-4000-8000-000000000001,B,,2020,1\n"
    )
    let result = try sandbox.run(["import", twice])
    #expect(result.status == 1, "\(result.output)")
    #expect(
      result.errorLines == [
        "error: '\(twice)' record 2: 'B' repeats the identifier 00000000-0000-4000-8000-000000000001 of an earlier record; nothing was imported"
      ])
  }

  @Test func csvAddsNewProductsAndUpdatesExistingOnes() throws {
    let sandbox = CatalogSandbox()
    // The sample catalog first: a first import into a new data directory adds no sample.
    _ = try sandbox.run(input: "list\n")
    let csv = try sandbox.writeFile(
      "more.csv",
      """
      identifier,name,imageName,year,price,keywords
      ,"Kiwi, Gold",,2020,1.50,fruit; 奇异果
      fa542e3d-4895-44b6-942f-e112101d5160,Cherries,Cherries,2016,"11.00",fruit

      """)
    let result = try sandbox.run(["import", csv])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.hasPrefix("Imported 1 new and 1 updated products"))
    let list = try sandbox.run(input: "list\nselect kiwi\nselect cherries\n")
    #expect(list.output.contains("11  Kiwi, Gold  2020   $1.50"), "\(list.output)")
    #expect(list.output.contains(" 9  Cherries    2016  $11.00"), "\(list.output)")
    #expect(list.output.contains("Keywords  fruit, 奇异果"))
  }

  /// On a terminal (here one made by `script`), a long import draws a progress bar on
  /// standard error with the count and the rate, then clears it.
  @Test func anImportOnATerminalShowsItsProgress() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
    let sandbox = CatalogSandbox()
    let file = try sandbox.writeFile("many.json", Self.productsJSON(60_000))
    let (status, text) = try sandbox.runOnTerminal(["import", file])
    #expect(status == 0, "\(text)")
    #expect(text.contains("] "), "\(text)")
    #expect(text.contains("records  "), "\(text)")
    #expect(text.contains("/s"), "\(text)")
    #expect(text.contains("60,000 records read; saving them to the catalog"), "\(text)")
    #expect(text.contains("\r\u{1B}[KImported 60,000 new and 0 updated products"), "\(text)")
  }

  @Test func anExportImportsBackToTheSameCatalog() throws {
    let sandbox = CatalogSandbox()
    // The sample catalog first: a first import into a new data directory adds no sample.
    _ = try sandbox.run(input: "list\n")
    let file = try sandbox.writeFile("many.json", Self.productsJSON(2_000))
    #expect(try sandbox.run(["import", file]).status == 0)
    _ = try sandbox.run(input: "select 3\nedit\nname Ünïcödé \"quoted\" \\ name\ndone\n")
    let exported = sandbox.root + "/export.json"
    let export = try sandbox.run(["export", exported])
    #expect(export.status == 0, "\(export.errors)")
    #expect(export.output.contains("Exported 2,010 products"))
    let other = CatalogSandbox()
    _ = try other.run(input: "list\n")
    let reimport = try other.run(["import", exported])
    // The sample's edited product differs; the other nine are the same.
    #expect(
      reimport.output.hasPrefix("Imported 2,000 new and 1 updated products, 9 unchanged"),
      "\(reimport.output)")
    #expect(try other.run(["export"]).output == (try sandbox.run(["export"]).output))
  }

  @Test func killingALargeImportLeavesTheCatalogAsItWas() throws {
    let sandbox = CatalogSandbox()
    let before = try sandbox.run(["export"]).output
    let file = try sandbox.writeFile("large.json", Self.productsJSON(150_000))
    let process = sandbox.start(["import", file])
    Thread.sleep(forTimeInterval: 0.6)
    process.killHard()
    #expect(process.terminationReason == .uncaughtSignal, "the import finished before the kill")
    #expect(try sandbox.run(["export"]).output == before)
    let result = try sandbox.run(input: "list\n")
    #expect(result.errors.isEmpty, "\(result.errors)")
    #expect(result.output.contains("10 products."))
  }

  /// Another process's long transaction makes an edit wait (SQLite's busy timeout), not fail.
  @Test func anEditWaitsForAnImportInAnotherProcess() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "list\n")
    let file = try sandbox.writeFile("large.json", Self.productsJSON(60_000))
    let importing = sandbox.start(["import", file])
    Thread.sleep(forTimeInterval: 0.3)
    let edit = try sandbox.run(input: "select cher\nedit\nprice 3.00\ndone\n")
    importing.waitUntilExit()
    #expect(importing.terminationStatus == 0)
    #expect(edit.status == 0, "\(edit.errors)")
    #expect(edit.output.contains("Saved Cherries."))
    let list = try sandbox.run(input: "select cher\nlist\n")
    #expect(list.output.contains("$3.00"))
    #expect(list.output.contains("of 60,010 products"))
  }

  @Test func anUnfinishedAddSurvivesKill9() throws {
    let sandbox = CatalogSandbox()
    let process = sandbox.start()
    process.send("add Kiwi")
    process.send("price 2.50")
    process.send("state")
    process.readOutput(until: "The editor's draft")
    process.killHard()
    let result = try sandbox.run(input: "done\nlist\n")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("Added Kiwi."))
    #expect(result.output.contains("11  Kiwi"))
    #expect(result.output.contains("$2.50"))
    // Cancelled, an addition leaves nothing behind.
    let cancelled = try sandbox.run(input: "add Plum\ncancel\nlist\n")
    #expect(!cancelled.output.contains("Plum  "), "\(cancelled.output)")
    #expect(cancelled.output.contains("11 products."))
  }

  @Test func deleteRemovesTheProductItsActivitiesAndItsPlaceInPaths() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cherries\nscene new side cherries\nscene switch main\n")
    #expect(try sandbox.run(["search", "cherries", "--json"]).output.contains("Cherries"))
    let result = try sandbox.run(input: "delete 9\nscenes\n")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("Deleted Cherries."))
    #expect(result.output.contains("Scene 'main': dropped 1 element"))
    #expect(result.output.contains("Scene 'side': dropped 1 element"))
    #expect(!result.output.contains("Cherries\n"))
    let search = try sandbox.run(["search", "cherries", "--json"])
    #expect(!search.output.contains("Cherries"), "\(search.output)")
    let list = try sandbox.run(input: "list\n")
    #expect(list.output.contains("9 products."))
    #expect(list.output.contains("\n9  Artichoke"), "\(list.output)")
  }

  @Test func aProductDeletedByAnotherProcessIsNoticedAtTheNextCommand() throws {
    let sandbox = CatalogSandbox()
    let first = sandbox.start()
    first.send("select cherries")
    first.readOutput(until: "Keywords")
    let other = try sandbox.run(["--scene", "other"], input: "delete cherries\n")
    #expect(other.output.contains("Deleted Cherries."), "\(other.errors)")
    first.send("tab photo")
    first.send("list")
    first.readOutput(until: "9 products.")
    try? (first.standardInput as? Pipe)?.fileHandleForWriting.close()
    let errors = String(
      decoding: (first.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        ?? Data(), as: UTF8.self)
    first.waitUntilExit()
    #expect(errors.contains("scene 'main': dropped 1 element"), "\(errors)")
    #expect(errors.contains("error: 'tab' needs a product; select one first"), "\(errors)")
    #expect(first.terminationStatus == 1)
  }

  @Test func aLargeCatalogPagesAndFindsProductsByNumberIdentifierAndPrefix() throws {
    let sandbox = CatalogSandbox()
    // The sample catalog first: a first import into a new data directory adds no sample.
    _ = try sandbox.run(input: "list\n")
    let file = try sandbox.writeFile("large.json", Self.productsJSON(30_000))
    #expect(try sandbox.run(["import", file]).status == 0)
    let result = try sandbox.run(
      input: """
        list
        list 1501
        select 30010
        select 00000000-0000-4000-8000-000000012345
        select product 029999
        year 2005 3
        list 1502

        """)
    #expect(result.output.contains("1–20 of 30,010 products (page 1 of 1,501); type 'list 2'"))
    #expect(result.output.contains("30,001–30,010 of 30,010 products (page 1,501 of 1,501)"))
    #expect(result.output.contains("Product 030000\n"))
    #expect(result.output.contains("Product 012345\n"))
    #expect(result.output.contains("Product 029999\n"))
    #expect(result.output.contains("Products from 2005 (1,500):"))
    #expect(result.output.contains("41–60 of 1,500 products (page 3 of 75)"))
    #expect(result.errorLines == ["error: '1502' is not a page from 1 to 1,501"])
    let ambiguous = try sandbox.run(input: "select product 02999\n")
    #expect(
      ambiguous.errors.contains(
        "'product 02999' matches 10 products, the first 5: 'Product 029990'"),
      "\(ambiguous.errors)")
    // A script lists everything.
    let all = try sandbox.run(input: "list --all\n")
    #expect(all.output.split(separator: "\n").count == 30_012)
  }

  /// The database is damaged while the REPL runs: the next command that reads it says so in
  /// one line, and edits are refused from then on; nothing crashes.
  @Test func damageWhileRunningIsReportedAndEditsRefused() throws {
    let sandbox = CatalogSandbox()
    defer { withExtendedLifetime(sandbox) {} }
    let process = try damagedUnderARunningREPL(sandbox)
    process.send("list 140")
    process.send("select 1\nedit\nprice 1\ndone")
    let errors = process.finishReading().errors
    #expect(process.terminationStatus == 1, "\(errors)")
    let warnings = errors.split(separator: "\n").filter {
      $0.hasPrefix("warning: cannot read the catalog")
    }
    #expect(warnings.count == 1, "\(errors)")
    #expect(errors.contains("error: edits are refused"), "\(errors)")
  }

  /// `list --all` of a catalog damaged under the REPL: an error and a failing status, never
  /// the rows it could read followed by the total, as if the list were whole.
  @Test func aListOfEverythingThatCannotBeReadIsAnError() throws {
    let sandbox = CatalogSandbox()
    defer { withExtendedLifetime(sandbox) {} }
    let process = try damagedUnderARunningREPL(sandbox)
    process.send("list --all")
    let (output, errors) = process.finishReading()
    #expect(process.terminationStatus == 1, "\(errors)")
    #expect(!output.contains("3,000 products."), "\(output.suffix(300))")
    #expect(
      errors.contains(
        "error: the output stopped part way: the catalog cannot be read (database disk image is malformed)"
      ), "\(errors)")
  }

  /// A REPL showing a product of a catalog of 3,000, whose database is then overwritten with
  /// junk from its second page on. The sandbox must outlive the process.
  private func damagedUnderARunningREPL(_ sandbox: CatalogSandbox) throws -> Process {
    let file = try sandbox.writeFile("many.json", Self.productsJSON(3_000))
    #expect(try sandbox.run(["import", file]).status == 0)
    let process = sandbox.start()
    process.send("select 1")
    process.readOutput(until: "Keywords")
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: sandbox.databasePath))
    let size = try handle.seekToEnd()
    try handle.seek(toOffset: 4096)
    try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 4096))
    try handle.close()
    return process
  }

  @Test(arguments: ["truncated", "newer"])
  func aDamagedDatabaseIsNeverWrittenAndEditsAreRefused(_ damage: String) throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select mango\nedit\nprice 9.00\ndone\n")
    let path = sandbox.databasePath
    if damage == "newer" {
      try Database(path: path, mode: .readWrite).execute("PRAGMA user_version = 99")
    } else {
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      try data.prefix(data.count - 4096).write(to: URL(fileURLWithPath: path))
    }
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let result = try sandbox.run(input: "select mango\nedit\nprice 8.00\ndone\n")
    #expect(result.status == 1)
    let reason =
      damage == "newer" ? "its schema version 99 is newer than this program's 7" : "it is truncated"
    #expect(result.errorLines.first?.contains(reason) == true, "\(result.errors)")
    #expect(result.errorLines.last?.hasPrefix("error: edits are refused") == true)
    #expect(result.output.contains("$6.99"))  // the bundled catalog
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
  }
}
