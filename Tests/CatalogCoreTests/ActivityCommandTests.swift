import ActivityIndex
import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import SystemSupport
import TestSupport
import Testing

@testable import CatalogCore

@Suite struct ActivityCommandTests {
  /// The user info built directly is exactly what the typed payload encodes to, for every kind
  /// of price (whole dollars are integers) and for names that need escaping in JSON.
  @Test func theUserInfoIsTheTypedPayload() throws {
    var generator = SeededGenerator(seed: 0x5EED_0001)
    var cents = [0, 1, 7, 10, 99, 100, 101, 1_000, 12_345, 99_999_999, 100_000_000]
    cents += (0..<2_000).map { _ in Int.random(in: 0...100_000_000, using: &generator) }
    for (offset, amount) in cents.enumerated() {
      let product = Product(
        identifier: UUID(), name: offset.isMultiple(of: 2) ? "Plum \"№\(offset)\"\\/" : "樱桃",
        imageName: offset.isMultiple(of: 3) ? "pictures/plum.png" : "Cherries",
        year: 1900 + offset % 200, price: Price(cents: amount))
      var typed = UserActivityRecord(activityType: ProductActivity.type)
      try typed.setTypedPayload(ProductActivity.Payload(product))
      #expect(ProductActivity.userInfo(product) == typed.userInfo, "price \(amount) cents")
    }
  }

