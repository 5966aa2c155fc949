import Foundation

// Passwords written in a connection string: found without libpq (a string libpq cannot parse
// has one too), kept out of every message, and hidden from the process's command line.
extension PostgresAddress {
  /// Where a connection string holds a password, as written: a URI's `user:password@` and
  /// `?password=` parameters, a keyword string's `password=` values (quoted or not, a quote
  /// left open included).
  ///
  /// - Parameter connectionString: A URI or keyword string, which need not be well formed.
  /// - Returns: The passwords' ranges, in order.
  /// - Complexity: O(*n*) in the length of the string.
  package static func passwordRanges(in connectionString: String) -> [Range<String.Index>] {
    let text = connectionString
    let lowered = text.lowercased()
    let isURI = lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://")
    guard isURI else { return keywordPasswords(in: text) }
    var ranges: [Range<String.Index>] = []
    guard let schemeEnd = text.range(of: "://")?.upperBound else { return [] }
    // The user information ends at the last '@': a password may hold '@', '/' or '?'.
    if let at = text[schemeEnd...].lastIndex(of: "@"),
      let colon = text[schemeEnd..<at].firstIndex(of: ":")
    {
      let start = text.index(after: colon)
      if start < at { ranges.append(start..<at) }
    }
    // Query parameters: `password=…` up to the next '&'.
    var searchStart = schemeEnd
    while let found = text[searchStart...].range(of: "password=", options: .caseInsensitive) {
      let before =
        found.lowerBound > text.startIndex ? text[text.index(before: found.lowerBound)] : "?"
      let end = text[found.upperBound...].firstIndex(of: "&") ?? text.endIndex
      if before == "?" || before == "&", found.upperBound < end {
        ranges.append(found.upperBound..<end)
      }
      searchStart = found.upperBound
    }
    return ranges
  }

  /// `password = value` in a keyword string; a quoted value runs to its closing quote (`\'`
  /// escapes one) or to the end.
  private static func keywordPasswords(in text: String) -> [Range<String.Index>] {
    var ranges: [Range<String.Index>] = []
    var searchStart = text.startIndex
    while let found = text[searchStart...].range(of: "password", options: .caseInsensitive) {
      searchStart = found.upperBound
      var index = found.upperBound
      while index < text.endIndex, text[index] == " " || text[index] == "\t" {
        index = text.index(after: index)
      }
      guard index < text.endIndex, text[index] == "=" else { continue }
      index = text.index(after: index)
      while index < text.endIndex, text[index] == " " || text[index] == "\t" {
        index = text.index(after: index)
      }
      guard index < text.endIndex else { break }
      let start = index
      if text[index] == "'" {
        index = text.index(after: index)
        while index < text.endIndex, text[index] != "'" {
          if text[index] == "\\" { index = text.index(after: index) }
          if index < text.endIndex { index = text.index(after: index) }
        }
        if index < text.endIndex { index = text.index(after: index) }
      } else {
        while index < text.endIndex, !text[index].isWhitespace { index = text.index(after: index) }
      }
      if start < index { ranges.append(start..<index) }
      searchStart = index
    }
    return ranges
  }

  /// A message with every password of a connection string taken out, in each form a message
  /// may quote it (as written, percent-decoded, unquoted): libpq's own messages quote parts of
  /// the string, and no message may show the password.
  ///
  /// - Parameters:
  ///   - message: A message that may quote the connection string.
  ///   - connectionString: The connection string.
  /// - Returns: The message, each password replaced by `***`; a quoted part of the message
  ///   that holds one is replaced whole.
  package static func redacting(_ message: String, passwordsOf connectionString: String)
    -> String
  {
    var secrets: Set<String> = []
    for range in passwordRanges(in: connectionString) {
      let written = String(connectionString[range])
      secrets.insert(written)
      // A parser that ends the user information at the first '@' quotes the rest as a host.
      for piece in written.split(separator: "@") { secrets.insert(String(piece)) }
      if let decoded = written.removingPercentEncoding { secrets.insert(decoded) }
      if written.hasPrefix("'") {
        var unquoted = written.dropFirst()
        if unquoted.hasSuffix("'") { unquoted = unquoted.dropLast() }
        secrets.insert(unquoted.replacingOccurrences(of: "\\'", with: "'"))
      }
    }
    secrets.remove("")
    guard !secrets.isEmpty else { return message }
    // Quoted parts first: a short password is found inside them without touching the rest.
    var result = ""
    var rest = Substring(message)
    while let open = rest.firstIndex(of: "\"") {
      let afterOpen = rest.index(after: open)
      guard let close = rest[afterOpen...].firstIndex(of: "\"") else { break }
      let quoted = rest[afterOpen..<close]
      result += rest[..<open]
      result += secrets.contains(where: { quoted.contains($0) }) ? "\"***\"" : rest[open...close]
      rest = rest[rest.index(after: close)...]
    }
    result += rest
    // Anywhere else, every password long enough not to match ordinary words.
    for secret in secrets.sorted(by: { $0.count > $1.count }) where secret.count >= 4 {
      result = result.replacingOccurrences(of: secret, with: "***")
    }
    return result
  }
}
