import CatalogModel
import Foundation

extension AppEnvironment {
  /// The most products a reference found by its words names in its error.
  static var wordMatchesShown: Int { 5 }

  /// Finds the product a person means, as ``CatalogModel/Catalog/product(matching:)`` does, or,
  /// when no name starts with what was typed, by the words of its name: `rose` finds Red Rose.
  ///
  /// The words are looked up with the app's search, so the cost does not grow with the catalog.
  ///
  /// - Parameters:
  ///   - reference: What the person typed.
  ///   - catalog: The catalog.
  /// - Returns: The product: the one whose name starts with the reference, or the only one whose
  ///   name has a word starting with each of its words.
  /// - Throws: `CatalogError.wordMatches` naming the products that have the words, with their
  ///   list numbers, when there are several; otherwise what `product(matching:)` throws.
  package func product(matching reference: String, in catalog: Catalog) throws -> Product {
    do {
      return try catalog.product(matching: reference)
    } catch CatalogError.noMatch(let typed, let suggestion) {
      let words = Self.words(of: reference.folded)
      // A query the search refuses (an unclosed quote, say) finds nothing by its words either.
      guard !words.isEmpty,
        let results = try? search(reference, in: catalog).results
      else { throw CatalogError.noMatch(typed, suggestion: suggestion) }
      let named = results.map(\.product).filter { product in
        let nameWords = Self.words(of: product.name.folded)
        return words.allSatisfy { word in nameWords.contains { $0.hasPrefix(word) } }
      }
      guard let first = named.first else {
        throw CatalogError.noMatch(typed, suggestion: suggestion)
      }
      if named.count == 1 { return catalog[first.identifier] ?? first }
      let shown = Array(named.prefix(Self.wordMatchesShown))
      let numbers = catalog.source.numbers(of: shown.map(\.identifier))
      let listed = shown.compactMap { product in numbers[product.identifier].map { ($0, product) } }
      throw CatalogError.wordMatches(
        typed, candidates: listed.map(\.1.name), numbers: listed.map(\.0),
        more: named.count > shown.count || results.count >= ActivitySearch.defaultLimit)
    }
  }

  /// The words of folded text: runs of letters and digits.
  private static func words(of folded: String) -> [Substring] {
    folded.split { !$0.isLetter && !$0.isNumber }
  }
}
