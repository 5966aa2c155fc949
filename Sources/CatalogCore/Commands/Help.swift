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
          words: ["continue"], usage: "continue N",
          summary: "continue search result N in this scene", example: "continue 1"),
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
          summary: "continue this scene's activity in another scene (opened if needed)",
          example: "handoff side"),
      ]
    ),
    (
      "Scenes",
      [
        Entry(
          words: ["scenes"], usage: "scenes",
          summary: "list the open scenes; * marks the active one", example: "scenes"),
        Entry(
          words: ["scene"],
          usage: "scene new NAME [PRODUCT] | scene switch NAME | scene close [NAME]",
          summary: "open, switch to or close a scene", example: "scene new side mango"),
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
          words: ["quit", "exit"], usage: "quit", summary: "save and exit (also Ctrl-D)",
          example: "quit"),
      ]
    ),
  ]

  /// The help text: all commands, or one.
  ///
  /// - Parameter topic: A command word, or nil for all.
  /// - Returns: The text.
  /// - Throws: ``CatalogCoreError/unknownCommand(_:suggestion:)`` for an unknown topic.
  package static func text(for topic: String?) throws -> String {
    guard let topic else {
      let sections = groups.map { group in
        group.title + "\n"
          + Table.render(rows: group.entries.map { [$0.usage, $0.summary] }, indent: 2)
      }
      let keys = Table.render(
        rows: [
          ["Tab", "complete; a second Tab lists the candidates"],
          ["↑ ↓ · Ctrl-R", "walk the history · search it backwards"],
          ["Ctrl-A Ctrl-E · Alt-B Alt-F", "start and end of the line · a word back and forward"],
          [
            "Ctrl-W Ctrl-U Ctrl-K · Ctrl-Y", "cut a word, to the start, to the end · paste it back",
          ],
          ["Ctrl-L · Ctrl-C · Ctrl-D", "clear the screen · abandon the line · quit"],
        ], indent: 2)
      return sections.joined(separator: "\n\n") + "\n\nKeys (in a terminal)\n" + keys
        + "\n\nState is saved after every command; the next launch restores every scene."
    }
    let entries = groups.flatMap(\.entries)
    guard let entry = entries.first(where: { $0.words.contains(topic) }) else {
      throw CatalogCoreError.unknownCommand(
        topic, suggestion: Suggestion.closest(to: topic, in: entries.flatMap(\.words)))
    }
    return "usage: \(entry.usage)\n\(entry.summary)\nexample: \(entry.example)"
  }
}
