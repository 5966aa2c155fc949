import CatalogModel
import Foundation
import StateRestoration
import Testing

@testable import CatalogCore
@testable import LineEditing

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

/// The command table is the one source of the vocabulary: every word help shows parses, its
/// example parses to a command that names the same word, and completion offers every word.
@Suite struct CommandTableTests {
  @Test func everyRowsExampleParsesToACommandOfItsWord() throws {
    for entry in CommandTable.groups.flatMap(\.entries) {
      let command = try #require(try CommandParser.parse(entry.example), "\(entry.example)")
      let word = String(entry.example.split(separator: " ")[0])
      #expect(command.word == word || entry.words.isEmpty, "\(entry.example) → \(command.word)")
    }
  }

  /// Usage is made from the forms each entry declares, so help shows what the parser reads.
  @Test(arguments: [
    ("list", "list [PAGE] | list --all"),
    ("continue", "continue N [--scene NAME] | continue --elsewhere N"),
    ("forget", "forget N | forget PRODUCT | forget --all"),
    (
      "scene",
      "scene new NAME [PRODUCT] | scene switch NAME | scene open NAME | scene close [NAME] [--discard]"
    ),
    ("tab", "tab detail|photo"), ("quit", "quit · exit"), ("year", "year YYYY [PAGE]"),
  ])
  func usageIsMadeFromTheDeclaredForms(_ word: String, _ usage: String) throws {
    #expect(try #require(CommandTable.entry(for: word)).usage == usage)
  }

  @Test func everyWordHasAParserAndIsCompleted() {
    for word in CommandTable.words {
      #expect(CommandTable.entry(for: word)?.build != nil, "\(word)")
      let state = AppState(
        catalog: bundledCatalog, scenes: [Scene(name: .main)], activeSceneName: .main)
      let completed = Completion.complete(Array(word), cursor: word.count, state: state)
      #expect(completed.candidates.contains(word), "\(word)")
    }
  }
}
