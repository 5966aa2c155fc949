import StateRestoration

/// Turns a line the user typed into a ``Command``: the first word names the command, the rest
/// of the line is its arguments (product names may contain spaces).
package enum CommandParser {
  /// The command words, for completion and suggestions: those of ``Help``, which lists every
  /// command.
  package static var commandWords: [String] { Help.commandWords }

  /// Parses one line.
  ///
  /// - Parameter line: The line, without its newline.
  /// - Returns: The command, or nil for a blank line or a `#` comment.
  /// - Throws: ``CatalogCoreError`` naming what is wrong with the line.
  package static func parse(_ line: String) throws -> Command? {
    if let control = line.unicodeScalars.first(where: {
      $0.properties.generalCategory == .control && $0 != "\t"
    }) {
      throw CatalogCoreError.controlCharacter(control.value)
    }
    let trimmed = line.trimmed
    guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
    let word = String(trimmed.prefix { !$0.isWhitespace })
    let raw = String(trimmed.dropFirst(word.count)).trimmed
    // One quoting rule for every command's arguments; a search keeps its quotes, which mark
    // phrases.
    let rest = word.lowercased() == "search" ? raw : try unquoted(raw)
    switch word.lowercased() {
    case "list":
      if rest == "--all" { return .list(.all) }
      return .list(.page(try page(rest, usage: "list [PAGE] | list --all") ?? 1))
    case "select": return .select(try required(rest, usage: "select PRODUCT"))
    case "push": return .push(try required(rest, usage: "push PRODUCT"))
    case "path":
      switch rest {
      case "": return .path(codable: false)
      case "--codable": return .path(codable: true)
      default: throw CatalogCoreError.unexpectedArgument(rest, usage: "path [--codable]")
      }
    case "open": return .open(try required(rest, usage: "open URL"))
    case "back":
      guard !rest.isEmpty else { return .back(1) }
      guard let count = Int(rest), count > 0, rest.allSatisfy(\.isASCII) else {
        throw CatalogCoreError.invalidArgument(rest, expected: "a positive number of steps")
      }
      return .back(count)
    case "root": return try noArguments(.root, rest, usage: "root")
    case "tab":
      let name = try required(rest, usage: "tab detail|photo")
      guard let tab = Tabs(rawValue: name.lowercased()) else {
        throw CatalogCoreError.invalidArgument(
          name, expected: "a tab; use 'tab detail' or 'tab photo'")
      }
      return .tab(tab)
    case "edit": return try noArguments(.edit, rest, usage: "edit")
    case "name": return .setName(try required(rest, usage: "name TEXT"))
    case "year": return .year(try required(rest, usage: "year YYYY"))
    case "price": return .setPrice(try required(rest, usage: "price X"))
    case "image": return .setImage(try required(rest, usage: "image PATH"))
    case "done":
      guard rest.isEmpty || rest == "--force" else {
        throw CatalogCoreError.unexpectedArgument(rest, usage: "done [--force]")
      }
      return .done(force: !rest.isEmpty)
    case "cancel": return try noArguments(.cancel, rest, usage: "cancel")
    case "add": return .add(try required(rest, usage: "add NAME"))
    case "activities":
      return .activities(page: try page(rest, usage: "activities [PAGE]") ?? 1)
    case "forget":
      let target = try required(rest, usage: "forget N | forget PRODUCT | forget --all")
      if target == "--all" { return .forget(.all) }
      if let number = Int(target), number > 0, target.allSatisfy(\.isASCII) {
        return .forget(.number(number))
      }
      return .forget(.product(target))
    case "delete": return .delete(try required(rest, usage: "delete PRODUCT"))
    case "search": return .search(try required(rest, usage: "search QUERY"))
    case "continue":
      var words = try required(rest, usage: "continue N [--scene NAME]").split(separator: " ")
        .map(String.init)
      var scene: String?
      if let option = words.firstIndex(of: "--scene") {
        guard option + 1 < words.count else {
          throw CatalogCoreError.missingArgument(usage: "continue N [--scene NAME]")
        }
        scene = words[option + 1]
        guard SceneName(words[option + 1]) != nil else {
          throw CatalogCoreError.invalidSceneName(words[option + 1])
        }
        words.removeSubrange(option...(option + 1))
      }
      guard words.count == 1, let text = words.first else {
        throw CatalogCoreError.unexpectedArgument(
          words.dropFirst().first ?? "", usage: "continue N [--scene NAME]")
      }
      guard let number = Int(text), number > 0, text.allSatisfy(\.isASCII) else {
        throw CatalogCoreError.invalidArgument(text, expected: "a result number from 'search'")
      }
      return .continueResult(number, scene: scene)
    case "handoff":
      let name = try required(rest, usage: "handoff SCENE")
      guard SceneName(name) != nil else { throw CatalogCoreError.invalidSceneName(name) }
      return .handoff(name)
    case "scenes":
      if rest == "--all" { return .scenes(all: true) }
      return try noArguments(.scenes(), rest, usage: "scenes [--all]")
    case "scene": return try parseScene(try words(raw))
    case "state": return try noArguments(.state, rest, usage: "state")
    case "help": return .help(rest.isEmpty ? nil : rest.lowercased())
    case "quit", "exit": return try noArguments(.quit, rest, usage: "quit")
    default:
      throw CatalogCoreError.unknownCommand(
        word, suggestion: Suggestion.closest(to: word.lowercased(), in: commandWords))
    }
  }

  private static func parseScene(_ arguments: [String]) throws -> Command {
    let usage =
      "scene new NAME [PRODUCT] | scene switch NAME | scene open NAME | scene close [NAME] [--discard]"
    // Words by the one quoting rule: `scene new "my scene"` names one scene, not a scene and a
    // product.
    let action = arguments.first ?? ""
    let name = arguments.count > 1 ? arguments[1] : ""
    let extra = arguments.dropFirst(2).joined(separator: " ")
    switch action.lowercased() {
    case "new":
      guard !name.isEmpty else {
        throw CatalogCoreError.missingArgument(usage: "scene new NAME [PRODUCT]")
      }
      guard let sceneName = SceneName(name) else { throw CatalogCoreError.invalidSceneName(name) }
      return .newScene(sceneName, product: extra.isEmpty ? nil : extra)
    case "switch", "open":
      // `open` is `switch` by another name: both bring a scene to the front, opening a saved
      // one that no process has open.
      let verb = action.lowercased()
      guard !name.isEmpty else {
        throw CatalogCoreError.missingArgument(usage: "scene \(verb) NAME")
      }
      guard extra.isEmpty else {
        throw CatalogCoreError.unexpectedArgument(extra, usage: "scene \(verb) NAME")
      }
      return .switchScene(name)
    case "close":
      let words = Array(arguments.dropFirst())
      let discard = words.contains("--discard")
      let names = words.filter { $0 != "--discard" }
      guard names.count <= 1 else {
        throw CatalogCoreError.unexpectedArgument(
          names[1], usage: "scene close [NAME] [--discard]")
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

  /// Arguments as the quoting rule reads them: double or single quotes group words and are
  /// removed, a backslash escapes the next character (except inside single quotes), and the
  /// words are joined by single spaces (`select "Red Rose"` → `Red Rose`).
  ///
  /// - Parameter text: The arguments as typed.
  /// - Returns: The arguments.
  /// - Throws: ``CatalogCoreError/unclosedQuote(_:)`` for a quote left open.
  package static func unquoted(_ text: String) throws -> String {
    try words(text).joined(separator: " ")
  }

  /// Arguments as the quoting rule reads them, word by word: `new "my scene"` is two words.
  ///
  /// - Parameter text: The arguments as typed.
  /// - Returns: The words, quotes removed.
  /// - Throws: ``CatalogCoreError/unclosedQuote(_:)`` for a quote left open.
  package static func words(_ text: String) throws -> [String] {
    var words: [String] = []
    var word = ""
    var inWord = false
    var quote: Character?
    var escaped = false
    for character in text {
      if escaped {
        word.append(character)
        escaped = false
        continue
      }
      if let open = quote {
        if character == open {
          quote = nil
        } else if character == "\\" && open == "\"" {
          escaped = true
        } else {
          word.append(character)
        }
        continue
      }
      switch character {
      case "\"", "'":
        quote = character
        inWord = true
      case "\\":
        escaped = true
        inWord = true
      case _ where character.isWhitespace:
        if inWord { words.append(word) }
        word = ""
        inWord = false
      default:
        word.append(character)
        inWord = true
      }
    }
    if let quote { throw CatalogCoreError.unclosedQuote(quote) }
    if escaped { word.append("\\") }
    if inWord { words.append(word) }
    return words
  }

  /// A page number argument; nil when there is none.
  static func page(_ text: String, usage: String) throws -> Int? {
    guard !text.isEmpty else { return nil }
    guard text.allSatisfy(\.isASCII), let page = Int(text), page >= 1 else {
      throw CatalogCoreError.invalidArgument(text, expected: "a page number from 1 (\(usage))")
    }
    return page
  }

  private static func required(_ argument: String, usage: String) throws -> String {
    guard !argument.isEmpty else { throw CatalogCoreError.missingArgument(usage: usage) }
    return argument
  }

  private static func noArguments(_ command: Command, _ rest: String, usage: String) throws
    -> Command
  {
    guard rest.isEmpty else { throw CatalogCoreError.unexpectedArgument(rest, usage: usage) }
    return command
  }
}

extension String {
  /// The string without leading and trailing white space.
  package var trimmed: String {
    String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
  }
}
