import Foundation

/// Where a catalog's products are read from: the user's database, or products in memory.
///
/// Every query asks for what it shows — one product, one page — so that a catalog reads the
/// same at a million products as at ten. List numbers run from 1 to ``count`` in the catalog's
/// order. Reads do not throw: a source that fails to read answers as if the product were not
/// there, and keeps the reason for the app to report (an engine's `takeReadFailure()`).
package protocol CatalogSource: AnyObject, Sendable {
  /// A number that changes whenever the products change.
  var generation: Int { get }
  /// The number of products.
  var count: Int { get }
  /// How many reads failed in this process: a read that answered nothing while it grew
  /// failed, rather than found nothing.
  var failedReads: Int { get }
  /// The product with a list number.
  func product(number: Int) -> Product?
  /// The product with an identifier.
  func product(identifier: UUID) -> Product?
  /// A product's list number.
  func number(of identifier: UUID) -> Int?
  /// The list numbers of many products at once, of those the catalog has.
  func numbers(of identifiers: [UUID]) -> [UUID: Int]
  /// The products with list numbers in a range, in order, with their numbers; a product the
  /// source cannot show is missing, and the others keep their numbers.
  func products(numbers: ClosedRange<Int>) -> [(number: Int, product: Product)]
  /// The products with list numbers, each by its number: those the catalog has and can show.
  func products(atNumbers numbers: [Int]) -> [Int: Product]
  /// The number of products of a year.
  func count(year: Int) -> Int
  /// A year's products with their list numbers, in order, skipping `offset` of them.
  func products(year: Int, offset: Int, limit: Int) -> [(number: Int, product: Product)]
  /// Products whose folded name (``Swift/String/folded``) starts with a folded prefix (or
  /// equals it, when `exact`), in folded-name order.
  func products(foldedName: String, exact: Bool, limit: Int) -> [Product]
  /// How many products' folded names start with a folded prefix.
  func count(foldedPrefix: String) -> Int
  /// The last, in folded-name order, of the products whose folded names start with a folded
  /// prefix: with the first, it bounds what every one of their names starts with.
  func lastProduct(foldedPrefix: String) -> Product?
  /// Names whose folded forms sort just before and after a folded key: candidates to suggest
  /// for a typo.
  func names(near foldedKey: String, limit: Int) -> [String]
  /// Calls a body with every product in list order and its list number, without holding them
  /// all in memory; a product the source cannot show is skipped, and the others keep their
  /// numbers.
  func forEachNumberedProduct(_ body: (_ number: Int, _ product: Product) throws -> Void) rethrows
  /// Calls a body with every product in order and its list number, in one snapshot, as the
  /// row's bytes where they show it keeps the editor's rules, otherwise as a `Product`.
  func forEachRecord(_ body: (_ number: Int, ProductRecord) throws -> Void) throws
  /// The widest name, in terminal columns, and the largest price in cents, of a whole list.
  func widestNameAndPrice(width: (String) -> Int) throws -> (name: Int, cents: Int)
  /// One line for each product left out since the last call because its row breaks the
  /// editor's rules; each is reported once in a process.
  func takeSkippedRows() -> [String]
  /// What changed after a generation, read in one snapshot: for a search index to follow.
  ///
  /// - Returns: The changes, or nil when there are more than `limit` (or the source keeps no
  ///   log of its changes).
  func changes(after generation: Int, limit: Int) throws -> CatalogChanges?
}

extension CatalogSource {
  /// Every product as itself: for catalogs in memory.
  package func forEachRecord(_ body: (_ number: Int, ProductRecord) throws -> Void) throws {
    try forEachNumberedProduct { try body($0, .product($1)) }
  }

  /// Measured one by one: for catalogs in memory.
  package func widestNameAndPrice(width: (String) -> Int) throws -> (name: Int, cents: Int) {
    var widest = (name: 0, cents: 0)
    forEachNumberedProduct { _, product in
      widest.name = max(widest.name, width(product.name.escapingControlCharacters))
      widest.cents = max(widest.cents, product.price.cents)
    }
    return widest
  }

  /// None: products in memory were checked as they were made.
  package func takeSkippedRows() -> [String] { [] }

  /// None: products in memory are always read.
  package var failedReads: Int { 0 }

  /// None: products in memory keep no log of their changes.
  package func changes(after generation: Int, limit: Int) throws -> CatalogChanges? { nil }

  /// Counts them one by one: for catalogs in memory.
  package func count(foldedPrefix: String) -> Int {
    products(foldedName: foldedPrefix, exact: false, limit: Int.max).count
  }

  /// Looks through them all: for catalogs in memory.
  package func lastProduct(foldedPrefix: String) -> Product? {
    products(foldedName: foldedPrefix, exact: false, limit: Int.max).last
  }

