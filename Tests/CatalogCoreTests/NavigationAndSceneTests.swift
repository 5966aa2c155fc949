import CatalogModel
import Foundation
import StateRestoration
import Testing

@testable import CatalogCore
@testable import LineEditing

@Suite struct NavigationAndSceneTests {
  @Test func selectSetsAOneElementPathAndMirrorsTheProduct() throws {
    let (state, _) = try run(["select mango", "select cher", "tab photo"])
    let scene = state.activeScene
    #expect(
      scene.path.routes == [.product(UUID(uuidString: "FA542E3D-4895-44B6-942F-E112101D5160")!)])
    #expect(scene.storage[SceneKeys.selectedProduct] == "FA542E3D-4895-44B6-942F-E112101D5160")
    #expect(scene.selectedTab == .photo)
    let json = String(
      decoding: try #require(scene.storage[SceneKeys.navigationState]), as: UTF8.self)
    #expect(json == #"["Foundation.UUID","\"FA542E3D-4895-44B6-942F-E112101D5160\""]"#)
    #expect(Describe.prompt(for: state) == "main › Cherries [photo] › ")
  }

  @Test func backAndRootPopThePath() throws {
    let (state, _) = try run(["select cher", "back"])
    #expect(state.activeScene.path.routes.isEmpty)
    #expect(state.activeScene.storage[SceneKeys.selectedProduct] == nil)
    #expect(throws: CatalogCoreError.cannotGoBack(requested: 1, depth: 0)) { try run(["back"]) }
    #expect(throws: CatalogCoreError.cannotGoBack(requested: 3, depth: 1)) {
      try run(["select 1", "back 3"])
    }
    #expect(try run(["select 1", "root"]).state.activeScene.path.routes.isEmpty)
  }

  @Test func scenesKeepTheirOwnStateAndTheActiveOne() throws {
    let environment = FakeEnvironment()
    let (state, _) = try run(
      ["select cher", "tab photo", "scene new side mango", "scene switch main"],
      environment: environment)
    #expect(environment.claimed == [SceneName("side")!])
    #expect(state.scenes.map(\.name.rawValue) == ["main", "side"])
    #expect(state.activeSceneName == .main)
    #expect(
      state.scene(named: "side")?.path.topProduct
        == UUID(uuidString: "3F6624CC-5105-492C-A307-235E78AAC4BC"))
    #expect(state.scene(named: "side")?.selectedTab == .detail)
    #expect(state.activeScene.selectedTab == .photo)
    #expect(state.scenes.map(\.phase) == [.active, .inactive])
  }

  @Test func closingTheActiveSceneActivatesThePreviousOne() throws {
    let (state, output) = try run(["scene new a", "scene new b", "scene close"])
    #expect(state.scenes.map(\.name.rawValue) == ["main", "a"])
    #expect(state.activeSceneName.rawValue == "a")
    #expect(output == "Closed scene 'b'. Scene 'a' is active.")
  }

  @Test func closingTheLastSceneLeavesAFreshMain() throws {
    let (state, _) = try run(["select cher", "scene close main"])
    #expect(state.scenes.map(\.name) == [.main])
    #expect(state.activeScene.storage.isEmpty)
  }

  @Test func sceneErrorsNameTheScene() throws {
    let environment = FakeEnvironment()
    environment.ownedElsewhere = [SceneName("busy")!]
    #expect(throws: CatalogCoreError.sceneOwned("busy", pid: 42)) {
      try run(["scene new busy"], environment: environment)
    }
    #expect(throws: CatalogCoreError.sceneAlreadyOpen("main")) { try run(["scene new main"]) }
    #expect(throws: CatalogCoreError.noSuchScene("nope", open: ["main"])) {
      try run(["scene switch nope"])
    }
    #expect(throws: CatalogCoreError.invalidSceneName("../x")) { try run(["scene new ../x"]) }
  }
}

@Suite struct CommandParserTests {
  @Test(arguments: [
    ("list", Command.list(.page(1))), ("list 3", .list(.page(3))), ("list --all", .list(.all)),
    ("activities", .activities(page: 1)), ("forget 2", .forget(.number(2))),
    ("forget red rose", .forget(.product("red rose"))), ("forget --all", .forget(.all)),
    ("  select  red rose ", .select("red rose")), ("back", .back(1)),
    ("back 2", .back(2)),
    ("TAB Photo", .tab(.photo)), ("scene new side 9", .newScene(SceneName("side")!, product: "9")),
    ("scene close", .closeScene(nil)), ("help select", .help("select")), ("exit", .quit),
    ("name  A  B ", .setName("A B")), ("name \"A  B\"", .setName("A  B")),
  ])
  func parsesCommands(_ line: String, _ command: Command) throws {
    #expect(try CommandParser.parse(line) == command)
  }

  @Test(arguments: ["", "   ", "# a comment", "  # indented comment"])
  func blankLinesAndCommentsAreSkipped(_ line: String) throws {
    #expect(try CommandParser.parse(line) == nil)
  }

