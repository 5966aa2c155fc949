import CatalogCore
import Foundation
import LineEditing

extension CatalogMain {
  /// `catalog __complete WORD LINE`: the completions of a REPL command's argument on the command
  /// line, as the REPL's Tab finds them, for the completion scripts.
  ///
  /// Reads the catalog and the saved scenes, changes nothing. Prints each candidate as the shell
  /// replaces its current word, one a line; with more matches than are printed, also what they
  /// all start with, so that the shell inserts no more than that.
  ///
  /// - Parameters:
  ///   - word: The shell's current word (a shell splits `catalog://x` at the colon).
  ///   - line: The command line up to the cursor, the program's name first.
  ///   - environment: The process environment.
  /// - Returns: Success, or failure when the line has no REPL command yet: the script then
  ///   offers the commands and options it knows.
  static func completions(of word: String, in line: String, environment: [String: String])
    -> Int32
  {
    let (words, endsInWord) = ShellWords.split(line)
    let before = words.dropFirst().dropLast(endsInWord ? 1 : 0)
    // The command starts at the first word that is no option and no option's value.
    var index = before.startIndex
    while index < before.endIndex, before[index].text.hasPrefix("-") {
      let name = String(before[index].text.prefix { $0 != "=" })
      let takesValue =
        !before[index].text.contains("=")
        && CommandLineOptions.table.contains { $0.name == name && $0.takesValue }
      index += takesValue ? 2 : 1
    }
    guard index < before.endIndex,
      CommandParser.commandWords.contains(before[index].text.lowercased())
    else { return ExitStatus.failure }
    let options = try? CommandLineOptions(before.map(\.text))
    guard
      let paths = try? AppPaths(
        stateDirectory: options?.stateDirectory, dataDirectory: options?.dataDirectory,
        catalogURL: options?.catalogURL, environment: environment),
      let snapshot = try? StateSnapshot(paths: paths)
    else { return ExitStatus.failure }
    let command = Array(line.dropFirst(before[index].start))
    let result = Completion.complete(command, cursor: command.count, state: snapshot.state)
    // The shell replaces its current word, the end of the word the REPL completes.
    let completed = String(command[min(result.start, command.count)...])
    let cut = completed.count - word.count
    guard cut >= 0, completed.hasSuffix(word) else { return ExitStatus.success }
    // As the shell replaces its word: each candidate from where that word starts.
    var replies = result.candidates.filter { $0.count >= cut }.map { String($0.dropFirst(cut)) }
    // With more matches than printed, the shell must insert no more than all of them share:
    // what they share, when the printed ones share more; when that is typed already, how many
    // more there are (which shares nothing with a name, and which its listing shows). First:
    // `$(…)` drops empty last lines.
    if let shared = result.sharedPrefix, result.total > result.listing.count {
      if shared.count <= completed.count {
        replies.insert("(\((result.total - result.listing.count).grouped) more)", at: 0)
      } else if shared.count < LineCompletion.commonPrefix(of: result.candidates).count {
        replies.insert(String(shared.dropFirst(cut)), at: 0)
      }
    }
    for reply in replies { TextOutput.standardOutput.write(reply + "\n") }
    return ExitStatus.success
  }
}

/// A shell command line split into words as a shell splits it, quotes and backslashes read, with
/// where each word starts.
enum ShellWords {
  /// The words of a line.
  ///
  /// - Parameter line: The line.
  /// - Returns: Each word's text, unquoted, and the index of its first character in the line;
  ///   and whether the line ends in a word (no space after it, or a quote left open).
  static func split(_ line: String) -> (words: [(text: String, start: Int)], endsInWord: Bool) {
    var words: [(text: String, start: Int)] = []
    var current: (text: String, start: Int)?
    var quote: Character?
    var escaped = false
    for (offset, character) in line.enumerated() {
      if escaped {
        current?.text.append(character)
        escaped = false
      } else if character == "\\" && quote != "'" {
        if current == nil { current = ("", offset) }
        escaped = true
      } else if let open = quote {
        if character == open { quote = nil } else { current?.text.append(character) }
      } else if character == "'" || character == "\"" {
        if current == nil { current = ("", offset) }
        quote = character
      } else if character.isWhitespace {
        if let word = current { words.append(word) }
        current = nil
      } else {
        if current == nil { current = ("", offset) }
        current?.text.append(character)
      }
    }
    guard let word = current else { return (words, false) }
    return (words + [word], true)
  }
}
