import StateRestoration

/// One row of the command table: a command word (and its aliases), how help shows it, and how
/// its arguments become a ``Command``. A word's first row with a parser is the one the parser
/// uses; a row without words is help alone (the editor's `year YYYY`).
struct CommandEntry: Sendable {
  /// The word, then its aliases; none for a row of help alone.
  let words: [String]
  /// The usage help shows.
  let usage: String
  /// What the command does, for help.
  let summary: String
  /// An example, for `help COMMAND`.
  let example: String
  /// Turns the arguments into the command; nil for a row of help alone.
  var parse: (@Sendable (CommandArguments) throws -> Command)?
  /// What each argument is, in order, for completion; a product's name takes the rest of
  /// the line.
  var arguments: [ArgumentKind] = []
  /// For a command of several actions (`scene new`, `scene switch`…), each action's word and
  /// its arguments, in the order help shows them.
  var actions: [(word: String, arguments: [ArgumentKind])] = []
  /// What a flag takes, by flag (`--scene` a scene's name).
  var flagValues: [String: ArgumentKind] = [:]

  /// The flags the usage names (`--all`, `--force`), in order: what completion offers.
  var flags: [String] { Self.flags(in: usage) }

  /// The flags a usage text names, each once, in order.
  static func flags(in usage: some StringProtocol) -> [String] {
    var flags: [String] = []
    for word in usage.split(whereSeparator: { " []|".contains($0) }) where word.hasPrefix("--") {
      if !flags.contains(String(word)) { flags.append(String(word)) }
    }
    return flags
  }
}

/// What a command's argument is: what completion offers for it.
enum ArgumentKind: Sendable, Equatable {
  /// A product's name (or number): the rest of the line.
  case product
  /// An open or saved scene's name.
  case scene
  /// A `catalog://` link.
  case link
  /// A command's word.
  case command
  /// One of some words.
  case choice([String])
  /// Anything (a number, a new name): nothing to offer.
  case text
}

/// A command's arguments: as typed after the word, and as the quoting rule reads them.
struct CommandArguments: Sendable {
  /// The arguments as typed, trimmed (a search keeps its quotes, which mark phrases).
  let raw: String
  /// The arguments unquoted (`select "Red Rose"` → `Red Rose`).
  let rest: String
  /// The command's usage, as its entry declares it, for the errors its parser throws.
  var usage = ""
}

