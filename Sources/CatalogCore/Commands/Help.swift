import LineEditing

/// The REPL's help: commands grouped by task, and each command's usage with an example.
package enum Help {
  /// Every command word, in the order of help: what completion, typo suggestions and the
  /// shell's completion scripts offer, so that none of them misses a command help shows.
  package static var commandWords: [String] { CommandTable.words }

  private static var groups: [(title: String, entries: [CommandEntry])] { CommandTable.groups }

  /// The help text: all commands, or one, wrapped to a width.
  ///
  /// - Parameters:
  ///   - topic: A command, or nil for all; only its first word counts (`help scene new`).
  ///   - width: The columns to wrap to: the terminal's, 80 in a script.
  /// - Returns: The text.
  /// - Throws: ``CatalogCoreError/unknownCommand(_:suggestion:)`` for an unknown topic.
  package static func text(for topic: String?, width: Int = 80) throws -> String {
    let width = max(40, width)
    guard let topic else {
      let usageWidth = min(
        24, groups.flatMap(\.entries).map { DisplayWidth.of($0.usage) }.max() ?? 0)
      let sections = groups.map { group in
        group.title + "\n"
          + group.entries.map {
            twoColumns($0.usage, $0.summary, firstWidth: usageWidth, width: width)
          }.joined(separator: "\n")
      }
      let keyRows = [
        ["Tab", "complete; a second Tab lists the candidates"],
        ["↑ ↓ · Ctrl-R", "walk the history · search it backwards"],
        ["Ctrl-A Ctrl-E · Alt-B Alt-F", "start and end of the line · a word back and forward"],
        [
          "Ctrl-W Ctrl-U Ctrl-K · Ctrl-Y", "cut a word, to the start, to the end · paste it back",
        ],
        ["Alt-D · Ctrl-T · Ctrl-_", "cut the next word · swap two characters · undo"],
        ["Ctrl-L · Ctrl-C · Ctrl-D", "clear the screen · abandon the line · quit"],
        ["Ctrl-Z", "suspend, as any shell program ('fg' brings the line back)"],
      ]
      let keyWidth = min(width / 2 - 2, keyRows.map { DisplayWidth.of($0[0]) }.max() ?? 0)
      let keys = keyRows.map { twoColumns($0[0], $0[1], firstWidth: keyWidth, width: width) }
        .joined(separator: "\n")
      return sections.joined(separator: "\n\n") + "\n\nKeys (in a terminal)\n" + keys
        + "\n\n"
        + wrap(
          "State is saved after every command; the next launch restores every scene.",
          width: width
        ).joined(separator: "\n")
    }
    let word = String(topic.split(separator: " ").first ?? Substring(topic))
    let entries = groups.flatMap(\.entries)
    guard let entry = entries.first(where: { $0.words.contains(word) }) else {
      throw CatalogCoreError.unknownCommand(
        topic, suggestion: Suggestion.closest(to: word, in: entries.flatMap(\.words)))
    }
    return
      (wrap(entry.usage, width: width - 7).enumerated().map {
        ($0.offset == 0 ? "usage: " : "       ") + $0.element
      } + wrap(entry.summary, width: width)
      + ["example: \(entry.example)"]).joined(separator: "\n")
  }

  /// A row of two columns, indented by two: the second wrapped to the width and its
  /// continuation lines aligned under its start; a first column wider than its share puts
  /// the second on the lines below.
  private static func twoColumns(_ first: String, _ second: String, firstWidth: Int, width: Int)
    -> String
  {
    let column = 2 + firstWidth + 2
    let lines = wrap(second, width: width - column)
    let pad = String(repeating: " ", count: column)
    let firstLength = DisplayWidth.of(first)
    guard firstLength <= firstWidth else {
      let usage = wrap(first, width: width - 2).map { "  " + $0 }
      return (usage + lines.map { pad + $0 }).joined(separator: "\n")
    }
    let head =
      "  " + first + String(repeating: " ", count: firstWidth - firstLength) + "  "
      + (lines.first ?? "")
    return ([head] + lines.dropFirst().map { pad + $0 }).joined(separator: "\n")
  }

  /// Words of a text on lines of at most `width` columns (a longer word has a line of its own).
  static func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      let candidate = line.isEmpty ? String(word) : line + " " + word
      if DisplayWidth.of(candidate) > width, !line.isEmpty {
        lines.append(line)
        line = String(word)
      } else {
        line = candidate
      }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }
}
