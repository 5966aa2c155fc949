import Testing

@testable import CatalogApp

/// The command line's option table is the one declaration: the parser takes every option it
/// lists, with each of its choices, and the help and every completion script offer them.
@Suite struct CommandLineOptionTableTests {
  /// The arguments that give an option a place: `export`'s and `import`'s options with their
  /// command.
  static func arguments(for option: CommandLineOption, value: String?) -> [String] {
    let given = [option.name] + (value.map { [$0] } ?? [])
    switch option.name {
    case "--format", "--bom": return ["export"] + given
    case "--replace", "--duplicates", "--restore-deleted": return ["import"] + given + ["f.json"]
    case "--limit", "--json": return ["search", "rose"] + given
    default: return given
    }
  }

  @Test(arguments: CommandLineOptions.table.map(\.name))
  func everyOptionIsParsedHelpedAndCompleted(_ name: String) throws {
    let option = try #require(CommandLineOptions.table.first { $0.name == name })
    let values: [String?]
    switch option.value {
    case .none: values = [nil]
    case .choices(let choices): values = choices
    case .scene: values = ["side"]
    case .directory: values = ["/tmp"]
    case .text: values = [name == "--limit" ? "5" : "postgresql://db/shop"]
    }
    for value in values {
      _ = try CommandLineOptions(Self.arguments(for: option, value: value))
    }
    if case .choices = option.value {
      #expect(throws: CommandLineError.self) {
        _ = try CommandLineOptions(Self.arguments(for: option, value: "nonsense"))
      }
    }
    if !option.help.isEmpty {
      #expect(
        CommandLineOptions.usage.contains("  " + (option.short.map { $0 + ", " } ?? "") + name))
    }
    for shell in CompletionScripts.shells {
      let script = try #require(CompletionScripts.script(for: shell))
      #expect(script.contains(shell == "fish" ? "-l " + name.dropFirst(2) : name), "\(shell)")
    }
  }
}

/// Options anywhere (SPEC section 8): after a one-shot REPL command's words, an option of the
/// process is read as one, and a flag the command declares stays the command's.
@Suite struct OneShotCommandOptionTests {
  @Test func optionsAfterACommandsWordsAreTheProcesss() throws {
    let options = try CommandLineOptions(["list", "2", "--data-dir", "D", "--state-dir=S"])
    #expect(options.action == .repl(command: "list 2"))
    #expect(options.dataDirectory == "D")
    #expect(options.stateDirectory == "S")
  }

  @Test func aCommandsOwnFlagsStayItsWords() throws {
    let options = try CommandLineOptions(["continue", "1", "--scene", "side", "--data-dir", "D"])
    #expect(options.action == .repl(command: "continue 1 --scene side"))
    #expect(options.scene == nil)
    #expect(options.dataDirectory == "D")
    let listing = try CommandLineOptions(["--scene", "side", "list", "--all"])
    #expect(listing.action == .repl(command: "list --all"))
    #expect(listing.scene?.rawValue == "side")
  }

  @Test func wordsThatLookLikeOptionsButAreNoneStayTheCommands() throws {
    #expect(try CommandLineOptions(["back", "-1"]).action == .repl(command: "back -1"))
    #expect(
      try CommandLineOptions(["select", "Red Rose"]).action
        == .repl(command: "select \"Red Rose\""))
  }

  @Test func anOptionOfAnotherCommandIsStillRefused() {
    #expect(throws: CommandLineError.self) { try CommandLineOptions(["list", "--json"]) }
  }
}