  /// Calls a body with every product in list order, without holding them all in memory.
  package func forEachProduct(_ body: (Product) throws -> Void) rethrows {
    try forEachNumberedProduct { try body($1) }
  }
}

extension CatalogSource {
  /// The products with list numbers, looked up one by one.
  package func products(atNumbers numbers: [Int]) -> [Int: Product] {
    var found: [Int: Product] = [:]
    for number in numbers { found[number] = product(number: number) }
    return found
  }

  /// The list numbers of many products, looked up one by one.
  package func numbers(of identifiers: [UUID]) -> [UUID: Int] {
    var numbers: [UUID: Int] = [:]
    for identifier in identifiers {
      if let number = number(of: identifier) { numbers[identifier] = number }
    }
    return numbers
  }
}

/// The products in list order, read from a ``CatalogSource``.
///
/// A value: two catalogs are equal when they read the same source at the same generation with
/// the same pending replacements. ``replace(_:)`` changes this value only, until the app saves
/// the change to its source.
package struct Catalog: Sendable, Hashable {
  /// The products' source.
  package let source: any CatalogSource
  /// The source's generation when this value was made.
  package let generation: Int
  private var replacements: [UUID: Product] = [:]
  private var removals: Set<UUID> = []

  /// A catalog of products in memory; of products sharing an identifier, the first is kept.
  ///
  /// - Parameter products: The products in list order.
  /// - Complexity: O(*n*).
  package init(_ products: [Product]) {
    self.init(source: ProductList(products))
  }

  /// A catalog read from a source, at its current generation.
  ///
  /// - Parameter source: The source.
  package init(source: any CatalogSource) {
    self.source = source
    generation = source.generation
  }

  /// Whether two catalogs read the same source at the same generation with the same pending changes.
  package static func == (lhs: Catalog, rhs: Catalog) -> Bool {
    lhs.source === rhs.source && lhs.generation == rhs.generation
      && lhs.replacements == rhs.replacements && lhs.removals == rhs.removals
  }

  /// Hashes the source and the generation.
  package func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(source))
    hasher.combine(generation)
  }

  /// The number of products.
  package var count: Int { source.count }

  /// How many reads of the source failed in this process (``CatalogSource/failedReads``).
  package var failedReads: Int { source.failedReads }

  /// Whether the catalog has no products.
  package var isEmpty: Bool { count == 0 }

  /// The product with an identifier, if the catalog has it.
  ///
  /// - Parameter identifier: The product's identifier.
  package subscript(identifier: UUID) -> Product? {
    if removals.contains(identifier) { return nil }
    if let replaced = replacements[identifier] { return replaced }
    return source.product(identifier: identifier)
  }

  /// The product with a list number (1 is the first), if there is one.
  ///
  /// - Parameter number: The list number.
  /// - Returns: The product, or nil past either end of the list.
  package func product(number: Int) -> Product? {
    guard number >= 1, number <= count, let product = source.product(number: number) else {
      return nil
    }
    return replacements[product.identifier] ?? product
  }

  /// The products with list numbers, each by its number: for a catalog on a server, one
  /// request rather than one for each.
  ///
  /// - Parameter numbers: The list numbers.
  /// - Returns: The product at each number the list has.
  package func products(atNumbers numbers: [Int]) -> [Int: Product] {
    source.products(atNumbers: numbers.filter { $0 >= 1 && $0 <= count }).mapValues {
      replacements[$0.identifier] ?? $0
    }
  }

  /// A product's list number, if the catalog has it.
  ///
  /// - Parameter identifier: The product's identifier.
  /// - Returns: The number, from 1.
  package func number(of identifier: UUID) -> Int? {
    source.number(of: identifier)
  }

  /// The list numbers of many products at once: for a database, one read of the catalog rather
  /// than one for each.
  ///
  /// - Parameter identifiers: The products' identifiers.
  /// - Returns: The number of each product the catalog has, from 1.
  package func numbers(of identifiers: [UUID]) -> [UUID: Int] {
    source.numbers(of: identifiers)
  }

  /// One page of the list: the products with their list numbers.
  ///
  /// - Parameters:
  ///   - page: The page, from 1.
  ///   - size: Products a page.
  /// - Returns: The page's products; empty past the last page.
  package func page(_ page: Int, size: Int) -> [(number: Int, product: Product)] {
    guard let numbers = Paging(total: count, size: size).numbers(onPage: page) else { return [] }
    return source.products(numbers: numbers).map {
      ($0.number, replacements[$0.product.identifier] ?? $0.product)
    }
  }

  /// The number of products of a year.
  ///
  /// - Parameter year: The year.
  /// - Returns: The count.
  package func count(year: Int) -> Int {
    source.count(year: year)
  }

  /// One page of a year's products, with their list numbers in the whole catalog.
  ///
  /// - Parameters:
  ///   - page: The page, from 1.
  ///   - size: Products a page.
  ///   - year: The year.
  /// - Returns: The page's products.
  package func page(_ page: Int, size: Int, year: Int) -> [(number: Int, product: Product)] {
    let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: size)
    guard page >= 1, size >= 1, !overflow else { return [] }
    return source.products(year: year, offset: offset, limit: size).map {
      ($0.number, replacements[$0.product.identifier] ?? $0.product)
    }
  }

  /// Calls a body with every product in list order. O(*n*): for export and indexing only.
  ///
  /// - Parameter body: What to do with each product.
  package func forEachProduct(_ body: (Product) throws -> Void) rethrows {
    try source.forEachProduct { try body(replacements[$0.identifier] ?? $0) }
  }

  /// Calls a body with every product in list order and its list number. O(*n*): for listing
  /// everything, export and indexing only.
  ///
  /// - Parameter body: What to do with each product.
  package func forEachNumberedProduct(_ body: (_ number: Int, _ product: Product) throws -> Void)
    rethrows
  {
    try source.forEachNumberedProduct { try body($0, replacements[$1.identifier] ?? $1) }
  }

  /// Removes a product, in this value only: it is no longer found by its identifier.
  ///
  /// - Parameter identifier: The product's identifier.
  package mutating func remove(_ identifier: UUID) {
    removals.insert(identifier)
  }

  /// Replaces the product that has the same identifier, in this value only.
  ///
  /// - Parameter product: The new version of the product.
  /// - Returns: false when the catalog has no product with that identifier.
  @discardableResult
  package mutating func replace(_ product: Product) -> Bool {
    guard self[product.identifier] != nil else { return false }
    replacements[product.identifier] = product
    return true
  }
}

