import StateRestoration

/// One row of the command table, the one declaration of a command: its word (and aliases),
/// its forms — arguments, flags, actions — and how what they hold becomes a ``Command``.
/// Parsing, usage, help, completion and typo suggestions all read it. A row without words is
/// help alone (the editor's `year YYYY`).
struct CommandEntry: Sendable {
  /// The word, then its aliases; none for a row of help alone.
  let words: [String]
  /// The forms, in the order usage shows them.
  let forms: [CommandForm]
  /// What the command does, for help.
  let summary: String
  /// An example, for `help COMMAND`.
  let example: String
  /// Makes the command from what a line's arguments held; nil for a row of help alone.
  let build: (@Sendable (ParsedArguments) throws -> Command)?
  /// The word usage shows: the command's, or the one a row of help alone is about.
  private let shownWord: String

  init(
    _ words: [String], _ forms: [CommandForm] = [CommandForm()], summary: String,
    example: String, build: @escaping @Sendable (ParsedArguments) throws -> Command
  ) {
    self.words = words
    self.forms = forms
    self.summary = summary
    self.example = example
    self.build = build
    shownWord = words.joined(separator: " · ")
  }

  /// A row of help alone, about a form another row parses.
  init(helpFor word: String, _ forms: [CommandForm], summary: String, example: String) {
    words = []
    self.forms = forms
    self.summary = summary
    self.example = example
    build = nil
    shownWord = word
  }

  /// The usage help shows: each form, ` | ` between them.
  var usage: String { forms.map { $0.usage(of: shownWord) }.joined(separator: " | ") }

  /// The forms chosen by an action word (`scene new`), in order.
  var actions: [(word: String, arguments: [ArgumentKind])] {
    forms.compactMap { form in form.action.map { ($0, form.arguments.map(\.kind)) } }
  }

  /// What each argument is, by position, for completion: of the plain forms' arguments at a
  /// position, the first that completion offers something for (`forget N | forget PRODUCT`
  /// completes products).
  var arguments: [ArgumentKind] {
    let plain = forms.filter { $0.action == nil && $0.selector == nil }
    let count = plain.map(\.arguments.count).max() ?? 0
    return (0..<count).map { position in
      let kinds = plain.compactMap {
        position < $0.arguments.count ? $0.arguments[position].kind : nil
      }
      return kinds.first(where: \.offersCandidates) ?? kinds.first ?? .text
    }
  }

  /// What a flag takes, by flag (`--scene` a scene's name).
  var flagValues: [String: ArgumentKind] {
    var values: [String: ArgumentKind] = [:]
    for form in forms {
      for flag in form.flags { if let value = flag.value { values[flag.name] = value.kind } }
    }
    return values
  }

  /// The flags of the forms whose usage starts with some words (`scene close`), each once, in
  /// order: what completion offers.
  func flags(of words: String? = nil) -> [String] {
    var flags: [String] = []
    for form in forms where words.map({ form.usage(of: shownWord).hasPrefix($0) }) ?? true {
      for flag in (form.selector.map { [$0] } ?? []) + form.flags.map(\.name)
      where !flags.contains(flag) {
        flags.append(flag)
      }
    }
    return flags
  }

