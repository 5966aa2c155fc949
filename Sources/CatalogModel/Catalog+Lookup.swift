import Foundation
import SystemSupport

extension Catalog {
  /// Finds the product a person means: a list number (`9`), a UUID, or a case- and
  /// diacritic-insensitive name or unique name prefix (`cher` → Cherries).
  ///
  /// Each way is an indexed lookup in the source: the cost does not grow with the catalog.
  ///
  /// - Parameter reference: What the person typed.
  /// - Returns: The product.
  /// - Throws: ``CatalogError/noMatch(_:suggestion:)`` with the closest name,
  ///   ``CatalogError/ambiguous(_:candidates:)`` or ``CatalogError/numberOutOfRange(_:count:)``.
  package func product(matching reference: String) throws -> Product {
    let text = reference.trimmingSpaces
    if let number = Self.listNumber(in: text) {
      guard let product = product(number: number) else {
        throw CatalogError.numberOutOfRange(number, count: count)
      }
      return product
    }
    if let identifier = Self.identifier(in: text), let product = self[identifier] {
      return product
    }
    let key = text.folded
    guard !key.isEmpty else { throw CatalogError.noMatch(reference, suggestion: nil) }
    let exact = source.products(foldedName: key, exact: true, limit: 2)
    if exact.count == 1 { return self[exact[0].identifier] ?? exact[0] }
    let prefixed = source.products(foldedName: key, exact: false, limit: 6)
    if prefixed.count == 1 { return self[prefixed[0].identifier] ?? prefixed[0] }
    if prefixed.count > 1 {
      let shown = Array(prefixed.prefix(5))
      // Products of the same name are told apart only by their list numbers (with year and
      // price); a million may match, which are counted, not listed.
      let repeats = Set(shown.map(\.name.folded)).count < shown.count
      let total = prefixed.count > 5 ? source.count(foldedPrefix: key) : prefixed.count
      guard repeats else {
        throw CatalogError.ambiguous(reference, candidates: shown.map(\.name), total: total)
      }
      let numbers = catalogNumbers(of: shown)
      throw CatalogError.ambiguous(
        reference,
        candidates: shown.map { "\($0.name) (\($0.year), \($0.price.formatted))" },
        total: total, numbers: numbers)
    }
    throw CatalogError.noMatch(
      reference, suggestion: closestName(to: key, among: source.names(near: key, limit: 64)))
  }

  /// The list number a reference names, when it names one: ASCII digits, spaces around them
  /// allowed (`9`); ``product(matching:)`` finds the product at it.
  ///
  /// - Parameter reference: What the person typed.
  /// - Returns: The number; nil for a reference of another kind.
  package static func listNumber(in reference: String) -> Int? {
    let text = reference.trimmingSpaces
    guard text.allSatisfy(\.isASCII) else { return nil }
    return Int(text)
  }

  /// The identifier a reference names, when it is a UUID (spaces around it allowed);
  /// ``product(matching:)`` looks it up first, then takes it as a name.
  ///
  /// - Parameter reference: What the person typed.
  /// - Returns: The identifier; nil for a reference of another kind.
  package static func identifier(in reference: String) -> UUID? {
    UUID(canonical: reference.trimmingSpaces)
  }

  /// The list numbers of products, in their order; empty when one has none.
  private func catalogNumbers(of products: [Product]) -> [Int] {
    let numbers = products.compactMap { number(of: $0.identifier) }
    return numbers.count == products.count ? numbers : []
  }

  /// The name nearest to a folded key, when it is near enough to suggest.
  private func closestName(to key: String, among names: [String]) -> String? {
    let budget = max(1, min(3, key.count / 3))
    var best: (distance: Int, name: String)?
    for name in names {
      let folded = name.folded
      let candidate = String(folded.prefix(key.count + budget))
      let distance = min(
        editDistance(key, folded), editDistance(key, String(candidate.prefix(key.count))))
      if distance <= budget, distance < (best?.distance ?? .max) {
        best = (distance, name)
      }
    }
    return best?.name
  }
}

/// The edit distance between two strings, by characters: insertions, deletions, substitutions
/// and swaps of two neighbours (optimal string alignment).
///
/// - Complexity: O(*m* × *n*).
package func editDistance(_ lhs: String, _ rhs: String) -> Int {
  let a = Array(lhs)
  let b = Array(rhs)
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  // Optimal string alignment: two neighbours swapped (`lsit`) count as one edit, as a
  // person's typo is.
  var beforePrevious = [Int](repeating: 0, count: b.count + 1)
  var previous = Array(0...b.count)
  var current = [Int](repeating: 0, count: b.count + 1)
  for i in 1...a.count {
    current[0] = i
    for j in 1...b.count {
      let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
      current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
      if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
        current[j] = min(current[j], beforePrevious[j - 2] + 1)
      }
    }
    (beforePrevious, previous, current) = (previous, current, beforePrevious)
  }
  return previous[b.count]
}
