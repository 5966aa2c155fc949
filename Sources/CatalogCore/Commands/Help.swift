import LineEditing

/// The REPL's help: commands grouped by task, and each command's usage with an example.
package enum Help {
  private struct Entry {
    let words: [String]
    let usage: String
    let summary: String
    let example: String
  }

  private static let groups: [(title: String, entries: [Entry])] = [
    (
      "Browse",
      [
        Entry(
          words: ["list"], usage: "list [PAGE] | list --all",
          summary: "show a page of the products (number, name, year, price), or every one",
          example: "list 2"),
        Entry(
          words: ["select"], usage: "select PRODUCT",
          summary: "show a product's detail (by number, UUID, or name prefix)",
          example: "select cher"),
        Entry(
          words: ["push"], usage: "push PRODUCT",
          summary: "push a product's detail onto the path", example: "push mango"),
        Entry(
          words: ["year"], usage: "year YYYY [PAGE]",
          summary:
            "push the list of a year's products, or show its next page (in the editor: set the draft year)",
          example: "year 2015"),
        Entry(
          words: ["path"], usage: "path [--codable]",
          summary: "show the navigation path, or its saved JSON", example: "path --codable"),
        Entry(
          words: ["open"], usage: "open URL",
          summary: "follow a catalog:// link, e.g. products, product/ID, year/YYYY, scene/NAME/…",
          example: "open catalog://product/Cherries?tab=photo"),
        Entry(
          words: ["tab"], usage: "tab detail|photo", summary: "switch the detail tab",
          example: "tab photo"),
        Entry(
          words: ["back"], usage: "back [N]", summary: "go back N steps (default 1)",
          example: "back"),
        Entry(
          words: ["root"], usage: "root", summary: "go back to the product list", example: "root"),
      ]
    ),
    (
      "Edit",
      [
        Entry(
          words: ["edit"], usage: "edit", summary: "open the editor for the product shown",
          example: "edit"),
        Entry(
          words: ["name"], usage: "name TEXT", summary: "in the editor: change the draft name",
          example: "name Morello"),
        Entry(
          words: [], usage: "year YYYY",
          summary: "in the editor: change the draft year (1900–2100)", example: "year 2016"),
        Entry(
          words: ["price"], usage: "price X",
          summary: "in the editor: change the draft price (at most two decimals)",
          example: "price 11.49"),
        Entry(
          words: ["image"], usage: "image PATH",
          summary: "in the editor: the picture, a PNG or JPEG file (or a bundled picture's name)",
          example: "image ~/photos/cherries.jpg"),
        Entry(
          words: ["done"], usage: "done [--force]",
          summary:
            "in the editor: validate and save the fields the draft changed; --force saves them over another process's change",
          example: "done"),
        Entry(
          words: ["cancel"], usage: "cancel", summary: "in the editor: discard the draft",
          example: "cancel"),
        Entry(
          words: ["add"], usage: "add NAME",
          summary: "open the editor on a new product; 'done' adds it to the catalog",
          example: "add Kiwi"),
        Entry(
          words: ["delete"], usage: "delete PRODUCT",
          summary: "delete a product, its saved activities, and its place in every path",
          example: "delete kiwi"),
      ]
    ),
    (
      "Search and continue",
      [
        Entry(
          words: ["search"], usage: "search QUERY",
          summary: "find products and viewed activities: prefixes, \"phrases\", 樱桃, one typo",
          example: "search cher"),
        Entry(
          words: ["continue"], usage: "continue N [--scene NAME]",
          summary:
            "continue search result N in this scene, or in scene NAME (another terminal's too)",
          example: "continue 1"),
        Entry(
          words: ["activities"], usage: "activities [PAGE]",
          summary: "the saved activity history, newest first: title, product, when",
          example: "activities"),
        Entry(
          words: ["forget"], usage: "forget N | forget PRODUCT | forget --all",
          summary: "delete saved activities: entry N of 'activities', a product's, or all",
          example: "forget 1"),
        Entry(
          words: ["handoff"], usage: "handoff SCENE",
          summary:
            "continue this scene's activity in another scene (opened if needed), also one another terminal has open",
          example: "handoff side"),
      ]
    ),
    (
      "Scenes",
      [
        Entry(
          words: ["scenes"], usage: "scenes [--all]",
          summary:
            "list the scenes: this terminal's (* marks the active one), other terminals' with their process and terminal, and closed ones; --all adds scene files the session lost and when each was saved",
          example: "scenes"),
        Entry(
          words: ["scene"],
          usage:
            "scene new NAME [PRODUCT] | scene switch NAME | scene open NAME | scene close [NAME] [--discard]",
          summary:
            "open a new scene; switch to a scene, or open a saved one with its state; close a scene for good (asks before discarding a draft)",
          example: "scene new side mango"),
        Entry(
          words: ["state"], usage: "state", summary: "show the active scene's stored values",
          example: "state"),
      ]
    ),
    (
      "Session",
      [
        Entry(
          words: ["help"], usage: "help [COMMAND]", summary: "show this help, or one command's",
          example: "help select"),
        Entry(
          words: ["quit", "exit"], usage: "quit · exit", summary: "save and exit (also Ctrl-D)",
          example: "quit"),
      ]
    ),
  ]

  /// The help text: all commands, or one, wrapped to a width.
  ///
  /// - Parameters:
  ///   - topic: A command, or nil for all; only its first word counts (`help scene new`).
  ///   - width: The columns to wrap to: the terminal's, 80 in a script.
  /// - Returns: The text.
  /// - Throws: ``CatalogCoreError/unknownCommand(_:suggestion:)`` for an unknown topic.
  /// Every command word, in the order of help: what completion, typo suggestions and the
  /// shell's completion scripts offer, so that none of them misses a command help shows.
  package static let commandWords: [String] = {
    var words: [String] = []
    for word in groups.flatMap({ $0.entries.flatMap(\.words) }) where !words.contains(word) {
      words.append(word)
    }
    return words
  }()

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