  /// Parses the arguments typed after the word.
  ///
  /// - Parameter raw: The arguments as typed, trimmed.
  /// - Returns: The command; nil for a row of help alone.
  /// - Throws: ``CatalogCoreError`` naming what is wrong.
  func parse(_ raw: String) throws -> Command? {
    guard let build else { return nil }
    // A query keeps its text as typed (its quotes mark phrases); the rest by the one quoting
    // rule.
    let keepsText = forms.count == 1 && forms[0].arguments.map(\.kind) == [.query]
    var words = keepsText ? (raw.isEmpty ? [] : [raw]) : try CommandParser.words(raw)
    let candidates: [CommandForm]
    if forms.contains(where: { $0.action != nil }) {
      guard let action = words.first?.lowercased() else {
        throw CatalogCoreError.missingArgument(usage: usage)
      }
      guard let form = forms.first(where: { $0.action == action }) else {
        let suggestion = Suggestion.closest(to: action, in: forms.compactMap(\.action))
        throw CatalogCoreError.invalidArgument(
          words[0],
          expected: "a \(shownWord) action"
            + (suggestion.map { "; did you mean '\(shownWord) \($0)'?" } ?? "; use \(usage)"))
      }
      words.removeFirst()
      candidates = [form]
    } else if let index = words.firstIndex(where: { word in
      forms.contains { $0.selector == word }
    }), let form = forms.first(where: { $0.selector == words[index] }) {
      // A selecting flag anywhere makes its form: `continue 1 --elsewhere` is
      // `continue --elsewhere 1`, and `forget cherries --all` is not a product's name.
      words.remove(at: index)
      candidates = [form]
    } else {
      candidates = forms.filter { $0.selector == nil }
    }
    // The plain forms in order: the first that reads the words makes the command.
    var failures: [any Error] = []
    for form in candidates {
      do {
        return try build(
          form.read(
            words, usage: forms.count == 1 ? usage : form.usage(of: shownWord), entryUsage: usage))
      } catch {
        failures.append(error)
      }
    }
    let missing = failures.allSatisfy {
      if case .missingArgument = $0 as? CatalogCoreError { true } else { false }
    }
    if missing && candidates.count > 1 { throw CatalogCoreError.missingArgument(usage: usage) }
    throw failures.first ?? CatalogCoreError.missingArgument(usage: usage)
  }
}