/// The REPL's commands, grouped by task: the one table from which the parser, help, completion,
/// typo suggestions and the shell's completion scripts all take their words.
enum CommandTable {
  static let groups: [(title: String, entries: [CommandEntry])] = [
    (
      "Browse",
      [
        CommandEntry(
          words: ["list"], usage: "list [PAGE] | list --all",
          summary: "show a page of the products (number, name, year, price), or every one",
          example: "list 2",
          parse: { arguments in
            if arguments.rest == "--all" { return .list(.all) }
            return .list(.page(try page(arguments.rest, usage: arguments.usage) ?? 1))
          }),
        CommandEntry(
          words: ["select"], usage: "select PRODUCT",
          summary: "show a product's detail (by number, UUID, or name prefix)",
          example: "select cher",
          parse: { .select(try required($0.rest, usage: $0.usage)) }, arguments: [.product]),
        CommandEntry(
          words: ["push"], usage: "push PRODUCT",
          summary: "push a product's detail onto the path", example: "push mango",
          parse: { .push(try required($0.rest, usage: $0.usage)) }, arguments: [.product]),
        CommandEntry(
          words: ["year"], usage: "year YYYY [PAGE]",
          summary:
            "push the list of a year's products, or show its next page (in the editor: set the draft year)",
          example: "year 2015",
          parse: { .year(try required($0.rest, usage: $0.usage)) }),
        CommandEntry(
          words: ["path"], usage: "path [--codable]",
          summary: "show the navigation path, or its saved JSON", example: "path --codable",
          parse: { arguments in
            switch arguments.rest {
            case "": return .path(codable: false)
            case "--codable": return .path(codable: true)
            default:
              throw CatalogCoreError.unexpectedArgument(arguments.rest, usage: arguments.usage)
            }
          }),
        CommandEntry(
          words: ["open"], usage: "open URL",
          summary: "follow a catalog:// link, e.g. products, product/ID, year/YYYY, scene/NAME/…",
          example: "open catalog://product/Cherries?tab=photo",
          parse: { .open(try required($0.rest, usage: $0.usage)) }, arguments: [.link]),
        CommandEntry(
          words: ["tab"], usage: "tab detail|photo", summary: "switch the detail tab",
          example: "tab photo",
          parse: { arguments in
            let name = try required(arguments.rest, usage: arguments.usage)
            guard let tab = Tabs(rawValue: name.lowercased()) else {
              throw CatalogCoreError.invalidArgument(
                name, expected: "a tab; use 'tab detail' or 'tab photo'")
            }
            return .tab(tab)
          }, arguments: [.choice(Tabs.allCases.map(\.rawValue))]),
        CommandEntry(
          words: ["back"], usage: "back [N]", summary: "go back N steps (default 1)",
          example: "back",
          parse: { arguments in
            let rest = arguments.rest
            guard !rest.isEmpty else { return .back(1) }
            guard let count = Int(rest), count > 0, rest.allSatisfy(\.isASCII) else {
              throw CatalogCoreError.invalidArgument(rest, expected: "a positive number of steps")
            }
            return .back(count)
          }),
        CommandEntry(
          words: ["root"], usage: "root", summary: "go back to the product list", example: "root",
          parse: { try noArguments(.root, $0.rest, usage: $0.usage) }),
      ]
    ),
    (
      "Edit",
      [
        CommandEntry(
          words: ["edit"], usage: "edit", summary: "open the editor for the product shown",
          example: "edit",
          parse: { try noArguments(.edit, $0.rest, usage: $0.usage) }),
        CommandEntry(
          words: ["name"], usage: "name TEXT", summary: "in the editor: change the draft name",
          example: "name Morello",
          parse: { .setName(try required($0.rest, usage: $0.usage)) }),
        CommandEntry(
          words: [], usage: "year YYYY",
          summary: "in the editor: change the draft year (1900–2100)", example: "year 2016"),
        CommandEntry(
          words: ["price"], usage: "price X",
          summary: "in the editor: change the draft price (at most two decimals)",
          example: "price 11.49",
          parse: { .setPrice(try required($0.rest, usage: $0.usage)) }),
        CommandEntry(
          words: ["image"], usage: "image PATH",
          summary: "in the editor: the picture, a PNG or JPEG file (or a bundled picture's name)",
          example: "image ~/photos/cherries.jpg",
          parse: { .setImage(try required($0.rest, usage: $0.usage)) }),
        CommandEntry(
          words: ["done"], usage: "done [--force]",
          summary:
            "in the editor: validate and save the fields the draft changed; --force saves them over another process's change",
          example: "done",
          parse: { arguments in
            guard arguments.rest.isEmpty || arguments.rest == "--force" else {
              throw CatalogCoreError.unexpectedArgument(arguments.rest, usage: arguments.usage)
            }
            return .done(force: !arguments.rest.isEmpty)
          }),
        CommandEntry(
          words: ["cancel"], usage: "cancel", summary: "in the editor: discard the draft",
          example: "cancel",
          parse: { try noArguments(.cancel, $0.rest, usage: $0.usage) }),
        CommandEntry(
          words: ["add"], usage: "add NAME",
          summary: "open the editor on a new product; 'done' adds it to the catalog",
          example: "add Kiwi",
          parse: { .add(try required($0.rest, usage: $0.usage)) }),
        CommandEntry(
          words: ["delete"], usage: "delete PRODUCT",
          summary: "delete a product, its saved activities, and its place in every path",
          example: "delete kiwi",
          parse: { .delete(try required($0.rest, usage: $0.usage)) }, arguments: [.product]),
      ]
    ),
    (
      "Search and continue",
      [
        CommandEntry(
          words: ["search"], usage: "search QUERY",
          summary: "find products and viewed activities: prefixes, \"phrases\", 樱桃, one typo",
          example: "search cher",
          parse: { .search(try required($0.raw, usage: $0.usage)) }),
        CommandEntry(
          words: ["continue"], usage: "continue N [--scene NAME] | continue --elsewhere N",
          summary:
            "continue search result N in this scene, or in scene NAME (another terminal's too), or activity N another machine handed off",
          example: "continue 1",
          parse: { try parseContinue($0.rest, usage: $0.usage) }, arguments: [.text],
          flagValues: ["--scene": .scene]
        ),
        CommandEntry(
          words: ["activities"], usage: "activities [PAGE] | activities --elsewhere",
          summary:
            "the saved activity history, newest first: title, product, when; or what your other machines handed off",
          example: "activities",
          parse: { arguments in
            if arguments.rest == "--elsewhere" { return .activitiesElsewhere }
            return .activities(page: try page(arguments.rest, usage: arguments.usage) ?? 1)
          }),
        CommandEntry(
          words: ["forget"], usage: "forget N | forget PRODUCT | forget --all",
          summary: "delete saved activities: entry N of 'activities', a product's, or all",
          example: "forget 1",
          parse: { arguments in
            let target = try required(
              arguments.rest, usage: arguments.usage)
            if target == "--all" { return .forget(.all) }
            if let number = Int(target), number > 0, target.allSatisfy(\.isASCII) {
              return .forget(.number(number))
            }
            return .forget(.product(target))
          }, arguments: [.product]),
        CommandEntry(
          words: ["handoff"], usage: "handoff SCENE | handoff --to-machine",
          summary:
            "continue this scene's activity in another scene (opened if needed), also one another terminal has open, or on your other machines (a catalog on a server)",
          example: "handoff side",
          parse: { arguments in
            if arguments.rest == "--to-machine" { return .handoffToMachine }
            let name = try required(arguments.rest, usage: arguments.usage)
            guard SceneName(name) != nil else { throw CatalogCoreError.invalidSceneName(name) }
            return .handoff(name)
          }, arguments: [.scene]),
      ]
    ),
    (
      "Scenes",
      [
        CommandEntry(
          words: ["scenes"], usage: "scenes [--all]",
          summary:
            "list the scenes: this terminal's (* marks the active one), other terminals' with their process and terminal, and closed ones; --all adds scene files the session lost and when each was saved",
          example: "scenes",
          parse: { arguments in
            if arguments.rest == "--all" { return .scenes(all: true) }
            return try noArguments(.scenes(), arguments.rest, usage: arguments.usage)
          }),
        CommandEntry(
          words: ["scene"],
          usage:
            "scene new NAME [PRODUCT] | scene switch NAME | scene open NAME | scene close [NAME] [--discard]",
          summary:
            "open a new scene; switch to a scene, or open a saved one with its state; close a scene for good (asks before discarding a draft)",
          example: "scene new side mango",
          parse: { try parseScene(try CommandParser.words($0.raw), usage: $0.usage) },
          actions: [
            ("new", [.text, .product]), ("switch", [.scene]), ("open", [.scene]),
            ("close", [.scene]),
          ]),
        CommandEntry(
          words: ["state"], usage: "state", summary: "show the active scene's stored values",
          example: "state",
          parse: { try noArguments(.state, $0.rest, usage: $0.usage) }),
      ]
    ),
    (
      "Session",
      [
        CommandEntry(
          words: ["help"], usage: "help [COMMAND]", summary: "show this help, or one command's",
          example: "help select",
          parse: { .help($0.rest.isEmpty ? nil : $0.rest.lowercased()) }, arguments: [.command]),
        CommandEntry(
          words: ["quit", "exit"], usage: "quit · exit", summary: "save and exit (also Ctrl-D)",
          example: "quit",
          parse: { try noArguments(.quit, $0.rest, usage: $0.usage) }),
      ]
    ),
  ]