/// Products held in memory: the bundled catalog, and catalogs made in tests.
package final class ProductList: CatalogSource {
  private let products: [Product]
  private let numbers: [UUID: Int]
  private let folded: [(name: String, index: Int)]

  /// Creates a list; of products sharing an identifier, the first is kept.
  ///
  /// - Parameter products: The products in list order.
  package init(_ products: [Product]) {
    var unique: [Product] = []
    var numbers: [UUID: Int] = [:]
    for product in products where numbers[product.identifier] == nil {
      unique.append(product)
      numbers[product.identifier] = unique.count
    }
    self.products = unique
    self.numbers = numbers
    folded = unique.enumerated().map { ($1.name.folded, $0) }.sorted {
      ($0.name, $0.index) < ($1.name, $1.index)
    }
  }

  /// A number that changes whenever the products change.
  package var generation: Int { 0 }
  /// The number of products.
  package var count: Int { products.count }

  /// The product with a list number.
  package func product(number: Int) -> Product? {
    products.indices.contains(number - 1) ? products[number - 1] : nil
  }

  /// The product with an identifier.
  package func product(identifier: UUID) -> Product? {
    numbers[identifier].map { products[$0 - 1] }
  }

  /// A product's list number.
  package func number(of identifier: UUID) -> Int? {
    numbers[identifier]
  }

  /// The products with list numbers in a range, in order, with their numbers.
  package func products(numbers: ClosedRange<Int>) -> [(number: Int, product: Product)] {
    let range = numbers.clamped(to: 1...max(1, products.count))
    guard !products.isEmpty else { return [] }
    return range.map { ($0, products[$0 - 1]) }
  }

  /// The number of products.
  package func count(year: Int) -> Int {
    products.count { $0.year == year }
  }

  /// A page of a year's products with their list numbers.
  package func products(year: Int, offset: Int, limit: Int) -> [(number: Int, product: Product)] {
    Array(
      products.enumerated().lazy.filter { $0.element.year == year }.dropFirst(offset).prefix(limit)
        .map { ($0.offset + 1, $0.element) })
  }

  /// Products by folded name, or by folded-name prefix, in folded-name order.
  package func products(foldedName key: String, exact: Bool, limit: Int) -> [Product] {
    Array(
      folded.lazy.filter { exact ? $0.name == key : $0.name.hasPrefix(key) }.prefix(limit).map {
        self.products[$0.index]
      })
  }

  /// Names that sort near a folded key.
  package func names(near foldedKey: String, limit: Int) -> [String] {
    folded.map { products[$0.index].name }
  }

  /// Calls a body with every product in order, and its number.
  package func forEachNumberedProduct(_ body: (Int, Product) throws -> Void) rethrows {
    for (offset, product) in products.enumerated() { try body(offset + 1, product) }
  }
}
