import CatalogModel
import CatalogTestSupport
import Foundation
import LineEditing
import StateRestoration
import TestSupport
import Testing

@testable import CatalogCore

@Suite struct CompletionTests {
  static let state = AppState(
    catalog: bundledCatalog,
    scenes: [Scene(name: .main), Scene(name: SceneName("side"))],
    activeSceneName: .main)

  @Test(arguments: [
    ("se", ["select", "search"]),
    ("sc", ["scenes", "scene"]),
    ("select red", ["Red Rose"]),
    ("select ", bundledProducts.map(\.name).sorted()),
    ("push gl", ["Gladiolus"]),
    ("push GLA", ["Gladiolus"]),
    ("scene ", ["new", "switch", "open", "close"]),
    ("scenes --a", ["--all"]),
    ("scene sw", ["switch"]),
    ("scene switch s", ["side"]),
    ("scene close ", ["main", "side"]),
    ("scene new side ma", ["Mango"]),
    ("handoff s", ["side"]),
    ("tab p", ["photo"]),
    ("help con", ["continue"]),
    ("path -", ["--codable"]),
    ("list --a", ["--all"]),
    ("done --f", ["--force"]),
    ("scene close side --d", ["--discard"]),
    // Only the form's own flags: `scene new` has none.
    ("scene new side --", []),
    ("forget --", ["--all"]),
    ("forget gl", ["Gladiolus"]),
    ("continue 1 --", ["--scene", "--elsewhere"]),
    ("continue 1 --scene ", ["main", "side"]),
    ("continue 1 --scene si", ["side"]),
    ("handoff --t", ["--to-machine"]),
    ("activities -", ["--elsewhere"]),
    ("open catalog://pro", ["catalog://products", "catalog://product/"]),
    ("open catalog://product/red", ["catalog://product/Red%20Rose"]),
    ("open catalog://scene/", ["catalog://scene/main/", "catalog://scene/side/"]),
    (
      "open c",
      [
        "catalog://products", "catalog://product/", "catalog://year/", "catalog://search?q=",
        "catalog://scene/",
      ]
    ),
    ("list ", ["--all"]),
  ])
  func completesByContext(line: String, expected: [String]) {
    let result = Completion.complete(Array(line), cursor: line.count, state: Self.state)
    #expect(result.candidates == expected)
  }

