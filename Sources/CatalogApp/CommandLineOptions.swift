import CatalogCore
import CatalogEngines
import CatalogModel
import Foundation
import StateRestoration

/// The command line (SPEC section 8), parsed.
package struct CommandLineOptions: Sendable, Hashable {
  /// What to do.
  package enum Action: Sendable, Hashable {
    /// Start the REPL; with a command, run that one REPL command as a script would
    /// (`catalog select cherries`).
    case repl(command: String? = nil)
    /// `state [--json]`: print the saved state.
    case state(json: Bool)
    /// `open URL`: restore, then handle a deep link, as a cold launch from a link does.
    case open(String)
    /// `search QUERY [--json] [--limit N]`: search without starting the REPL.
    case search(String, json: Bool, limit: Int)
    /// `import FILE`: add and update products from a JSON or CSV file, all or nothing.
    case importFile(String, ImportOptions = .init())
    /// `export [FILE]`: write the catalog as JSON, to standard output by default.
    case export(String?, format: ProductExport.Format? = nil, byteOrderMark: Bool = false)
    /// `reindex`: build the search index file again.
    case reindex
    /// `--generate-completion-script SHELL`: print a shell completion script.
    case completionScript(String)
    /// `__complete WORD LINE`, as the completion scripts call it: print the completions of the
    /// shell's current word in a command line, one a line.
    case completions(word: String, line: String)
    /// `--help`.
    case help
    /// `--version`.
    case version

    /// Whether the action opens the catalog before anything else it does with a server
    /// (`open` may instead hand its link to a running process, which has the catalog open).
    package var opensCatalog: Bool {
      switch self {
      case .repl, .state, .search, .importFile, .export, .reindex: true
      case .open, .completionScript, .completions, .help, .version: false
      }
    }
  }

  /// When to use colour.
  package enum ColorMode: String, Sendable, Hashable, CaseIterable {
    case auto, always, never
  }

  /// How product pictures are drawn.
  package enum PictureMode: String, Sendable, Hashable, CaseIterable {
    /// The best the terminal allows: kitty graphics in kitty, half blocks elsewhere, none in a
    /// script.
    case auto
    /// Half blocks in 24-bit or 256 colours.
    case blocks
    /// The kitty graphics protocol.
    case kitty
    /// Sixel graphics.
    case sixel
    /// No pictures: their path and size.
    case none
  }

  package var action = Action.repl()
  package var scene: SceneName?
  package var stateDirectory: String?
  package var dataDirectory: String?
  package var catalogURL: String?
  package var isFresh = false
  package var color = ColorMode.auto
  package var pictures = PictureMode.auto

  package static let usage = """
    usage: catalog [--scene NAME] [--state-dir DIR] [--data-dir DIR] [--catalog-url URL]
                   [--fresh] [--color WHEN] [--pictures KIND]
           catalog open URL [--scene NAME]
           catalog search QUERY [--json] [--limit N]
           catalog state [--json]
           catalog import [--replace] [--duplicates update|allow|refuse]
                          [--restore-deleted] FILE
           catalog export [FILE] [--format csv|json] [--bom]
           catalog reindex
           catalog COMMAND [ARGUMENT...]
           catalog --generate-completion-script bash|zsh|fish
           catalog --help | --version

    A product catalog in a REPL that comes back exactly where you left it.

    options:
    \(optionsHelp)

    'catalog open' restores the saved state, follows a catalog:// link (for
    example catalog://product/Cherries?tab=photo), saves, and prints where it went.

    'catalog import' reads a JSON array shaped like products.json, or CSV or
    tab-separated text with a header row (name, year, price; imageName - or image,
    picture -, identifier and keywords optional, keywords separated by ';'), in
    UTF-8 or in UTF-16 with a byte order mark (a spreadsheet's "Unicode Text"). It
    imports every record or none: new identifiers are added, existing ones
    updated where they differ; the first import into a
    new data directory starts a catalog of yours alone (no sample products), and
    --replace makes the catalog exactly the file's products, saying how many
    others it removed.
    A record without an identifier updates the product of its name; records that
    share a name update the products of that name in list order, so importing a
    sheet again changes nothing (a different number of records and products of a
    name refuses the import); --duplicates allow adds them as new products,
    --duplicates refuse refuses the import. Products you deleted are not brought
    back by importing an older file (the import says how many it left out)
    unless you add --restore-deleted. Ctrl-C stops an import and changes nothing.
    'catalog export' writes the catalog as JSON, or as CSV for a FILE ending in
    .csv or with --format csv (--bom makes it for spreadsheets: a UTF-8 byte order
    mark first, and no cell that a spreadsheet would run as a formula); either
    imports back to the same catalog. Ctrl-C stops an export to a FILE and leaves
    no file.

    Search reads an index kept beside the catalog (search.index), which follows
    edits as they are saved and is built again, in the background, when many
    have piled up. 'catalog reindex' builds it again now.

    With --catalog-url, the catalog is on a PostgreSQL server that several
    machines share (in the schema $CATALOG_SCHEMA, or 'catalog'); each machine
    keeps its own search index in the data directory, and 'handoff --to-machine'
    in the REPL hands the scene's activity to your other machines (each named
    by $CATALOG_MACHINE, or its host name).

    'catalog COMMAND [ARGUMENT...]' runs one REPL command as a one-line script
    (catalog list, catalog select "Red Rose"), as 'echo list | catalog' does;
    options may come before or after its words (catalog list 2 --data-dir D).

    Type 'help' in the REPL for its commands.
    """

  /// Parses the arguments after the program name.
  ///
  /// - Parameter arguments: The arguments.
  /// - Throws: ``CommandLineError`` for a usage error (exit status 64).
  package init(_ arguments: [String]) throws {
    if arguments.first == Self.completionsWord {
      action = .completions(
        word: arguments.dropFirst().first ?? "", line: arguments.dropFirst(2).first ?? "")
      return
    }
    var remaining = arguments[...]
    var subcommand: String?
    var link: String?
    var file: String?
    var words: [String] = []
    var limit: Int?
    var json = false
    // A REPL command and its words (`catalog list 2`); options may follow them.
    var replWords: [String]?
    var replFlags: [(name: String, takesValue: Bool)] = []
    var format: ProductExport.Format?
    var byteOrderMark = false
    var importing = ImportOptions()
    var importOptionGiven: String?
    while let argument = remaining.popFirst() {
      // A flag of the REPL command's own (`catalog continue 1 --scene side`) is one of its
      // words, with its value; another option is the process's (`catalog list 2 --data-dir D`).
      if replWords != nil, let flag = replFlags.first(where: { $0.name == argument }) {
        replWords?.append(argument)
        if flag.takesValue, let value = remaining.popFirst() { replWords?.append(value) }
        continue
      }
      var name = argument
      var inlineValue: String?
      if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        inlineValue = String(argument[argument.index(after: equals)...])
      }
      func value() throws -> String {
        if let inlineValue { return inlineValue }
        guard let next = remaining.popFirst() else {
          throw CommandLineError("'\(name)' needs a value")
        }
        return next
      }
      switch name {
      case "-h", "--help": action = .help; return
      case "--version": action = .version; return
      case "--generate-completion-script":
        let shell = try value()
        try Self.checkChoice(of: name, shell)
        action = .completionScript(shell)
        return
      case "--scene":
        let text = try value()
        guard let scene = SceneName(text) else {
          throw CommandLineError(
            "'\(text)' is not a valid scene name (letters, digits, '.', '_', '-'; at most 64)")
        }
        self.scene = scene
      case "--state-dir": stateDirectory = try value()
      case "--data-dir": dataDirectory = try value()
      case "--catalog-url": catalogURL = try value()
      case "--fresh": isFresh = true
      case "--json": json = true
      case "--format": format = try Self.choice(of: name, try value())
      case "--bom": byteOrderMark = true
      case "--replace":
        importing.replacing = true
        importOptionGiven = name
      case "--restore-deleted":
        importing.restoringDeleted = true
        importOptionGiven = name
      case "--duplicates":
        importing.duplicates = try Self.choice(of: name, try value())
        importOptionGiven = name
      case "--limit":
        let text = try value()
        guard let number = Int(text), (1...1000).contains(number) else {
          throw CommandLineError("'--limit' takes a number from 1 to 1000, not '\(text)'")
        }
        limit = number
      case "--color": color = try Self.choice(of: name, try value())
      case "--pictures": pictures = try Self.choice(of: name, try value())
      default:
        if replWords != nil {
          replWords?.append(argument)
          continue
        }
        if name.hasPrefix("-") { throw CommandLineError("unknown option '\(name)'") }
        if subcommand == "open", link == nil {
          link = argument
          continue
        }
        if subcommand == "search" {
          words.append(argument)
          continue
        }
        if subcommand == "import" || subcommand == "export", file == nil {
          file = argument
          continue
        }
        guard subcommand == nil else { throw CommandLineError("unexpected argument '\(argument)'") }
        guard Self.subcommands.contains(argument) else {
          // A REPL command with its arguments runs as a one-line script, as people try first:
          // `catalog list`, `catalog select "Red Rose"`.
          if CommandParser.commandWords.contains(argument.lowercased()) {
            replWords = [argument]
            replFlags = CommandParser.flags(of: argument)
            continue
          }
          let suggestion = Suggestion.closest(
            to: argument.lowercased(), in: Self.subcommands + CommandParser.commandWords)
          throw CommandLineError(
            "unknown command '\(argument)'"
              + (suggestion.map { " (did you mean 'catalog \($0)'?)" }
                ?? " (REPL commands run as 'catalog COMMAND …' too, or piped: echo list | catalog)")
          )
        }
        subcommand = argument
      }
    }
    if json && subcommand != "state" && subcommand != "search" {
      throw CommandLineError("'--json' goes with 'catalog state' and 'catalog search'")
    }
    if limit != nil && subcommand != "search" {
      throw CommandLineError("'--limit' goes with 'catalog search'")
    }
    if (format != nil || byteOrderMark) && subcommand != "export" {
      throw CommandLineError("'--format' and '--bom' go with 'catalog export'")
    }
    if let importOptionGiven, subcommand != "import" {
      throw CommandLineError("'\(importOptionGiven)' goes with 'catalog import'")
    }
    switch subcommand {
    case "state": action = .state(json: json)
    case "open":
      guard let link else { throw CommandLineError("'open' needs a URL") }
      action = .open(link)
    case "search":
      guard !words.isEmpty else { throw CommandLineError("'search' needs a query") }
      action = .search(words.joined(separator: " "), json: json, limit: limit ?? 10)
    case "import":
      guard let file else { throw CommandLineError("'import' needs a file (JSON or CSV)") }
      action = .importFile(file, importing)
    case "export": action = .export(file, format: format, byteOrderMark: byteOrderMark)
    case "reindex": action = .reindex
    default:
      if let replWords {
        action = .repl(
          command: replWords.map { CommandParser.quoted($0, asOneWord: true) }
            .joined(separator: " "))
      }
    }
    if (scene != nil || isFresh)
      && [
        .importFile(file ?? "", importing),
        .export(file, format: format, byteOrderMark: byteOrderMark),
        .reindex,
      ].contains(action)
    {
      throw CommandLineError("'--scene' and '--fresh' do not go with '\(subcommand ?? "")'")
    }
  }
}

extension CommandLineOptions {
  /// The words `catalog` takes as a command of its own.
  static let subcommands = ["state", "open", "search", "import", "export", "reindex"]

  /// The first argument with which the completion scripts ask for completions.
  static let completionsWord = "__complete"
}

/// A usage error on the command line: the shell's one error type.
package struct CommandLineError: Error, Sendable, Equatable, LocalizedError {
  /// What is wrong, and what to type instead.
  package let message: String

  /// A usage error.
  ///
  /// - Parameter message: What is wrong, and what to type instead.
  package init(_ message: String) { self.message = message }

  /// The message.
  package var errorDescription: String? { message }
}