  @Test func aSceneAdvertisesShowProductWhileADetailIsOnTop() throws {
    let (state, _) = try run(["select cher"])
    let activity = try #require(state.activeScene.userActivity)
    #expect(activity.activityType == "com.example.apple-samplecode.staterestore.product")
    #expect(activity.title == "Show Cherries product")
    #expect(activity.targetContentIdentifier == cherries.uuidString)
    #expect(activity.isEligibleForSearch && activity.isEligibleForHandoff)
    #expect(activity.keywords == ["樱桃", "车厘子", "cerises", "fruit"])
    #expect(Set(activity.userInfo.keys) == ["identifier", "name", "imageName", "year", "price"])
    let payload = try activity.typedPayload(ProductActivity.Payload.self)
    #expect(
      payload.name == "Cherries" && payload.year == 2015 && payload.price.plainText == "10.99")
    // Nothing is advertised at a year's list or the root.
    #expect(try run(["select cher", "year 2015"]).state.activeScene.userActivity == nil)
    #expect(try run(["select cher", "back"]).state.activeScene.userActivity == nil)
  }

  /// An activity another process hands off is a command like any other: continued in the
  /// scene it names, which comes to the front; a scene this process does not have is refused.
  @Test func aDeliveredActivityIsContinuedInItsScene() throws {
    let environment = FakeEnvironment()
    let (opened, _) = try run(["scene new side"], environment: environment)
    let side = SceneName("side")
    let activity = ProductActivity.show(bundledProducts[8])
    let result = try opened.applying(
      .continueDelivered(activity, in: .main), environment: environment)
    #expect(result.state.activeSceneName == .main)
    #expect(result.state.activeScene.path.routes == [.product(cherries)])
    // What the scene shows now: the receiving process says where the activity came from.
    #expect(result.output.hasPrefix("Cherries\n"), "\(result.output)")
    #expect(result.state.scene(named: "side")?.path.routes.isEmpty == true)
    #expect(opened.activeSceneName == side)
    let elsewhere = SceneName("elsewhere")
    #expect(throws: CatalogCoreError.noSuchScene("elsewhere", open: ["main", "side"])) {
      try opened.applying(.continueDelivered(activity, in: elsewhere), environment: environment)
    }
  }

  /// The core describes what a command does outside its state and does none of it: the
  /// history is forgotten, a scene claimed, an activity handed off only by whoever performs
  /// the result's effects (the shell), and not at all when the command fails.
  @Test func commandsReturnTheirEffectsAsDataAndPerformNone() throws {
    let environment = FakeEnvironment()
    environment.history = [ProductActivity.show(bundledProducts[8])]
    let start = AppState(
      catalog: bundledCatalog, scenes: [Scene(name: .main)], activeSceneName: .main)
    let forget = try start.applying(.forget(.all), environment: environment)
    #expect(forget.effects == [.forgetActivities(nil)])
    #expect(environment.history.count == 1)

    let side = SceneName("side")
    let opened = try start.applying(.newScene(side, product: nil), environment: environment)
    #expect(opened.effects == [.claimScene(side)])
    #expect(environment.claimed.isEmpty)

    let (shown, _) = try run(["select cher"], environment: environment)
    environment.ownedElsewhere = [side]
    let handoff = try shown.applying(.handoff("side"), environment: environment)
    let activity = try #require(shown.activeScene.userActivity)
    #expect(handoff.effects == [.handOff(activity, from: .main, to: side)])
    #expect(handoff.state == shown && environment.handedOff.isEmpty)
    #expect(throws: CatalogCoreError.sceneOwned("side", pid: 42)) {
      try start.applying(.newScene(side, product: nil), environment: environment)
    }
  }

  @Test func searchThenContinueShowsTheProduct() throws {
    let environment = FakeEnvironment()
    var viewed = ProductActivity.show(bundledProducts[8])
    viewed.lastActiveDate = environment.now
    environment.history = [viewed]
    let (searched, output) = try run(["search fruit"], environment: environment)
    #expect(output.contains("1  Show Cherries product  Cherries"))
    #expect(searched.lastSearch.map(\.product.name) == ["Cherries", "Mango"])
    let (state, _) = try run(["continue 1"], from: searched, environment: environment)
    #expect(state.activeScene.path.routes == [.product(cherries)])
    #expect(throws: CatalogCoreError.noSearchResult(3, count: 2)) {
      try run(["continue 3"], from: searched, environment: environment)
    }
    #expect(throws: CatalogCoreError.noSearchResult(1, count: 0)) { try run(["continue 1"]) }
  }

  @Test func continuingAGoneProductIsAnError() throws {
    let environment = FakeEnvironment()
    let (searched, _) = try run(["search cher"], environment: environment)
    var state = searched
    state.catalog = Catalog(bundledProducts.filter { $0.name != "Cherries" })
    #expect(throws: CatalogCoreError.activityProductGone(name: "Cherries")) {
      try run(["continue 1"], from: state, environment: environment)
    }
  }

  @Test func continuingAnUndeclaredOrExpiredActivityIsAnError() throws {
    let environment = FakeEnvironment()
    var state = try run(["search cher"], environment: environment).state
    state.lastSearch[0].activity.activityType = "com.example.other"
    #expect(throws: StateRestorationError.undeclaredType("com.example.other")) {
      try run(["continue 1"], from: state, environment: environment)
    }
    state.lastSearch[0].activity.activityType = ProductActivity.type
    state.lastSearch[0].activity.expirationDate = environment.now
    #expect(throws: StateRestorationError.expired(title: "Show Cherries product")) {
      try run(["continue 1"], from: state, environment: environment)
    }
    state.lastSearch[0].activity.expirationDate = nil
    state.lastSearch[0].activity.userInfo = ["identifier": .string("not a UUID")]
    #expect(throws: StateRestorationError.self) {
      try run(["continue 1"], from: state, environment: environment)
    }
  }

  @Test func expiredActivitiesNeitherBoostNorCountAsViewed() throws {
    let environment = FakeEnvironment()
    var viewed = ProductActivity.show(bundledProducts[8])
    viewed.lastActiveDate = environment.now
    viewed.expirationDate = environment.now.addingTimeInterval(1)
    environment.history = [viewed]
    // Cherries comes after Mango in the catalog; viewing it puts it first.
    #expect(
      try run(["search fruit"], environment: environment).state.lastSearch.map(\.product.name)
        == ["Cherries", "Mango"])
    environment.history[0].expirationDate = environment.now
    let results = try run(["search fruit"], environment: environment).state.lastSearch
    #expect(results.map(\.product.name) == ["Mango", "Cherries"])
    #expect(results.allSatisfy { !$0.isViewed })
  }

  /// Handoff between machines: the activity is published as an effect (nothing else changes
  /// here), the other machines' ones are listed, and one is continued in the active scene; a
  /// catalog on one machine says what handing off to a machine needs.
  @Test func handoffToAnotherMachinePublishesListsAndContinues() throws {
    let environment = FakeEnvironment()
    environment.fromOtherMachines = []
    let (shown, _) = try run(["select mango"], environment: environment)
    let published = try shown.applying(.handoffToMachine, environment: environment)
    let activity = try #require(shown.activeScene.userActivity)
    #expect(published.effects == [.publishHandoff(activity)])
    #expect(published.state == shown)
    #expect(published.output.hasPrefix("Handed off 'Show Mango product' to your other machines"))
    #expect(throws: CatalogCoreError.nothingToHandOff(scene: "main")) {
      try run(["handoff --to-machine"], environment: environment)
    }
    #expect(
      try run(["activities --elsewhere"], environment: environment).output.hasPrefix(
        "No activities from your other machines"))
    #expect(throws: CatalogError.noSuchHandoff(1, count: 0)) {
      try run(["continue --elsewhere 1"], environment: environment)
    }
    var cherries = ProductActivity.show(bundledProducts[8])
    cherries.lastActiveDate = environment.now
    environment.fromOtherMachines = [
      MachineHandoff(
        id: 7, machine: "laptop", activity: cherries,
        published: environment.now.addingTimeInterval(-120))
    ]
    let listed = try run(["activities --elsewhere"], environment: environment).output
    #expect(listed.contains("1  Show Cherries product  laptop   2 min ago"), "\(listed)")
    let (continued, output) = try run(
      ["select mango", "continue --elsewhere 1"], environment: environment)
    #expect(output.hasPrefix("Continued 'Show Cherries product' from machine 'laptop'."))
    #expect(continued.activeScene.path.routes == [.product(bundledProducts[8].identifier)])
    #expect(throws: CatalogError.noSuchHandoff(2, count: 1)) {
      try run(["continue --elsewhere 2"], environment: environment)
    }
    #expect(throws: CatalogCoreError.self) { try CommandParser.parse("continue --elsewhere x") }
    environment.fromOtherMachines = nil
    #expect(throws: CatalogError.handoffNeedsServer) {
      try run(["select mango", "handoff --to-machine"], environment: environment)
    }
  }

  @Test func handoffContinuesTheActiveScenesActivityElsewhere() throws {
    let environment = FakeEnvironment()
    let (state, output) = try run(
      ["select mango", "tab photo", "handoff side"], environment: environment)
    #expect(
      output.hasPrefix("Opened scene 'side'.\nHanded off 'Show Mango product' to scene 'side'."))
    #expect(state.activeSceneName.rawValue == "side")
    #expect(state.activeScene.path.routes == [.product(mango)])
    #expect(state.scene(named: "main")?.path.routes == [.product(mango)])
    #expect(throws: CatalogCoreError.nothingToHandOff(scene: "main")) { try run(["handoff side"]) }
    #expect(throws: CatalogCoreError.self) { try run(["select mango", "handoff main"]) }
    // A scene with its editor open takes nothing.
    let (editing, _) = try run(["scene new side cher", "edit", "scene switch main", "select mango"])
    #expect(throws: CatalogCoreError.editorOpen(command: "handoff")) {
      try run(["handoff side"], from: editing)
    }
  }

  /// To a scene another terminal has open, the activity goes there: nothing changes here.
  @Test func handoffAndContinueToAnotherTerminalsSceneDeliverTheActivityThere() throws {
    let environment = FakeEnvironment()
    environment.ownedElsewhere = [SceneName("side")]
    let (state, output) = try run(["select mango", "handoff side"], environment: environment)
    #expect(output == "Handed off 'Show Mango product' to scene 'side' (pid 42).")
    #expect(environment.handedOff.map(\.1.rawValue) == ["side"])
    #expect(environment.handedOff.first?.0.title == "Show Mango product")
    #expect(state.scenes.map(\.name.rawValue) == ["main"])
    let (searched, _) = try run(["search cherries"], environment: environment)
    let (continued, text) = try run(
      ["continue 1 --scene side"], from: searched, environment: environment)
    #expect(text == "Handed off 'Show Cherries product' to scene 'side' (pid 42).")
    #expect(continued.scenes.map(\.name.rawValue) == ["main"])
    // A scene no process has open is opened here, and takes it.
    let (opened, shown) = try run(["continue 1 --scene spare"], from: searched)
    #expect(shown.hasPrefix("Opened scene 'spare'."))
    #expect(opened.activeScene.path.routes == [.product(cherries)])
    #expect(throws: CatalogCoreError.self) { try CommandParser.parse("continue 1 --scene") }
    #expect(throws: CatalogCoreError.self) { try CommandParser.parse("continue 1 2") }
    #expect(throws: CatalogCoreError.self) { try CommandParser.parse("continue 1 --scene ../x") }
  }

  @Test func aNewSceneWithAProductContinuesADroppedActivity() throws {
    let (state, _) = try run(["scene new side cher"])
    #expect(state.activeScene.path.routes == [.product(cherries)])
    #expect(ProductActivity.dropped(bundledProducts[8]).title == "Dropped product Cherries")
    #expect(ProductActivity.dropped(bundledProducts[8]).isEligibleForSearch == false)
  }

  @Test func searchLinksRunTheSearch() throws {
    let (state, output) = try run(["open catalog://search?q=red+rose"])
    #expect(state.lastSearch.map(\.product.name) == ["Red Rose"])
    #expect(output.contains("Show Red Rose product"))
    #expect(
      throws: CatalogCoreError.invalidSearch(
        "the query has no words to search for; type a word, such as 'cherries'")
    ) {
      try run(["open catalog://search?q=%21%21"])
    }
  }

  @Test func anEditIsSearchableAtOnce() throws {
    let environment = FakeEnvironment()
    let (state, _) = try run(
      ["select cher", "edit", "name Morello", "done"], environment: environment)
    #expect(
      try run(["search morello"], from: state, environment: environment).state.lastSearch.map(
        \.product.identifier) == [cherries])
    #expect(
      try run(["search cherries"], from: state, environment: environment).state.lastSearch.isEmpty)
    #expect(state.activeScene.userActivity?.title == "Show Morello product")
  }

  @Test(arguments: ["", " ", String(repeating: "cherries ", count: 7000)])
  func badQueriesAreOneLineErrors(query: String) {
    #expect(throws: CatalogCoreError.self) { try run(["search \(query)"]) }
  }

  @Test func theActivitySearchIndexFollowsEdits() throws {
    var search = ActivitySearch(catalog: bundledCatalog)
    var catalog = bundledCatalog
    var edited = bundledProducts[8]
    edited.name = "Morello"
    catalog.replace(edited)
    search.update(to: catalog)
    let now = Date()
    #expect(try search.results(for: "cherries", history: [], now: now).isEmpty)
    #expect(
      try search.results(for: "morello", history: [], now: now).map(\.product.name) == ["Morello"])
    // A different set of products is indexed anew.
    search.update(to: Catalog(Array(bundledProducts.prefix(3))))
    #expect(try search.results(for: "morello", history: [], now: now).isEmpty)
    #expect(try search.results(for: "orchid", history: [], now: now).count == 1)
  }
}

