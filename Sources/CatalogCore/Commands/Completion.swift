import CatalogModel
import Foundation
import LineEditing
import StateRestoration

/// Tab completion by context: command words, `scene` actions, product names (spaces and all),
/// scene names, tabs, and `catalog://` link forms.
package enum Completion {
  /// The candidates for the word before the cursor, and where it starts.
  package typealias Result = LineCompletion

  /// The completions for the text before the cursor.
  ///
  /// - Parameters:
  ///   - line: The line's characters.
  ///   - cursor: The cursor's index.
  ///   - state: The app's state, for product and scene names.
  ///   - otherScenes: The session's scenes this process does not have open (saved ones, other
  ///     terminals'), which `scene switch`, `scene open`, `scene close` and `handoff` reach too.
  /// - Returns: The candidates and the word they replace.
  package static func complete(
    _ line: [Character], cursor: Int, state: AppState, otherScenes: [String] = []
  ) -> Result {
    let before = String(line[..<min(cursor, line.count)])
    let leading = before.prefix { $0 == " " }.count
    let trimmed = String(before.dropFirst(leading))
    guard let space = trimmed.firstIndex(of: " ") else {
      return Result(start: leading, candidates: matching(trimmed, in: CommandParser.commandWords))
    }
    let command = trimmed[..<space].lowercased()
    let argumentOffset = leading + trimmed.distance(from: trimmed.startIndex, to: space) + 1
    let argument = String(trimmed[trimmed.index(after: space)...])
    let skipped = argument.prefix { $0 == " " }.count
    var start = argumentOffset + skipped
    var text = String(argument.dropFirst(skipped))
    let catalog = state.catalog
    let scenes = state.scenes.map(\.name.rawValue) + otherScenes
    // Everything offered comes from the command's entry in the table: its flags (as its forms
    // declare them, the ones help shows), what a flag takes, its actions and what each argument is.
    let entry = CommandTable.entry(for: command)
    var form = command
    var kinds = entry?.arguments ?? []
    if let actions = entry?.actions, !actions.isEmpty {
      guard let actionEnd = text.firstIndex(of: " ") else {
        return Result(start: start, candidates: matching(text, in: actions.map(\.word)))
      }
      let action = text[..<actionEnd].lowercased()
      form = command + " " + action
      kinds = actions.first { $0.word == action }?.arguments ?? []
      start += text.distance(from: text.startIndex, to: actionEnd) + 1
      text = String(text[text.index(after: actionEnd)...])
    }
    let words = text.split(separator: " ", omittingEmptySubsequences: false)
    let current = words.last ?? ""
    let currentStart = start + text.count - current.count
    if words.count >= 2, let flag = words.dropLast().last, flag.hasPrefix("--"),
      let kind = entry?.flagValues[String(flag)]
    {
      return complete(kind, String(current), at: currentStart, catalog: catalog, scenes: scenes)
    }
    if current.hasPrefix("-") {
      return Result(
        start: currentStart,
        candidates: matching(String(current), in: CommandTable.flags(of: form)))
    }
    // A product's name takes the rest of the line, spaces and all.
    if let product = kinds.prefix(words.count).firstIndex(of: .product) {
      let rest = words[product...].joined(separator: " ")
      return names(rest, at: start + text.count - rest.count, in: catalog)
    }
    guard words.count <= kinds.count, kinds[words.count - 1].offersCandidates else {
      return Result(
        start: currentStart,
        candidates: matching(String(current), in: CommandTable.flags(of: form)))
    }
    return complete(
      kinds[words.count - 1], String(current), at: currentStart, catalog: catalog, scenes: scenes)
  }

  /// What an argument of a kind can be, starting with what is typed.
  private static func complete(
    _ kind: ArgumentKind, _ text: String, at start: Int, catalog: Catalog, scenes: [String]
  ) -> Result {
    switch kind {
    case .product: names(text, at: start, in: catalog)
    case .scene: Result(start: start, candidates: matching(text, in: scenes))
    case .link: link(text, start: start, catalog: catalog, scenes: scenes)
    case .command: Result(start: start, candidates: matching(text, in: CommandParser.commandWords))
    case .choice(let words): Result(start: start, candidates: matching(text, in: words))
    case .text, .query, .word, .number, .page: Result(start: start, candidates: [])
    }
  }

  /// The `catalog://` forms, and product and scene names inside them.
  private static func link(_ text: String, start: Int, catalog: Catalog, scenes: [String])
    -> Result
  {
    let productPrefix = "catalog://product/"
    let scenePrefix = "catalog://scene/"
    if text.lowercased().hasPrefix(productPrefix) {
      let name = String(text.dropFirst(productPrefix.count)).removingPercentEncoding ?? ""
      return names(name, at: start, in: catalog) {
        productPrefix + ($0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0)
      }
    }
    if text.lowercased().hasPrefix(scenePrefix) {
      let name = String(text.dropFirst(scenePrefix.count))
      return Result(
        start: start, candidates: matching(name, in: scenes).map { scenePrefix + $0 + "/" },
        isFinal: false)
    }
    let forms = [
      "catalog://products", productPrefix, "catalog://year/", "catalog://search?q=", scenePrefix,
    ]
    let candidates = matching(text, in: forms)
    return Result(
      start: start, candidates: candidates,
      isFinal: candidates.count == 1 && candidates[0] == "catalog://products")
  }

  private static func matching(_ text: String, in words: [String]) -> [String] {
    words.filter { $0.lowercased().hasPrefix(text.lowercased()) }
  }

  /// The most product names offered at once.
  static let nameLimit = 100

  /// The names whose folded form starts with the folded text (`che` and `CHÉ` find Cherries),
  /// in folded-name order: the first ``nameLimit`` of them, how many there are, and what all of
  /// them start with — a few indexed queries, whatever the catalog's size. Products of one name
  /// are listed each with its list number, to tell them apart.
  ///
  /// - Parameters:
  ///   - text: What was typed of the name.
  ///   - start: Where it starts in the line.
  ///   - catalog: The catalog.
  ///   - written: How a name is written on the line: quoted as the parser reads it back, or
  ///     as a link's path.
  /// - Returns: The candidates, the listing, the count and the shared prefix.
  private static func names(
    _ text: String, at start: Int, in catalog: Catalog,
    written: (String) -> String = { CommandParser.quoted($0) }
  ) -> Result {
    // What was typed so far, read as the quoting rule reads it (an open quote included).
    let typed =
      (try? CommandParser.unquoted(text))
      ?? (try? CommandParser.unquoted(text + (text.first == "'" ? "'" : "\""))) ?? text
    let key = typed.folded
    let source = catalog.source
    let found = source.products(foldedName: key, exact: false, limit: nameLimit)
    var total = found.count
    var shared: String?
    if found.count == nameLimit {
      total = key.isEmpty ? catalog.count : source.count(foldedPrefix: key)
      if let first = found.first, let last = source.lastProduct(foldedPrefix: key) {
        shared = LineCompletion.commonPrefix(of: [written(first.name), written(last.name)])
      }
    }
    let names = found.map(\.name)
    let repeated = Set(
      Dictionary(grouping: names.map(\.folded)) { $0 }.filter { $1.count > 1 }.keys)
    let numbers =
      repeated.isEmpty
      ? [:]
      : source.numbers(of: found.filter { repeated.contains($0.name.folded) }.map(\.identifier))
    var candidates: [String] = []
    var seen: Set<String> = []
    for name in names where seen.insert(name).inserted { candidates.append(written(name)) }
    let listing = found.map { product in
      numbers[product.identifier].map { "\(written(product.name)) (#\($0))" }
        ?? written(product.name)
    }
    return Result(
      start: start, candidates: candidates, listing: listing, total: total, sharedPrefix: shared,
      note: numbers.isEmpty ? nil : "(#N) is a list number: type it in place of the name.")
  }
}