  /// Every command word, in the order of help.
  static let words: [String] = {
    var words: [String] = []
    for word in groups.flatMap({ $0.entries.flatMap(\.words) }) where !words.contains(word) {
      words.append(word)
    }
    return words
  }()

  /// The row that parses each word: the first with a parser.
  /// The flags of a command, or of one form of it (`scene close`), as its usage names them.
  ///
  /// - Parameter form: The command word, and the action for a command with several.
  /// - Returns: The flags, in order.
  static func flags(of form: String) -> [String] {
    let word = form.split(separator: " ").first.map(String.init) ?? ""
    guard let entry = groups.flatMap(\.entries).first(where: { $0.words.contains(word) }) else {
      return []
    }
    let forms = entry.usage.components(separatedBy: " | ").filter {
      $0.hasPrefix(form + " ") || $0 == form
    }
    return CommandEntry.flags(in: forms.isEmpty ? entry.usage : forms.joined(separator: " "))
  }

  /// The entry of a command word.
  ///
  /// - Parameter word: The word, or an alias.
  /// - Returns: The entry; nil for a word that is no command.
  static func entry(for word: String) -> CommandEntry? {
    groups.flatMap(\.entries).first { $0.words.contains(word) }
  }

  static let parsers: [String: @Sendable (CommandArguments) throws -> Command] = {
    var parsers: [String: @Sendable (CommandArguments) throws -> Command] = [:]
    for entry in groups.flatMap(\.entries) {
      guard let parse = entry.parse else { continue }
      // The entry's usage goes with its arguments: an error quotes what help shows.
      let usage = entry.usage
      for word in entry.words where parsers[word] == nil {
        parsers[word] = { arguments in
          var arguments = arguments
          arguments.usage = usage
          return try parse(arguments)
        }
      }
    }
    return parsers
  }()
}

