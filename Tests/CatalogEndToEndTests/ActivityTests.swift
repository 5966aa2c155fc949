import Foundation
import StateRestoration
import Testing

@Suite(.serialized) struct ActivityTests {
  static let cherries = "FA542E3D-4895-44B6-942F-E112101D5160"

  func searchJSON(
    _ sandbox: CatalogSandbox, _ query: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [[String: Any]] {
    let result = try sandbox.run(["search", query, "--json"])
    #expect(result.status == 0, "\(result.errors)", sourceLocation: sourceLocation)
    return try #require(
      try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]],
      sourceLocation: sourceLocation)
  }

  @Test(arguments: CatalogEngine.allCases)
  func applesScenarioSearchThenContinue(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let result = try sandbox.run(
      input: "select cher\nselect mango\nsearch Cherries\ncontinue 1\nstate\n")
    #expect(result.status == 0, "\(result.errors)")
    let lines = result.output.split(separator: "\n").map(String.init)
    let first = try #require(lines.firstIndex { $0.hasPrefix("1  ") })
    #expect(lines[first].hasPrefix("1  Show Cherries product  Cherries"))
    #expect(result.output.contains("ContentView.selectedProduct  string  \"\(Self.cherries)\""))
    // The next launch is on Cherries, and the search finds it in the history.
    let state = try sandbox.stateJSON()
    let main = try #require(sandbox.scene("main", in: state))
    #expect((main["activity"] as? [String: Any])?["title"] as? String == "Show Cherries product")
    let text = try sandbox.run(["state"]).output
    #expect(text.contains("(activity)") && text.contains("Show Cherries product"))
    for query in ["樱桃", "cerises", "cher", "CHERRIES", "chery"] {
      let results = try searchJSON(sandbox, query)
      #expect(results.first?["title"] as? String == "Show Cherries product", "\(query)")
      #expect(results.first?["kind"] as? String == "activity", "\(query)")
    }
    #expect(
      try searchJSON(sandbox, "chery").first?["why"] as? String
        == "title: 'Cherries' for 'chery' (one typo); viewed recently")
    // The product's own word, not the folded one the index keeps.
    #expect(
      try searchJSON(sandbox, "glaieul").first?["why"] as? String
        == "keywords: 'glaïeul'")
    #expect(try searchJSON(sandbox, "orchidee").first?["product"] as? String == "Orchid")
    #expect(try searchJSON(sandbox, "GLAÏEUL").first?["product"] as? String == "Gladiolus")
    #expect(try searchJSON(sandbox, "orchidee").first?["kind"] as? String == "item")
  }

  @Test(arguments: CatalogEngine.allCases)
  func theHistorySurvivesSIGKILL(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let process = sandbox.start()
    process.send("select peanuts")
    process.readOutput(until: "Peanuts")
    process.send("select ginger")
    process.readOutput(until: "Ginger")
    process.killHard()
    let results = try searchJSON(sandbox, "g")
    let ginger = try #require(results.first { $0["product"] as? String == "Ginger" })
    #expect(ginger["kind"] as? String == "activity")
    #expect(ginger["lastActiveDate"] is String)
    let peanuts = try searchJSON(sandbox, "peanuts")
    #expect(peanuts.first?["kind"] as? String == "activity")
    let userInfo = try #require(peanuts.first?["userInfo"] as? [String: Any])
    #expect(userInfo["name"] as? String == "Peanuts" && userInfo["year"] as? Int == 2014)
    // One entry per product, newest kept.
    _ = try sandbox.run(input: "select peanuts\nselect ginger\nselect peanuts\n")
    let titles = try sandbox.savedActivities().compactMap(\.title)
    #expect(titles == ["Show Peanuts product", "Show Ginger product"])
  }

  @Test func expiredActivitiesAreNotReturned() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\n")
    var record = try #require(try sandbox.savedActivities().first)
    record.expirationDate = Date(timeIntervalSinceReferenceDate: 0)  // 2001
    try sandbox.history.save(record)
    let results = try searchJSON(sandbox, "cher")
    #expect(results.count == 1)
    #expect(results.first?["kind"] as? String == "item")
    #expect(results.first?["lastActiveDate"] is NSNull)
  }

  @Test func anUnreadableHistoryIsSetAside() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\n")
    try sandbox.write(String(repeating: "not a database ", count: 300), to: "activities.sqlite")
    let search = try sandbox.run(["search", "cher", "--json"])
    #expect(search.status == 0)
    #expect(
      search.errorLines.count == 1 && search.errors.contains("searching the products alone"))
    // The first command that uses the history sets it aside, and saves what the file kept.
    let result = try sandbox.run(input: "select mango\nactivities\n")
    #expect(result.errorLines.count == 1)
    #expect(
      result.errors.contains("moved it to")
        && result.errors.contains("the activity history starts empty"))
    #expect(result.output.contains("Show Cherries product"))
    #expect(sandbox.quarantined().contains { $0.hasPrefix("activities.") })
    #expect(try searchJSON(sandbox, "mango").first?["kind"] as? String == "activity")
  }

  /// An earlier version's activities.json is found by search at once, moved into the
  /// database at the next launch, and kept.
  @Test func anEarlierHistoryFileIsImportedOnceAndKept() throws {
    let sandbox = CatalogSandbox()
    try sandbox.createStateDirectory()
    let mango = "3F6624CC-5105-492C-A307-235E78AAC4BC"
    var record = UserActivityRecord(
      activityType: "com.example.apple-samplecode.staterestore.product")
    record.title = "Show Mango product"
    record.persistentIdentifier = mango
    record.targetContentIdentifier = mango
    record.isEligibleForSearch = true
    record.lastActiveDate = Date(timeIntervalSinceReferenceDate: 700_000_000)
    let activity = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
    try sandbox.write(
      "{\"formatVersion\": 1, \"activities\": [\(activity)]}", to: "activities.json")
    #expect(try searchJSON(sandbox, "mango").first?["kind"] as? String == "activity")
    let result = try sandbox.run(input: "activities\n")
    #expect(result.errors.contains("imported 1 saved activity from"), "\(result.errors)")
    #expect(!sandbox.exists("activities.json"))
    #expect(sandbox.exists("activities.json.imported"))
    #expect(try sandbox.history.record(historyKey: mango)?.title == "Show Mango product")
    #expect(try searchJSON(sandbox, "mango").first?["kind"] as? String == "activity")
    #expect(try sandbox.run(input: "activities\n").errors.isEmpty)
  }

  /// An earlier version's activities.json that cannot be read goes to quarantine when the
  /// history is first used, with one warning; the history works without it.
  @Test func anUnreadableEarlierHistoryFileIsSetAside() throws {
    let sandbox = CatalogSandbox()
    try sandbox.createStateDirectory()
    try sandbox.write("{\"formatVersion\": 1, \"activities\": [", to: "activities.json")
    let result = try sandbox.run(input: "select mango\nactivities\n")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errorLines.count == 1, "\(result.errors)")
    #expect(result.errors.contains("its saved activities are not imported"), "\(result.errors)")
    #expect(!sandbox.exists("activities.json"))
    #expect(sandbox.quarantined().contains { $0.hasPrefix("activities") })
    #expect(result.output.contains("Show Mango product"))
  }

  /// `activities` lists the history newest first; `forget` deletes by number, by product or
  /// all, at once for search, and a forgotten activity does not come back from its scene.
  @Test(arguments: CatalogEngine.allCases)
  func savedActivitiesAreListedAndForgotten(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let listed = try sandbox.run(input: "select mango\nselect ginger\nselect cher\nactivities\n")
    #expect(listed.status == 0, "\(listed.errors)")
    let lines = listed.output.split(separator: "\n").map(String.init)
    let header = try #require(lines.firstIndex { $0.contains("Activity") && $0.contains("When") })
    #expect(lines[header + 1].hasPrefix("1  Show Cherries product  Cherries"))
    #expect(lines[header + 2].hasPrefix("2  Show Ginger product"))
    #expect(lines[header + 3].hasPrefix("3  Show Mango product"))
    #expect(listed.output.contains("3 saved activities; 'forget N' deletes one."))
    let forgot = try sandbox.run(input: "activities\nforget 2\nforget mango\nforget 9\n")
    #expect(forgot.output.contains("Forgot 'Show Ginger product'."))
    #expect(forgot.output.contains("Forgot the saved activities of Mango."))
    #expect(
      forgot.errorLines == ["error: there is no saved activity 9; the last listing has 1"])
    #expect(try searchJSON(sandbox, "ginger").first?["kind"] as? String == "item")
    #expect(try sandbox.history.count() == 1)
    // The scene still shows Cherries; forgetting all is not undone by the next launch.
    let all = try sandbox.run(input: "forget --all\n")
    #expect(all.output.contains("Forgot every saved activity (1)"))
    let again = try sandbox.run(input: "activities\n")
    #expect(again.output.contains("No saved activities"), "\(again.output)")
    #expect(try searchJSON(sandbox, "cher").first?["kind"] as? String == "item")
  }

  /// From a shell there is no `continue`: a search link's results end without that hint.
  @Test func aSearchLinkFromTheShellOffersNoREPLCommand() throws {
    let sandbox = CatalogSandbox()
    let result = try sandbox.run(["open", "catalog://search?q=fruit"])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("Mango"))
    #expect(!result.output.contains("continue"), "\(result.output)")
  }

  /// Keywords edited in the REPL are saved, found by search, and merged with another
  /// process's edit as the other fields are.
  @Test(arguments: CatalogEngine.allCases)
  func keywordsEditedInTheREPLAreSavedFoundAndMerged(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let edited = try sandbox.run(
      input: "select cher\nedit\nkeywords cerises, sour ,, fruit\ndone\n")
    #expect(edited.status == 0, "\(edited.errors)")
    #expect(edited.output.contains("Saved Cherries.\nCherries\n"), "\(edited.output)")
    #expect(edited.output.contains("Keywords  cerises, sour, fruit"), "\(edited.output)")
    #expect(try searchJSON(sandbox, "sour").first?["product"] as? String == "Cherries")
    #expect(try searchJSON(sandbox, "车厘子").isEmpty)
    let editor = sandbox.start([])
    editor.send("select cher")
    editor.send("edit")
    editor.send("keywords sour")
    editor.readOutput(until: "Keywords  sour\n")
    let other = try sandbox.run(input: "select cher\nedit\nkeywords tart\nprice 9.99\ndone\n")
    #expect(other.output.contains("Saved Cherries."), "\(other.errors)")
    editor.send("done")
    let (_, errors) = editor.finishReading()
    #expect(
      errors
        == "error: another process changed the keywords of 'Cherries' to 'tart' since this edit began, and the draft has 'sour'; type 'keywords tart' to keep theirs, or 'done --force' to save yours\n"
    )
  }

  @Test(arguments: CatalogEngine.allCases)
  func badSearchesFromTheShell(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    let empty = try sandbox.run(["search", "!!!"])
    #expect(empty.status == 1)
    #expect(
      empty.errorLines == [
        "error: the query has no words to search for; type a word, such as 'cherries'"
      ])
    let huge = try sandbox.run(["search", String(repeating: "cherries ", count: 7300)])
    #expect(huge.status == 1 && huge.errorLines.count == 1)
    #expect(try sandbox.run(["search"]).status == 64)
    #expect(try sandbox.run(["search", "x", "--limit", "0"]).status == 64)
    let limited = try sandbox.run(["search", "flower", "--limit", "2"])
    #expect(limited.output.split(separator: "\n").count == 4)
    // How many match in all, grouped as every count is.
    #expect(limited.output.hasSuffix("\nThe best 2 of 5 matches; add words to narrow them.\n"))
  }
}