  @Test(arguments: [
    ("frobnicate", "unknown command 'frobnicate'; type 'help' for the list"),
    ("selct cher", "unknown command 'selct'; did you mean 'select'?"),
    // Two neighbours swapped is one slip of the fingers, as one letter left out is.
    ("lsit", "unknown command 'lsit'; did you mean 'list'?"),
    ("slect cher", "unknown command 'slect'; did you mean 'select'?"),
    ("select", "missing argument; usage: select PRODUCT"),
    ("list all", "'all' is not a page number from 1 (list [PAGE] | list --all)"),
    ("tab video", "'video' is not a tab; use 'tab detail' or 'tab photo'"),
    ("back -1", "'-1' is not a positive number of steps"),
    (
      "scene",
      "missing argument; usage: scene new NAME [PRODUCT] | scene switch NAME | scene open NAME | scene close [NAME] [--discard]"
    ),
    ("scene swtich a", "'swtich' is not a scene action; did you mean 'scene switch'?"),
    ("select \u{1B}[A", "the line contains the control character U+001B; remove it and try again"),
  ])
  func badLinesGiveOneLineErrors(_ line: String, _ message: String) {
    do {
      _ = try CommandParser.parse(line)
      Issue.record("parsed '\(line)'")
    } catch {
      #expect(error.localizedDescription == message)
      #expect(!message.contains("\n"))
    }
  }

  /// The words help shows are the words the parser knows, completion completes and a typo is
  /// matched against: `image` was parsed and in help, but neither completed nor suggested.
  @Test func everyCommandInHelpIsParsedCompletedAndSuggested() throws {
    let state = AppState(
      catalog: bundledCatalog, scenes: [Scene(name: .main)], activeSceneName: .main)
    for word in CommandParser.commandWords {
      #expect(try Help.text(for: word).contains("usage:"))
      do {
        _ = try CommandParser.parse(word)
      } catch CatalogCoreError.unknownCommand {
        Issue.record("'\(word)' is in help but not parsed")
      } catch {}
      let line = Array(word.dropLast())
      #expect(
        Completion.complete(line, cursor: line.count, state: state).candidates.contains(word),
        "'\(word)' is not completed")
    }
    #expect(throws: CatalogCoreError.unknownCommand("imgae", suggestion: "image")) {
      try CommandParser.parse("imgae cherries.png")
    }
  }
}

@Suite struct HelpTests {
  @Test(arguments: [80, 60, 120])
  func helpFitsTheWidth(_ width: Int) throws {
    for topic in [nil, "scene new", "done", "exit", "forget"] as [String?] {
      let text = try Help.text(for: topic, width: width)
      for line in text.split(separator: "\n") {
        #expect(DisplayWidth.of(String(line)) <= width, "\(topic ?? "help"): \(line)")
      }
    }
  }

  @Test func helpTakesMultiWordCommandsAndListsExit() throws {
    #expect(try Help.text(for: "scene new").hasPrefix("usage: scene new NAME [PRODUCT]"))
    #expect(try Help.text(for: "exit").hasPrefix("usage: quit · exit"))
    #expect(try Help.text(for: nil).contains("quit · exit"))
  }

  @Test func searchInTheEditorDoesNotOfferContinue() throws {
    let (_, editing) = try run(["select cher", "edit", "search mango"])
    #expect(editing.hasSuffix(Describe.continueHintWhileEditing))
    let (_, browsing) = try run(["select cher", "search mango"])
    #expect(browsing.hasSuffix(Describe.continueHint))
  }
}

/// One quoting rule for every command's arguments (SPEC section 4).
@Suite struct QuotingTests {
  @Test(arguments: [
    ("select \"Red Rose\"", Command.select("Red Rose")),
    ("select 'red rose'", .select("red rose")),
    ("select Red\\ Rose", .select("Red Rose")),
    ("name \"Quoted Name\"", .setName("Quoted Name")),
    ("name Cherries \"Noires\"", .setName("Cherries Noires")),
    ("name \"say \\\"hi\\\"\"", .setName("say \"hi\"")),
    ("name 'it\\s'", .setName("it\\s")),
    ("name O\\'Brien", .setName("O'Brien")),
    ("name \"O'Brien\"", .setName("O'Brien")),
    ("add \"Kiwi  Gold\"", .add("Kiwi  Gold")),
    ("delete 'white rose'", .delete("white rose")),
    ("scene new side \"red rose\"", .newScene(SceneName("side")!, product: "red rose")),
    ("search \"golden mango\"", .search("\"golden mango\"")),
  ])
  func argumentsFollowOneRule(_ line: String, _ command: Command) throws {
    #expect(try CommandParser.parse(line) == command)
  }

  @Test(arguments: ["name \"", "select 'red rose", "name O'Brien"])
  func anUnclosedQuoteIsAnError(_ line: String) {
    #expect(throws: CatalogCoreError.self) { try CommandParser.parse(line) }
  }

  @Test func emptyQuotesAreNoName() {
    #expect(throws: CatalogCoreError.missingArgument(usage: "name TEXT")) {
      try CommandParser.parse("name \"\"")
    }
  }
}

@Suite struct TableTests {
  @Test func tablesAlignByDisplayWidth() {
    let table = Table.render(rows: [["樱桃", "x"], ["Mango", "y"]])
    #expect(table == "樱桃   x\nMango  y")
  }
}
