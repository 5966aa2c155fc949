import CatalogEngines
import CatalogModel

/// One option of `catalog`'s command line. The usage text's options and the bash, zsh and fish
/// completion scripts are made from ``CommandLineOptions/table``, and the parser's messages
/// for a value it does not take name the table's choices; a test holds the parser to the table.
struct CommandLineOption: Sendable {
  /// What the option takes.
  enum Value: Sendable {
    /// Nothing: a flag.
    case none
    /// One of some words.
    case choices([String])
    /// A directory.
    case directory
    /// A scene's name.
    case scene
    /// Any text (a number, a URL).
    case text
  }

  /// The long name, `--scene`.
  let name: String
  /// The short name, `-h`, if there is one.
  var short: String?
  /// What the usage text calls its value, `NAME`.
  var placeholder: String?
  /// What it takes.
  var value: Value = .none
  /// Its description in the usage text's options, a line each; empty for an option the usage
  /// shows beside its command (`import`'s and `export`'s).
  var help: [String] = []
  /// Its description in one short line, for the completion scripts.
  var summary: String

  /// Whether a value follows it.
  var takesValue: Bool {
    if case .none = value { return false }
    return true
  }
}

extension CommandLineOptions {
  /// The options, in the order the usage text lists them.
  static let table: [CommandLineOption] = [
    .init(
      name: "--scene", placeholder: "NAME", value: .scene,
      help: ["open (or create) only scene NAME"], summary: "open (or create) only this scene"),
    .init(
      name: "--state-dir", placeholder: "DIR", value: .directory,
      help: ["keep session and scenes in DIR (default $XDG_STATE_HOME/catalog)"],
      summary: "session and scenes here"),
    .init(
      name: "--data-dir", placeholder: "DIR", value: .directory,
      help: ["keep the catalog in DIR (default $XDG_DATA_HOME/catalog)"],
      summary: "the catalog here"),
    .init(
      name: "--catalog-url", placeholder: "URL", value: .text,
      help: [
        "use the catalog on a PostgreSQL server (default",
        "$CATALOG_URL), e.g. postgresql://ann@db.example/shop;",
        "the password comes from ~/.pgpass or PGPASSWORD",
      ], summary: "the catalog on a PostgreSQL server"),
    .init(
      name: "--fresh", help: ["start without restoring scene state, like after a force quit"],
      summary: "start without restoring scene state"),
    .init(
      name: "--color", placeholder: "WHEN", value: .choices(ColorMode.allCases.map(\.rawValue)),
      help: ["auto (default), always or never"], summary: "when to use colour"),
    .init(
      name: "--pictures", placeholder: "KIND",
      value: .choices(PictureMode.allCases.map(\.rawValue)),
      help: ["auto (default), blocks, kitty, sixel or none"], summary: "how pictures are drawn"),
    .init(
      name: "--json", help: ["with 'state' and 'search': print JSON"],
      summary: "print JSON (state, search)"),
    .init(
      name: "--limit", placeholder: "N", value: .text,
      help: ["with 'search': at most N results (default 10)"],
      summary: "the most search results"),
    .init(
      name: "--generate-completion-script", placeholder: "SHELL",
      value: .choices(CompletionScripts.shells),
      help: ["print completions for bash, zsh or fish (see the README)"],
      summary: "print a completion script"),
    .init(name: "--help", short: "-h", help: ["show this help"], summary: "show the help"),
    .init(name: "--version", help: ["show the version"], summary: "show the version"),
    .init(
      name: "--format", value: .choices(ProductExport.Format.allCases.map(\.rawValue).sorted()),
      summary: "export as CSV or JSON"),
    .init(
      name: "--bom", summary: "a CSV export for spreadsheets: a byte order mark, no formulas"),
    .init(name: "--replace", summary: "import: the file becomes the catalog"),
    .init(
      name: "--duplicates",
      value: .choices(ImportOptions.DuplicateNames.allCases.map(\.rawValue)),
      summary: "import: records without identifiers whose name is taken"),
    .init(name: "--restore-deleted", summary: "import: bring back deleted products"),
  ]

  /// The usage text's options, from ``table``: each name and value, then its description from
  /// the twentieth column (on the next line for a long name).
  static var optionsHelp: String {
    var lines: [String] = []
    for option in table where !option.help.isEmpty {
      let label =
        (option.short.map { $0 + ", " } ?? "") + option.name
        + (option.placeholder.map { " " + $0 } ?? "")
      let indent = String(repeating: " ", count: 20)
      if label.count <= 17 {
        lines.append(
          "  " + label + String(repeating: " ", count: 18 - label.count) + option.help[0])
      } else {
        lines.append("  " + label)
        lines.append(indent + option.help[0])
      }
      lines += option.help.dropFirst().map { indent + $0 }
    }
    return lines.joined(separator: "\n")
  }

  /// An option's value as one of its choices.
  ///
  /// - Parameters:
  ///   - name: The option.
  ///   - text: Its value as given.
  /// - Returns: The value.
  /// - Throws: ``CommandLineError`` naming the choices when it is not one.
  static func choice<Value: RawRepresentable<String>>(of name: String, _ text: String) throws
    -> Value
  {
    try checkChoice(of: name, text)
    guard let value = Value(rawValue: text) else { throw refusal(of: name, text) }
    return value
  }

  /// Checks that a value is one of an option's choices.
  ///
  /// - Throws: ``CommandLineError`` naming the choices when it is not one.
  static func checkChoice(of name: String, _ text: String) throws {
    guard case .choices(let choices)? = table.first(where: { $0.name == name })?.value,
      choices.contains(text)
    else { throw refusal(of: name, text) }
  }

  private static func refusal(of name: String, _ text: String) -> CommandLineError {
    guard case .choices(let choices)? = table.first(where: { $0.name == name })?.value,
      let last = choices.last
    else { return CommandLineError("'\(name)' does not take '\(text)'") }
    let list =
      choices.count == 1 ? last : choices.dropLast().joined(separator: ", ") + " or " + last
    return CommandLineError("'\(name)' takes \(list), not '\(text)'")
  }
}