/// The argument checks the table's parsers share.
extension CommandTable {
  /// `continue N [--scene NAME]`.
  static func parseContinue(_ rest: String, usage: String) throws -> Command {
    let usage = form("continue N", of: usage)
    if rest.hasPrefix("--elsewhere") {
      let text = String(rest.dropFirst("--elsewhere".count)).trimmingCharacters(in: .whitespaces)
      guard let number = Int(text), number > 0, text.allSatisfy(\.isASCII) else {
        throw CatalogCoreError.invalidArgument(
          text, expected: "an activity number from 'activities --elsewhere'")
      }
      return .continueElsewhere(number)
    }
    var words = try required(rest, usage: usage).split(separator: " ")
      .map(String.init)
    var scene: String?
    if let option = words.firstIndex(of: "--scene") {
      guard option + 1 < words.count else {
        throw CatalogCoreError.missingArgument(usage: usage)
      }
      scene = words[option + 1]
      guard SceneName(words[option + 1]) != nil else {
        throw CatalogCoreError.invalidSceneName(words[option + 1])
      }
      words.removeSubrange(option...(option + 1))
    }
    guard words.count == 1, let text = words.first else {
      throw CatalogCoreError.unexpectedArgument(
        words.dropFirst().first ?? "", usage: usage)
    }
    guard let number = Int(text), number > 0, text.allSatisfy(\.isASCII) else {
      throw CatalogCoreError.invalidArgument(text, expected: "a result number from 'search'")
    }
    return .continueResult(number, scene: scene)
  }

  static func parseScene(_ arguments: [String], usage: String) throws -> Command {
    // Words by the one quoting rule: `scene new "my scene"` names one scene, not a scene and a
    // product.
    let action = arguments.first ?? ""
    let name = arguments.count > 1 ? arguments[1] : ""
    let extra = arguments.dropFirst(2).joined(separator: " ")
    switch action.lowercased() {
    case "new":
      guard !name.isEmpty else {
        throw CatalogCoreError.missingArgument(usage: form("scene new", of: usage))
      }
      guard let sceneName = SceneName(name) else { throw CatalogCoreError.invalidSceneName(name) }
      return .newScene(sceneName, product: extra.isEmpty ? nil : extra)
    case "switch", "open":
      // `open` is `switch` by another name: both bring a scene to the front, opening a saved
      // one that no process has open.
      let verb = action.lowercased()
      guard !name.isEmpty else {
        throw CatalogCoreError.missingArgument(usage: form("scene \(verb)", of: usage))
      }
      guard extra.isEmpty else {
        throw CatalogCoreError.unexpectedArgument(extra, usage: form("scene \(verb)", of: usage))
      }
      return .switchScene(name)
    case "close":
      let words = Array(arguments.dropFirst())
      let discard = words.contains("--discard")
      let names = words.filter { $0 != "--discard" }
      guard names.count <= 1 else {
        throw CatalogCoreError.unexpectedArgument(
          names[1], usage: form("scene close", of: usage))
      }
      return .closeScene(names.first, discard: discard)
    case "": throw CatalogCoreError.missingArgument(usage: usage)
    default:
      let suggestion = Suggestion.closest(
        to: action.lowercased(), in: ["new", "switch", "open", "close"])
      throw CatalogCoreError.invalidArgument(
        action,
        expected: "a scene action"
          + (suggestion.map { "; did you mean 'scene \($0)'?" } ?? "; use \(usage)"))
    }
  }

  /// The form of a usage that starts with some words (`scene close` of `scene new NAME … |
  /// scene close [NAME] [--discard]`), for an error about that form alone; the whole usage
  /// when none does.
  static func form(_ words: String, of usage: String) -> String {
    usage.components(separatedBy: " | ").first { $0 == words || $0.hasPrefix(words + " ") }
      ?? usage
  }

  /// A page number argument; nil when there is none.
  static func page(_ text: String, usage: String) throws -> Int? {
    guard !text.isEmpty else { return nil }
    guard text.allSatisfy(\.isASCII), let page = Int(text), page >= 1 else {
      throw CatalogCoreError.invalidArgument(text, expected: "a page number from 1 (\(usage))")
    }
    return page
  }

  static func required(_ argument: String, usage: String) throws -> String {
    guard !argument.isEmpty else { throw CatalogCoreError.missingArgument(usage: usage) }
    return argument
  }

  static func noArguments(_ command: Command, _ rest: String, usage: String) throws
    -> Command
  {
    guard rest.isEmpty else { throw CatalogCoreError.unexpectedArgument(rest, usage: usage) }
    return command
  }
}