extension ActivityTests {
  /// An activity that becomes current is kept in its scene's file, with its date, until the
  /// scene's next batch goes into the history: search finds it at once, and listing the
  /// activities saves it there.
  @Test func anActivityOnlyInItsSceneFileIsFoundAndSaved() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(["select", "cher"])
    let scene = try #require(
      try JSONSerialization.jsonObject(with: sandbox.contents(of: "scenes/main.json"))
        as? [String: Any])
    let activity = try #require(scene["activity"] as? [String: Any])
    #expect(activity["lastActiveDate"] is Double)
    let pending = try #require(scene["pendingActivities"] as? [[String: Any]])
    #expect(pending.first?["historyKey"] as? String == "FA542E3D-4895-44B6-942F-E112101D5160")
    #expect(!sandbox.exists("activities.sqlite"), "a command leaves the history for a batch")
    let found = try searchJSON(sandbox, "cher")
    #expect(found.first?["kind"] as? String == "activity")
    #expect(!sandbox.exists("activities.sqlite"), "'catalog search' writes nothing")
    #expect(try sandbox.savedActivities().first?.title == "Show Cherries product")
  }

  /// A scene whose file goes — closed for good, or the passing scene of a command beside a
  /// terminal that has every scene — saves what it made current in the history first.
  @Test func aSceneThatGoesSavesItsActivitiesFirst() throws {
    let sandbox = CatalogSandbox()
    let closed = try sandbox.run(
      input: "scene new side\nselect mango\nscene switch main\nscene close side\n")
    #expect(closed.status == 0, "\(closed.errors)")
    #expect(!sandbox.exists("scenes/side.json"))
    #expect(try sandbox.history.records().map(\.title) == ["Show Mango product"])

    let terminal = sandbox.start()
    terminal.send("list")
    terminal.readOutput(until: "Cherries")
    let passing = try sandbox.run(["select", "ginger"])
    #expect(passing.status == 0, "\(passing.errors)")
    #expect(try sandbox.history.records().first?.title == "Show Ginger product")
    terminal.finishInput()
  }

  /// A scene file set aside because it is in the way of a scene opened fresh leaves what it
  /// kept for the history to the scene's new file; an earlier version's file, which holds
  /// its activity alone, keeps it until it is in the history.
  @Test func whatAFileKeptForTheHistoryOutlivesTheFile() throws {
    let sandbox = CatalogSandbox()
    #expect(try sandbox.run(["select", "mango"]).status == 0)
    #expect(try sandbox.run(["--scene", "side", "select", "ginger"]).status == 0)
    // Closing the only scene of its run opens `main` fresh, over a file it has not read.
    let closed = try sandbox.run(["--scene", "side"], input: "scene close side\n")
    #expect(closed.errors.contains("had a saved file from before"), "\(closed.errors)")
    #expect(
      Set(try sandbox.savedActivities().compactMap(\.title))
        == ["Show Mango product", "Show Ginger product"])

    let earlier = CatalogSandbox()
    #expect(try earlier.run(["select", "cher"]).status == 0)
    let path = earlier.file("scenes/main.json")
    var scene = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        as? [String: Any])
    #expect(scene.removeValue(forKey: "pendingActivities") != nil)
    try JSONSerialization.data(withJSONObject: scene).write(to: URL(fileURLWithPath: path))
    #expect(try earlier.run(["select", "peanuts"]).status == 0)
    #expect(
      Set(try earlier.savedActivities().compactMap(\.title))
        == ["Show Cherries product", "Show Peanuts product"])
  }

  /// A scene's file lists at most a batch of activities: the command that would list more
  /// saves them in the history first, and the file starts its list again.
  @Test func aSceneSavesItsActivitiesInTheHistoryABatchAtATime() throws {
    let sandbox = CatalogSandbox()
    let batch = 16  // CommandSave.pendingBatch
    // More products than a batch: a product shown again replaces its entry.
    let rows = (1...batch + 1).map { number in
      "\(UUID().uuidString),Fruit \(number),Cherries,2020,1.00"
    }
    let file = sandbox.root + "/more.csv"
    try Data(("identifier,name,imageName,year,price\n" + rows.joined(separator: "\n") + "\n").utf8)
      .write(to: URL(fileURLWithPath: file))
    #expect(try sandbox.run(["import", file]).status == 0)
    for number in 1...batch {
      #expect(try sandbox.run(["select", String(number)]).status == 0)
    }
    #expect(!sandbox.exists("activities.sqlite"))
    #expect(try sandbox.run(["select", String(batch + 1)]).status == 0)
    #expect(try sandbox.history.count() == batch)
    let scene = try #require(
      try JSONSerialization.jsonObject(with: sandbox.contents(of: "scenes/main.json"))
        as? [String: Any])
    #expect((scene["pendingActivities"] as? [Any])?.count == 1)
    #expect(try sandbox.savedActivities().count == batch + 1)
  }

  /// "Showing a product saves one activity" holds also for a product `done` adds and for a
  /// product selected again while it is in front (its date moves on).
  @Test(arguments: CatalogEngine.allCases)
  func showingAProductAlwaysSavesItsActivity(engine: CatalogEngine) throws {
    let sandbox = try CatalogSandbox(engine)
    _ = try sandbox.run(input: "add Kiwi\nprice 2.50\ndone\n")
    #expect(try sandbox.savedActivities().contains { $0.title == "Show Kiwi product" })
    _ = try sandbox.run(input: "select cherries\n")
    let first = try #require(
      try sandbox.savedActivities().first { $0.title == "Show Cherries product" }?.lastActiveDate)
    Thread.sleep(forTimeInterval: 0.05)
    _ = try sandbox.run(input: "select cherries\n")
    let second = try #require(
      try sandbox.savedActivities().first { $0.title == "Show Cherries product" }?.lastActiveDate)
    #expect(second > first)
  }
}
