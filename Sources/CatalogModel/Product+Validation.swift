import Foundation

extension Product {
  /// The most keywords a product may have.
  package static let maximumKeywordCount = 64
  /// The longest keyword, in characters.
  package static let maximumKeywordLength = 100
  /// The longest picture name or path, in bytes.
  package static let maximumImageNameLength = 4096

  /// The first of the editor's rules (SPEC section 4) the product breaks, as the end of a
  /// sentence such as "the name has 120 characters; the limit is 100"; nil when it keeps them
  /// all.
  ///
  /// A catalog is held to the rules its editor enforces, so that a product written by hand or
  /// by another program cannot slow down or break what shows it.
  ///
  /// - Complexity: O(*n*) in the size of the product's text.
  package var ruleViolation: String? {
    // Catalogs are checked whole at launch: the common case, a short printable ASCII name,
    // is settled without trimming.
    if !Self.isPlainName(name),
      let reason = Self.nameViolation(name.trimmingSpacesAndNewlines)
    {
      return "the name " + reason
    }
    guard ProductEdit.years.contains(year) else {
      return "the year \(year) is not from 1900 to 2100"
    }
    guard price >= Price(cents: 0), price <= Price.maximum else {
      return "the price is not from $0.00 to \(Price.maximum)"
    }
    guard imageName.utf8.count <= Self.maximumImageNameLength else {
      return
        "the picture name has \(imageName.utf8.count) bytes; the limit is \(Self.maximumImageNameLength)"
    }
    if let control = imageName.unicodeScalars.first(where: \.isTerminalControl) {
      return "the picture name contains the control character \(control.codePoint)"
    }
    return Self.keywordsViolation(keywords)
  }

  /// The first rule some keywords break, as the end of a sentence; nil when they keep them.
  ///
  /// - Parameter keywords: The keywords.
  /// - Returns: What is wrong, or nil.
  package static func keywordsViolation(_ keywords: [String]) -> String? {
    guard keywords.count <= maximumKeywordCount else {
      return "it has \(keywords.count) keywords; the limit is \(maximumKeywordCount)"
    }
    for keyword in keywords {
      // No more bytes than the limit is no more characters: counting is for longer ones.
      guard
        keyword.utf8.count <= maximumKeywordLength
          || keyword.count <= maximumKeywordLength
      else {
        return
          "a keyword has \(keyword.count) characters; the limit is \(maximumKeywordLength)"
      }
      if let control = keyword.unicodeScalars.first(where: \.isTerminalControl) {
        return "a keyword contains the control character \(control.codePoint)"
      }
    }
    return nil
  }

  /// Whether a name is printable ASCII without surrounding spaces, 1 to 100 bytes long: valid
  /// and already trimmed.
  private static func isPlainName(_ name: String) -> Bool {
    let bytes = name.utf8
    guard (1...ProductEdit.maximumNameLength).contains(bytes.count), bytes.first != 0x20,
      bytes.last != 0x20
    else { return false }
    return bytes.allSatisfy { (0x20...0x7E).contains($0) }
  }

  /// Why a trimmed name breaks the editor's rules, or nil: empty, too long, or holding a
  /// control character.
  package static func nameViolation(_ trimmedName: String) -> String? {
    guard !trimmedName.isEmpty else { return "is empty" }
    // Counting stops past the limit, so a huge name costs no more than a long one.
    let length = trimmedName.prefix(ProductEdit.maximumNameLength + 1).count
    guard length <= ProductEdit.maximumNameLength else {
      return "has \(trimmedName.count) characters; the limit is \(ProductEdit.maximumNameLength)"
    }
    if let control = trimmedName.unicodeScalars.first(where: \.isTerminalControl) {
      return "contains the control character \(control.codePoint)"
    }
    return nil
  }
}

extension Unicode.Scalar {
  /// `U+001B`: the scalar's code point as Unicode writes it.
  var codePoint: String {
    let hex = String(value, radix: 16, uppercase: true)
    return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }
}
