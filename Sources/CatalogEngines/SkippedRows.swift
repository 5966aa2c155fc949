import CatalogModel
import Foundation
import Synchronization
import SystemSupport

/// The catalog rows a process left out because they break the editor's rules (written by
/// another program, or by hand): each reported once, the first few by name and the rest
/// counted. Shared by the catalog's engines.
final class SkippedRows: Sendable {
  private struct State {
    var lines: [String] = []
    var unnamed = 0
    var identifiers: Set<String> = []
  }
  private let state = Mutex(State())

  /// How many rows left out are named in the warnings of one call; the others are counted.
  static let named = 5

  /// Records a row left out, once for each identifier.
  ///
  /// - Parameters:
  ///   - identifier: The row's identifier, as it is (cut to 40 bytes).
  ///   - name: The start of its name, and whether the name is longer.
  ///   - reason: Which rule it breaks.
  func record(identifier: String, name: (prefix: String, isCut: Bool), reason: String) {
    state.withLock { state in
      guard state.identifiers.insert(identifier).inserted else { return }
      guard state.lines.count < Self.named else {
        state.unnamed += 1
        return
      }
      let shown = name.isCut ? name.prefix + "…" : name.prefix
      state.lines.append(
        "the catalog's product '\(shown)' (\(identifier)) breaks the editor's rules (\(reason)) and is not shown; import a product with that identifier to replace it"
      )
    }
  }

  /// One line for each row left out since the last call, which clears them.
  func take() -> [String] {
    state.withLock { state in
      defer { (state.lines, state.unnamed) = ([], 0) }
      return state.lines
        + (state.unnamed == 0
          ? []
          : [
            "\(state.unnamed) more of the catalog's products break the editor's rules and are not shown"
          ])
    }
  }

  /// Why a row's sizes alone break the rules, checked before any text is read: a name of ten
  /// megabytes is never copied. Nil when the sizes are within the rules.
  static func sizeProblem(nameBytes: Int, imageNameBytes: Int, keywordBytes: Int) -> String? {
    if nameBytes > 4 * ProductEdit.maximumNameLength + 64 {
      return
        "the name has \(nameBytes) bytes; the limit is \(ProductEdit.maximumNameLength) characters"
    }
    if imageNameBytes > Product.maximumImageNameLength {
      return
        "the picture name has \(imageNameBytes) bytes; the limit is \(Product.maximumImageNameLength)"
    }
    if keywordBytes > Product.maximumKeywordCount * (4 * Product.maximumKeywordLength + 1) {
      return "its keywords have \(keywordBytes) bytes"
    }
    return nil
  }

  /// Keywords are stored joined by the unit separator, which a keyword cannot contain (it is a
  /// control character: ``Product/ruleViolation``).
  static let keywordSeparator = "\u{1F}"

  /// A row's product from its columns' text; nil when its identifier is not a UUID.
  static func product(
    identifier: String, name: String, imageName: String, year: Int, cents: Int,
    keywords: String, imageDirectory: String?
  ) -> Product? {
    guard let identifier = UUID(canonical: identifier) else { return nil }
    return Product(
      identifier: identifier, name: name, imageName: imageName, year: year,
      price: Price(cents: cents),
      keywords: keywords.isEmpty
        ? []
        : keywords.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init),
      imageDirectory: imageDirectory)
  }
}
