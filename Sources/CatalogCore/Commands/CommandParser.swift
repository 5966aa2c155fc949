import StateRestoration

/// Turns a line the user typed into a ``Command``: the first word names the command, the rest
/// of the line is its arguments (product names may contain spaces).
package enum CommandParser {
  /// The command words, for completion and suggestions: those of the command table, which
  /// help shows.
  package static var commandWords: [String] { CommandTable.words }

  /// The flags a command's forms declare, and whether each takes a value (`--scene NAME`): for
  /// the process's command line to tell a command's own flags from its options.
  ///
  /// - Parameter word: The command's word.
  /// - Returns: The flags; none for a word that is no command.
  package static func flags(of word: String) -> [(name: String, takesValue: Bool)] {
    guard let entry = CommandTable.entry(for: word.lowercased()) else { return [] }
    return entry.flags().map { name in (name, entry.flagValues[name] != nil) }
  }

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
    // The word's entry in the one command table help and completion read too, which parses
    // its arguments by the one quoting rule.
    guard let entry = CommandTable.entry(for: word.lowercased()) else {
      throw CatalogCoreError.unknownCommand(
        word, suggestion: Suggestion.closest(to: word.lowercased(), in: commandWords))
    }
    return try entry.parse(raw)
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

  /// Text written so that the quoting rule reads it back as exactly that text: as it is when
  /// the rule keeps it, else in double quotes with `"` and `\` escaped. The inverse of
  /// ``unquoted(_:)`` (arguments joined by single spaces), or of ``words(_:)`` for one word.
  ///
  /// - Parameters:
  ///   - text: The text.
  ///   - asOneWord: Whether it must read back as one word (a scene's name on the command line)
  ///     rather than as arguments joined by spaces (a product's name after `select`).
  /// - Returns: The text as typed.
  package static func quoted(_ text: String, asOneWord: Bool = false) -> String {
    let keptAsItIs =
      !text.contains(where: { "\"'\\".contains($0) })
      && (asOneWord
        ? !text.isEmpty && !text.contains(where: \.isWhitespace)
        : text.split(whereSeparator: \.isWhitespace).joined(separator: " ") == text)
    guard !keptAsItIs else { return text }
    var quoted = "\""
    for character in text {
      if character == "\"" || character == "\\" { quoted.append("\\") }
      quoted.append(character)
    }
    return quoted + "\""
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
      case "'" where word.last.map { $0.isLetter || $0.isNumber } ?? false:
        // An apostrophe inside a word (`Baker's`, `O'Brien`) is one; a quote opens a word.
        word.append(character)
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
}

extension String {
  /// The string without leading and trailing white space.
  package var trimmed: String {
    // By index: the reversed views of a dropping one cost a command's first use of them more
    // (their generic types made at run time) than trimming does.
    guard let first = firstIndex(where: { !$0.isWhitespace }),
      let last = lastIndex(where: { !$0.isWhitespace })
    else { return "" }
    return String(self[first...last])
  }
}
