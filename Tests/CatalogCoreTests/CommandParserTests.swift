import CatalogModel
import Foundation
import StateRestoration
import Testing

@testable import CatalogCore
@testable import LineEditing

@Suite struct CommandParserTests {
  @Test(arguments: [
    ("list", Command.list(.page(1))), ("list 3", .list(.page(3))), ("list --all", .list(.all)),
    ("activities", .activities(page: 1)), ("forget 2", .forget(.number(2))),
    ("forget red rose", .forget(.product("red rose"))), ("forget --all", .forget(.all)),
    ("  select  red rose ", .select("red rose")), ("back", .back(1)),
    ("back 2", .back(2)),
    ("TAB Photo", .tab(.photo)), ("scene new side 9", .newScene(SceneName("side"), product: "9")),
    ("scene close", .closeScene(nil)), ("help select", .help("select")), ("exit", .quit),
    ("name  A  B ", .setName("A B")), ("name \"A  B\"", .setName("A  B")),
    ("continue 2 --scene side", .continueResult(2, scene: "side")),
    ("continue --scene side 2", .continueResult(2, scene: "side")),
    ("continue --elsewhere 3", .continueElsewhere(3)), ("year 2015 2", .year("2015 2")),
    ("continue 3 --elsewhere", .continueElsewhere(3)),
    ("scene close side --discard", .closeScene("side", discard: true)),
    ("scene open side", .switchScene("side")), ("forget 0", .forget(.product("0"))),
    ("activities --elsewhere", .activitiesElsewhere), ("done --force", .done(force: true)),
  ])
  func parsesCommands(_ line: String, _ command: Command) throws {
    #expect(try CommandParser.parse(line) == command)
  }

  /// What a command names its product by, which a command from the shell reads with the
  /// catalog's state when it is a number or an identifier; commands that name no product, or
  /// name an entry of a listing by number, give none.
  @Test(arguments: [
    ("select 42", "42"), ("push  7 ", "7"), ("delete red rose", "red rose"), ("list 3", nil),
    ("forget 2", nil), ("continue 2", nil), ("back 2", nil),
  ])
  func namesItsProduct(_ line: String, _ product: String?) throws {
    #expect(try CommandParser.parse(line)?.namedProduct == product)
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
    ("year 2015 2 3", "unexpected argument '3'; usage: year YYYY [PAGE]"),
    ("continue 1 --scene", "missing argument; usage: continue N [--scene NAME]"),
    ("continue x", "'x' is not a result number from 'search'"),
    ("forget", "missing argument; usage: forget N | forget PRODUCT | forget --all"),
    ("done now", "unexpected argument 'now'; usage: done [--force]"),
    ("forget red --all", "unexpected argument 'red'; usage: forget --all"),
    ("scene close \"\" --discard", "missing argument; usage: scene close [NAME] [--discard]"),
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

  /// A command's errors quote the usage its table entry declares, the one help shows, or one
  /// of its forms: no parser writes its own.
  @Test func errorsQuoteTheUsageHelpShows() throws {
    var quoted = 0
    for entry in CommandTable.groups.flatMap(\.entries) where entry.build != nil {
      let word = try #require(entry.words.first)
      for arguments in ["", "1 2 --unknown \"x\""] {
        do {
          _ = try CommandParser.parse("\(word) \(arguments)")
        } catch CatalogCoreError.missingArgument(let usage),
          CatalogCoreError.unexpectedArgument(_, let usage)
        {
          let forms = entry.usage.components(separatedBy: " | ")
          #expect(usage == entry.usage || forms.contains(usage), "'\(word) \(arguments)'")
          quoted += 1
        } catch {}
      }
    }
    #expect(quoted > 10)
    #expect(throws: CatalogCoreError.missingArgument(usage: "year YYYY [PAGE]")) {
      try CommandParser.parse("year")
    }
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
    // An apostrophe inside a word is one; a quote opens a word.
    ("name O'Brien", .setName("O'Brien")),
    ("add Baker's Dozen", .add("Baker's Dozen")),
    ("add \"Kiwi  Gold\"", .add("Kiwi  Gold")),
    ("delete 'white rose'", .delete("white rose")),
    ("scene new side \"red rose\"", .newScene(SceneName("side"), product: "red rose")),
    ("search \"golden mango\"", .search("\"golden mango\"")),
  ])
  func argumentsFollowOneRule(_ line: String, _ command: Command) throws {
    #expect(try CommandParser.parse(line) == command)
  }

  @Test(arguments: ["name \"", "select 'red rose", "name Kiwi 'Gold"])
  func anUnclosedQuoteIsAnError(_ line: String) {
    #expect(throws: CatalogCoreError.self) { try CommandParser.parse(line) }
  }

  @Test func emptyQuotesAreNoName() {
    #expect(throws: CatalogCoreError.missingArgument(usage: "name TEXT")) {
      try CommandParser.parse("name \"\"")
    }
  }
}