  /// A completed name with quotes or a backslash is inserted quoted, as the parser reads it
  /// back: the command it makes selects that product.
  @Test(arguments: [
    ("select fish", #"Fish "n" chips"#, #""Fish \"n\" chips" "#),
    ("select o'", "O'Brien", #""O'Brien" "#),
    ("select \"o'b", "O'Brien", #""O'Brien" "#),
    ("select back", #"Back\slash"#, #""Back\\slash" "#),
  ])
  func completesANameWithQuotesAsAWordTheParserReadsBack(
    _ line: String, _ name: String, _ inserted: String
  ) throws {
    var products = bundledProducts
    products[0].name = name
    let state = AppState(
      catalog: Catalog(products), scenes: [Scene(name: .main)], activeSceneName: .main)
    let result = Completion.complete(Array(line), cursor: line.count, state: state)
    #expect(result.replacement == inserted, "\(result.candidates)")
    let completed = String(Array(line)[..<result.start]) + (result.replacement ?? "")
    #expect(try CommandParser.parse(completed) == .select(name))
  }

  /// A scene name in quotes is one word: `scene new "my scene"` is one (invalid) name, not a
  /// name and a product.
  @Test func sceneArgumentsFollowTheQuotingRule() {
    #expect(throws: CatalogCoreError.invalidSceneName("my scene")) {
      try CommandParser.parse(#"scene new "my scene""#)
    }
    #expect(
      (try? CommandParser.parse(#"scene new side "Red Rose""#))
        == .newScene(SceneName("side"), product: "Red Rose"))
    #expect(
      (try? CommandParser.parse("scene close 'side' --discard"))
        == .closeScene("side", discard: true))
  }

  @Test func replacesTheWordWithTheCommonPrefix() {
    let roses = Completion.complete(Array("open catalog://pro"), cursor: 18, state: Self.state)
    #expect(roses.replacement == "catalog://product")
    let one = Completion.complete(Array("select mang"), cursor: 11, state: Self.state)
    #expect(one.start == 7 && one.replacement == "Mango ")
    let scene = Completion.complete(Array("open catalog://scene/si"), cursor: 23, state: Self.state)
    #expect(scene.replacement == "catalog://scene/side/")
  }
}

extension CompletionTests {
  @Test func mistypedScenesGetASuggestion() throws {
    let state = try run(["scene new side"]).state
    let error = #expect(throws: CatalogCoreError.self) {
      try run(["scene switch sidd"], from: state)
    }
    #expect(error?.localizedDescription == "no open scene named 'sidd'; did you mean 'side'?")
    let far = #expect(throws: CatalogCoreError.self) {
      try run(["scene switch elsewhere"], from: state)
    }
    #expect(far?.localizedDescription == "no open scene named 'elsewhere'; open scenes: main, side")
  }
}

extension CompletionTests {
  /// A terminal completing as the REPL does, on the bundled catalog.
  private func terminal() -> FakeTerminal {
    FakeTerminal(complete: { Completion.complete($0, cursor: $1, state: Self.state) })
  }

  @Test func completesCommandsAndProducts() {
    var terminal = terminal()
    terminal.type("sel\t")
    #expect(terminal.text == "select ")
    terminal.type("che\t")
    #expect(terminal.text == "select Cherries ")
  }

  @Test func aSecondTabListsCandidatesInColumns() {
    var terminal = terminal()
    terminal.type("s\t")
    #expect(terminal.text == "s")
    #expect(terminal.output.hasSuffix("\u{07}"))
    terminal.type("\t")
    #expect(terminal.output.contains("select  search  scenes  scene   state"))
    #expect(terminal.text == "s")
  }
}

/// One quoting function, the inverse of the parser's quoting rule.
extension CompletionTests {
  @Test(arguments: [
    "Red Rose", "Red  Rose", " Red", "Red\tRose", "Red\u{A0}Rose", "Fish \"n\" chips", "O'Brien",
    #"Back\slash"#, "", "line\nbreak", "樱桃 tart",
  ])
  func quotedTextReadsBackAsItself(_ text: String) throws {
    #expect(try CommandParser.unquoted(CommandParser.quoted(text)) == text)
    #expect(try CommandParser.words(CommandParser.quoted(text, asOneWord: true)) == [text])
  }
}

extension CompletionTests {
  /// Every argument help names that completion can offer is declared in the table: a usage
  /// that names a product, a scene, a link or a command declares it.
  @Test func theTableDeclaresWhatEachUsageNames() {
    for entry in CommandTable.groups.flatMap(\.entries) where !entry.words.isEmpty {
      let declared =
        entry.arguments + entry.actions.flatMap(\.arguments) + Array(entry.flagValues.values)
      for (placeholder, kind) in [
        ("PRODUCT", ArgumentKind.product), ("SCENE", .scene), ("URL", .link), ("COMMAND", .command),
      ] where entry.usage.contains(placeholder) {
        #expect(declared.contains(kind), "\(entry.words[0]) names \(placeholder)")
      }
    }
  }
}

/// Completion in a catalog with more names than are offered at once.
extension CompletionTests {
  /// 150 Golden Almonds, 100 Golden Mangos and two products named Cherries.
  static let large: AppState = {
    let names =
      (1...150).map { "Golden Almond \($0)" } + (1...100).map { "Golden Mango \($0)" }
      + ["Cherries", "Cherries"]
    let products = names.enumerated().map { offset, name in
      Product(
        identifier: UUID(), name: name, imageName: "", year: 2000, price: Price(cents: 100 + offset)
      )
    }
    return AppState(
      catalog: Catalog(products), scenes: [Scene(name: .main)], activeSceneName: .main)
  }()

  @Test func completesToWhatEveryMatchSharesNotWhatTheFirstOnesDo() {
    let golden = Completion.complete(Array("select gol"), cursor: 10, state: Self.large)
    #expect(golden.candidates.count == Completion.nameLimit)
    #expect(golden.total == 250)
    #expect(golden.replacement == "Golden ")
    let almond = Completion.complete(Array("select golden a"), cursor: 15, state: Self.large)
    #expect(almond.total == 150 && almond.replacement == "Golden Almond ")
    let everything = Completion.complete(Array("select "), cursor: 7, state: Self.large)
    #expect(everything.total == 252 && everything.replacement == "")
  }

  @Test func productsOfOneNameAreListedWithTheirNumbers() {
    let result = Completion.complete(Array("select che"), cursor: 10, state: Self.large)
    #expect(result.candidates == ["Cherries"])
    #expect(result.listing == ["Cherries (#251)", "Cherries (#252)"])
    #expect(result.note == "(#N) is a list number: type it in place of the name.")
    // Tab inserts the name, not a space after it: a number tells them apart.
    #expect(result.replacement == "Cherries")
  }

  @Test func aSecondTabListsAScreenfulAndCountsTheRest() {
    var terminal = FakeTerminal(
      columns: 40, rows: 6, complete: { Completion.complete($0, cursor: $1, state: Self.large) })
    terminal.type("select gol\t")
    #expect(terminal.text == "select Golden ")
    terminal.type("\t")
    let listing = terminal.output.components(separatedBy: "\r\n").dropFirst()
    // Four rows of two columns (six rows less the count's and the prompt's), then the count.
    #expect(listing.first == "Golden Almond 1    Golden Almond 102")
    #expect(listing.contains("… and 242 more; type more to narrow them"))
    #expect(listing.filter { $0.hasPrefix("Golden") }.count == 4)
    #expect(terminal.output.contains("Golden Almond 105") && !terminal.output.contains("106"))
  }
}