extension ActivityCommandTests {
  /// A search ranks the viewed products that match higher, the most recently viewed first,
  /// however many other products were viewed since: it asks the history's search, which sees
  /// every change, in this process or another, and never an expired activity.
  @Test func aSearchRanksEveryViewedProductThatMatches() throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    let history = ActivityHistory(directory: state)
    let search = ActivitySearch(catalog: bundledCatalog)
    let flowers = bundledProducts.filter { $0.keywords.contains("flower") }
    try #require(flowers.count >= 3)
    let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
    func view(_ product: Product, at offset: Double, in history: ActivityHistory) throws {
      var activity = ProductActivity.show(product)
      activity.lastActiveDate = start + offset
      activity.expirationDate = offset == 4 ? start + 200 : nil
      try history.save(activity)
    }
    func first(at now: Date = start + 100) throws -> String? {
      try search.results(
        for: "flower",
        viewed: {
          (try? history.search($0, limit: $1, at: now))?.map {
            ActivityHistory.Entry($0.activity)
          } ?? []
        }, now: now
      ).first?.product.name
    }
    let unviewed = try search.results(for: "flower", history: [], now: start).first?.product
    let viewedFirst = try #require(flowers.first { $0 != unviewed })
    try view(viewedFirst, at: 1, in: history)
    // More views since than a search asks the history for, none of a flower.
    var others: [UserActivityRecord] = []
    for index in 0...ActivitySearch.historyLimit {
      var activity = UserActivityRecord(activityType: ProductActivity.type)
      activity.title = "Show Product \(index) product"
      activity.targetContentIdentifier = UUID().uuidString
      activity.isEligibleForSearch = true
      activity.lastActiveDate = start + 1.5
      others.append(activity)
    }
    try history.importRecords(others)
    #expect(try first() == viewedFirst.name)
    let second = try #require(flowers.first { $0 != viewedFirst && $0 != unviewed })
    try view(second, at: 2, in: history)
    #expect(try first() == second.name)
    // Another process's view.
    let third = try #require(flowers.first { $0 != viewedFirst && $0 != second })
    try view(third, at: 3, in: ActivityHistory(directory: state))
    #expect(try first() == third.name)
    // A view that expires counts until it has.
    try view(viewedFirst, at: 4, in: history)
    #expect(try first() == viewedFirst.name)
    #expect(try first(at: start + 300) == third.name)
  }
}

extension ActivityCommandTests {
  /// `select` and `search` fold alike: a name typed without its ligatures, circled letters,
  /// superscripts, `ß` or accents selects the product, and finds it first.
  @Test func selectAndSearchFindTheSameNames() throws {
    let names = [
      ("Ĳssel Tulip", "ijssel tulip"), ("Straße Rose", "strasse rose"),
      ("Ⓐlpine Aster", "alpine aster"), ("Rose x²", "rose x2"), ("ǅemal Lily", "dzemal lily"),
      ("ﬁg Tree", "fig tree"), ("Crème Rose", "creme rose"), ("ｃｈｅｒｒｙ Bloom", "cherry bloom"),
    ]
    let catalog = Catalog(
      names.enumerated().map { number, name in
        Product(
          identifier: UUID(), name: name.0, imageName: "Cherries", year: 2000,
          price: Price(cents: number + 1))
      })
    let search = ActivitySearch(catalog: catalog)
    for (name, typed) in names {
      #expect(try catalog.product(matching: typed).name == name)
      #expect(try search.results(for: typed, history: [], now: Date()).first?.product.name == name)
    }
  }
}
