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
    let start = argumentOffset + skipped
    let text = String(argument.dropFirst(skipped))
    let catalog = state.catalog
    let scenes = state.scenes.map(\.name.rawValue) + otherScenes
    // Flags, wherever they are typed, come from the command table's usages: the ones help shows;
    // so does what a flag takes (`continue 1 --scene NAME`).
    let typedWords = text.split(separator: " ", omittingEmptySubsequences: false)
    let lastWord = typedWords.last ?? ""
    if typedWords.count >= 2, let flag = typedWords.dropLast().last, flag.hasPrefix("--"),
      let placeholder = CommandTable.placeholder(after: String(flag), of: command)
    {
      let wordStart = start + text.count - lastWord.count
      let kind = placeholder.uppercased()
      let candidates =
        kind == "NAME" || kind == "SCENE"
        ? matching(String(lastWord), in: scenes)
        : placeholder.contains("|")
          ? matching(String(lastWord), in: placeholder.split(separator: "|").map(String.init))
          : []
      return Result(start: wordStart, candidates: candidates)
    }
    if lastWord.hasPrefix("-") && command != "scene" {
      return Result(
        start: start + text.count - lastWord.count,
        candidates: matching(String(lastWord), in: CommandTable.flags(of: command)))
    }
    switch command {
    case "select", "push", "delete", "forget":
      return Result(start: start, candidates: matchingNames(text, in: catalog))
    case "tab":
      return Result(start: start, candidates: matching(text, in: Tabs.allCases.map(\.rawValue)))
    case "help":
      return Result(start: start, candidates: matching(text, in: CommandParser.commandWords))
    case "handoff":
      return Result(start: start, candidates: matching(text, in: scenes))
    case "open":
      return link(text, start: start, catalog: catalog, scenes: scenes)
    case "scene":
      guard let actionEnd = text.firstIndex(of: " ") else {
        return Result(
          start: start, candidates: matching(text, in: ["new", "switch", "open", "close"]))
      }
      let action = text[..<actionEnd].lowercased()
      let rest = String(text[text.index(after: actionEnd)...])
      let restStart = start + text.distance(from: text.startIndex, to: actionEnd) + 1
      let restWord = rest.split(separator: " ", omittingEmptySubsequences: false).last ?? ""
      if restWord.hasPrefix("-") {
        return Result(
          start: restStart + rest.count - restWord.count,
          candidates: matching(String(restWord), in: CommandTable.flags(of: "scene \(action)")))
      }
      switch action {
      case "switch", "open", "close":
        return Result(start: restStart, candidates: matching(rest, in: scenes))
      case "new":
        // scene new NAME PRODUCT: the product after the new scene's name.
        guard let nameEnd = rest.firstIndex(of: " ") else {
          return Result(start: restStart, candidates: [])
        }
        let product = String(rest[rest.index(after: nameEnd)...])
        let productStart = restStart + rest.distance(from: rest.startIndex, to: nameEnd) + 1
        return Result(start: productStart, candidates: matchingNames(product, in: catalog))
      default:
        return Result(start: restStart, candidates: [])
      }
    default:
      return Result(start: start, candidates: matching(text, in: CommandTable.flags(of: command)))
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
      let candidates = matchingNames(name, in: catalog).map {
        productPrefix + ($0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0)
      }
      return Result(start: start, candidates: candidates)
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

  /// Names whose folded form starts with the folded text (`che` and `CHÉ` find Cherries), in
  /// list order: an indexed query, at most ``nameLimit`` of them.
  private static func matchingNames(_ text: String, in catalog: Catalog) -> [String] {
    // What was typed so far, read as the quoting rule reads it (an open quote included).
    let typed =
      (try? CommandParser.unquoted(text))
      ?? (try? CommandParser.unquoted(text + (text.first == "'" ? "'" : "\""))) ?? text
    // Each number is looked up once, not at every comparison of the sort.
    return catalog.source.products(foldedName: typed.folded, exact: false, limit: nameLimit)
      .map { (number: catalog.number(of: $0.identifier) ?? 0, name: $0.name) }
      .sorted { $0.number < $1.number }
      .map { CommandParser.quoted($0.name) }
  }
}