/// The REPL's commands, grouped by task: the one table from which the parser, help, completion,
/// typo suggestions and the shell's completion scripts all take their words.
enum CommandTable {
  static let groups: [(title: String, entries: [CommandEntry])] = [
    (
      "Browse",
      [
        CommandEntry(
          ["list"], [CommandForm([.optional("PAGE", .page)]), CommandForm(selector: "--all")],
          summary: "show a page of the products (number, name, year, price), or every one",
          example: "list 2",
          build: { $0.form == "--all" ? .list(.all) : .list(.page($0.number("PAGE") ?? 1)) }),
        CommandEntry(
          ["select"], [CommandForm([.required("PRODUCT", .product)])],
          summary: "show a product's detail (by number, UUID, name prefix, or a word of its name)",
          example: "select cher", build: { .select($0.text("PRODUCT")) }),
        CommandEntry(
          ["push"], [CommandForm([.required("PRODUCT", .product)])],
          summary: "push a product's detail onto the path", example: "push mango",
          build: { .push($0.text("PRODUCT")) }),
        CommandEntry(
          ["year"], [CommandForm([.required("YYYY", .word), .optional("PAGE", .page)])],
          summary:
            "push the list of a year's products, or show its next page (in the editor: set the draft year)",
          example: "year 2015",
          build: {
            .year(([$0.text("YYYY")] + ($0["PAGE"].map { [$0] } ?? [])).joined(separator: " "))
          }),
        CommandEntry(
          ["path"], [CommandForm(flags: [Flag("--codable")])],
          summary: "show the navigation path, or its saved JSON", example: "path --codable",
          build: { .path(codable: $0.has("--codable")) }),
        CommandEntry(
          ["open"], [CommandForm([.required("URL", .link)])],
          summary: "follow a catalog:// link, e.g. products, product/ID, year/YYYY, scene/NAME/…",
          example: "open catalog://product/Cherries?tab=photo",
          build: { .open($0.text("URL")) }),
        CommandEntry(
          ["tab"],
          [
            CommandForm([
              .required(
                Tabs.allCases.map(\.rawValue).joined(separator: "|"),
                .choice(Tabs.allCases.map(\.rawValue)))
            ])
          ],
          summary: "switch the detail tab", example: "tab photo",
          build: { arguments in
            let name = arguments.text(Tabs.allCases.map(\.rawValue).joined(separator: "|"))
            guard let tab = Tabs(rawValue: name.lowercased()) else {
              throw CatalogCoreError.invalidArgument(
                name, expected: "a tab; use 'tab detail' or 'tab photo'")
            }
            return .tab(tab)
          }),
        CommandEntry(
          ["back"], [CommandForm([.optional("N", .number("a positive number of steps"))])],
          summary: "go back N steps (default 1)", example: "back",
          build: { .back($0.number("N") ?? 1) }),
        CommandEntry(
          ["root"], summary: "go back to the product list", example: "root", build: { _ in .root }),
      ]
    ),
    (
      "Edit",
      [
        CommandEntry(
          ["edit"], summary: "open the editor for the product shown", example: "edit",
          build: { _ in .edit }),
        CommandEntry(
          ["name"], [CommandForm([.required("TEXT", .text)])],
          summary: "in the editor: change the draft name", example: "name Morello",
          build: { .setName($0.text("TEXT")) }),
        CommandEntry(
          helpFor: "year", [CommandForm([.required("YYYY", .word)])],
          summary: "in the editor: change the draft year (1900–2100)", example: "year 2016"),
        CommandEntry(
          ["price"], [CommandForm([.required("X", .text)])],
          summary: "in the editor: change the draft price (at most two decimals)",
          example: "price 11.49", build: { .setPrice($0.text("X")) }),
        CommandEntry(
          ["image"], [CommandForm([.required("PATH", .text)])],
          summary: "in the editor: the picture, a PNG or JPEG file (or a bundled picture's name)",
          example: "image ~/photos/cherries.jpg", build: { .setImage($0.text("PATH")) }),
        CommandEntry(
          ["keywords"], [CommandForm([.optional("WORDS", .text)])],
          summary: "in the editor: the keywords search finds it by, separated by commas",
          example: "keywords cerises, sour, fruit",
          build: { .setKeywords($0.text("WORDS")) }),
        CommandEntry(
          ["done"], [CommandForm(flags: [Flag("--force")])],
          summary:
            "in the editor: validate and save the fields the draft changed; --force saves them over another process's change",
          example: "done", build: { .done(force: $0.has("--force")) }),
        CommandEntry(
          ["cancel"], summary: "in the editor: discard the draft", example: "cancel",
          build: { _ in .cancel }),
        CommandEntry(
          ["add"], [CommandForm([.required("NAME", .text)])],
          summary: "open the editor on a new product; 'done' adds it to the catalog",
          example: "add Kiwi", build: { .add($0.text("NAME")) }),
        CommandEntry(
          ["delete"], [CommandForm([.required("PRODUCT", .product)])],
          summary: "delete a product, its saved activities, and its place in every path",
          example: "delete kiwi", build: { .delete($0.text("PRODUCT")) }),
      ]
    ),
    (
      "Search and continue",
      [
        CommandEntry(
          ["search"], [CommandForm([.required("QUERY", .query)])],
          summary: "find products and viewed activities: prefixes, \"phrases\", 樱桃, one typo",
          example: "search cher", build: { .search($0.text("QUERY")) }),
        CommandEntry(
          ["continue"],
          [
            CommandForm(
              [.required("N", .number("a result number from 'search'"))],
              flags: [Flag("--scene", value: .required("NAME", .scene))]),
            CommandForm(
              selector: "--elsewhere",
              [.required("N", .number("an activity number from 'activities --elsewhere'"))]),
          ],
          summary:
            "continue search result N in this scene, or in scene NAME (another terminal's too), or activity N another machine handed off",
          example: "continue 1",
          build: { arguments in
            let number = arguments.number("N") ?? 1
            if arguments.form == "--elsewhere" { return .continueElsewhere(number) }
            if let scene = arguments["NAME"], SceneName(scene) == nil {
              throw CatalogCoreError.invalidSceneName(scene)
            }
            return .continueResult(number, scene: arguments["NAME"])
          }),
        CommandEntry(
          ["activities"],
          [CommandForm([.optional("PAGE", .page)]), CommandForm(selector: "--elsewhere")],
          summary:
            "the saved activity history, newest first: title, product, when; or what your other machines handed off",
          example: "activities",
          build: {
            $0.form == "--elsewhere"
              ? .activitiesElsewhere : .activities(page: $0.number("PAGE") ?? 1)
          }),
        CommandEntry(
          ["forget"],
          [
            CommandForm([.required("N", .number("an entry number from 'activities'"))]),
            CommandForm([.required("PRODUCT", .product)]), CommandForm(selector: "--all"),
          ],
          summary: "delete saved activities: entry N of 'activities', a product's, or all",
          example: "forget 1",
          build: { arguments in
            if arguments.form == "--all" { return .forget(.all) }
            if let number = arguments.number("N") { return .forget(.number(number)) }
            return .forget(.product(arguments.text("PRODUCT")))
          }),
        CommandEntry(
          ["handoff"],
          [CommandForm([.required("SCENE", .scene)]), CommandForm(selector: "--to-machine")],
          summary:
            "continue this scene's activity in another scene (opened if needed), also one another terminal has open, or on your other machines (a catalog on a server)",
          example: "handoff side",
          build: { arguments in
            if arguments.form == "--to-machine" { return .handoffToMachine }
            let name = arguments.text("SCENE")
            guard SceneName(name) != nil else { throw CatalogCoreError.invalidSceneName(name) }
            return .handoff(name)
          }),
      ]
    ),
    (
      "Scenes",
      [
        CommandEntry(
          ["scenes"], [CommandForm(flags: [Flag("--all")])],
          summary:
            "list the scenes: this terminal's (* marks the active one), other terminals' with their process and terminal, and closed ones; --all adds scene files the session lost and when each was saved",
          example: "scenes", build: { .scenes(all: $0.has("--all")) }),
        CommandEntry(
          ["scene"],
          [
            CommandForm(action: "new", [.required("NAME", .word), .optional("PRODUCT", .product)]),
            CommandForm(action: "switch", [.required("NAME", .scene)]),
            CommandForm(action: "open", [.required("NAME", .scene)]),
            CommandForm(
              action: "close", [.optional("NAME", .scene)], flags: [Flag("--discard")]),
          ],
          summary:
            "open a new scene; switch to a scene, or open a saved one with its state; close a scene for good (asks before discarding a draft)",
          example: "scene new side mango",
          build: { arguments in
            switch arguments.form {
            case "new":
              let name = arguments.text("NAME")
              guard let scene = SceneName(name) else {
                throw CatalogCoreError.invalidSceneName(name)
              }
              return .newScene(scene, product: arguments["PRODUCT"])
            case "close":
              return .closeScene(arguments["NAME"], discard: arguments.has("--discard"))
            default:
              // `open` is `switch` by another name: both bring a scene to the front, opening a
              // saved one that no process has open.
              return .switchScene(arguments.text("NAME"))
            }
          }),
        CommandEntry(
          ["state"], summary: "show the active scene's stored values", example: "state",
          build: { _ in .state }),
      ]
    ),
    (
      "Session",
      [
        CommandEntry(
          ["help"], [CommandForm([.optional("COMMAND", .command)])],
          summary: "show this help, or one command's", example: "help select",
          build: { .help($0["COMMAND"]?.lowercased()) }),
        CommandEntry(
          ["quit", "exit"], summary: "save and exit (also Ctrl-D)", example: "quit",
          build: { _ in .quit }),
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

  /// The flags of a command, or of one form of it (`scene close`), as its forms declare them.
  ///
  /// - Parameter form: The command word, and the action for a command with several.
  /// - Returns: The flags, in order.
  static func flags(of form: String) -> [String] {
    let word = form.split(separator: " ").first.map(String.init) ?? ""
    return entry(for: word)?.flags(of: form) ?? []
  }

  /// The entry that parses a command word.
  ///
  /// - Parameter word: The word, or an alias.
  /// - Returns: The entry; nil for a word that is no command.
  static func entry(for word: String) -> CommandEntry? {
    entries[word]
  }

  /// The entry of each word and alias.
  private static let entries: [String: CommandEntry] = {
    var entries: [String: CommandEntry] = [:]
    for entry in groups.flatMap(\.entries) {
      for word in entry.words where entries[word] == nil { entries[word] = entry }
    }
    return entries
  }()

  /// A page number argument; nil when there is none.
  static func page(_ text: String, usage: String) throws -> Int? {
    guard !text.isEmpty else { return nil }
    guard text.allSatisfy(\.isASCII), let page = Int(text), page >= 1 else {
      throw CatalogCoreError.invalidArgument(text, expected: "a page number from 1 (\(usage))")
    }
    return page
  }
}
