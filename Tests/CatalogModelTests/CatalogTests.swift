import CatalogModel
import CatalogTestSupport
import Foundation
import TestSupport
import Testing

@Suite struct CatalogTests {
  let catalog = Catalog(bundledProducts)

  @Test func theBundledCatalogHasTheTenProductsOfTheSample() {
    #expect(
      (1...catalog.count).compactMap { catalog.product(number: $0)?.name } == [
        "Ginger", "Gladiolus", "Orchid", "Poinsettia", "Red Rose", "White Rose", "Mango", "Peanuts",
        "Cherries", "Artichoke",
      ])
    let cherries = catalog[UUID(uuidString: "fa542e3d-4895-44b6-942f-e112101d5160")!]
    #expect(cherries?.price == Price(cents: 1099))
    #expect(cherries?.year == 2015)
    #expect(cherries?.keywords == ["樱桃", "车厘子", "cerises", "fruit"])
  }

  @Test(arguments: [
    ("9", "Cherries"), ("cher", "Cherries"), ("CHERRIES", "Cherries"), ("red rose", "Red Rose"),
    ("fa542e3d-4895-44b6-942f-e112101d5160", "Cherries"),
    ("FA542E3D-4895-44B6-942F-E112101D5160", "Cherries"),
    ("white", "White Rose"), ("Ｍａｎｇｏ", "Mango"), ("  1  ", "Ginger"), ("gla", "Gladiolus"),
  ])
  func findsProducts(_ reference: String, _ name: String) throws {
    #expect(try catalog.product(matching: reference).name == name)
  }

  /// What kind of reference text is, as the lookup decides it: a list number (ASCII digits),
  /// else an identifier (a UUID), else a name; a launch on a server reads the first two ahead.
  @Test func tellsNumbersAndIdentifiersFromNames() {
    let cherries = UUID(uuidString: "FA542E3D-4895-44B6-942F-E112101D5160")
    #expect(Catalog.listNumber(in: "  9 ") == 9)
    #expect(Catalog.listNumber(in: "９") == nil)
    #expect(Catalog.listNumber(in: "99999999999999999999") == nil)
    #expect(Catalog.listNumber(in: "cherries") == nil)
    #expect(Catalog.identifier(in: " fa542e3d-4895-44b6-942f-e112101d5160 ") == cherries)
    #expect(Catalog.identifier(in: "9") == nil)
    #expect(Catalog.identifier(in: "cherries") == nil)
  }

  @Test func findsNamesWithoutTheirDiacritics() throws {
    var products = bundledProducts
    products[0].name = "Crème Brûlée"
    #expect(try Catalog(products).product(matching: "creme bru").name == "Crème Brûlée")
    #expect(try Catalog(products).product(matching: "CRÈME").name == "Crème Brûlée")
  }

  @Test func suggestsTheClosestName() {
    #expect(throws: CatalogError.noMatch("chery", suggestion: "Cherries")) {
      try catalog.product(matching: "chery")
    }
    #expect(throws: CatalogError.noMatch("zzzz", suggestion: nil)) {
      try catalog.product(matching: "zzzz")
    }
    let message = CatalogError.noMatch("chery", suggestion: "Cherries").localizedDescription
    #expect(message == "no product matches 'chery'; did you mean 'Cherries'?")
  }

  @Test func reportsAmbiguousPrefixesAndNumbersOutOfRange() {
    var products = bundledProducts
    products[1].name = "Mandarin"
    #expect(throws: CatalogError.ambiguous("man", candidates: ["Mandarin", "Mango"], total: 2)) {
      try Catalog(products).product(matching: "man")
    }
    #expect(throws: CatalogError.numberOutOfRange(11, count: 10)) {
      try catalog.product(matching: "11")
    }
    #expect(throws: CatalogError.numberOutOfRange(0, count: 10)) {
      try catalog.product(matching: "0")
    }
  }
}

@Suite struct ProductEditTests {
  let cherries = bundledProducts[8]

  @Test func aValidDraftIsApplied() throws {
    let edited = try ProductEdit(name: "  Morello ", year: "2016", price: "11.49").applied(
      to: cherries)
    #expect(edited.name == "Morello")
    #expect(edited.year == 2016)
    #expect(edited.price == Price(cents: 1149))
    #expect(edited.identifier == cherries.identifier)
  }

  /// Every validation rule of SPEC section 4, and the order in which fields are named.
  @Test(arguments: [
    (
      ProductEdit(name: "", year: "2015", price: "1"),
      "the name is empty; type 'name TEXT' to set it"
    ),
    (
      ProductEdit(name: "   ", year: "2015", price: "1"),
      "the name is empty; type 'name TEXT' to set it"
    ),
    (
      ProductEdit(name: String(repeating: "x", count: 101), year: "2015", price: "1"),
      "the name has 101 characters; the limit is 100"
    ),
    (
      ProductEdit(name: "a\u{7}b", year: "2015", price: "1"),
      "the name contains the control character U+0007"
    ),
    (
      ProductEdit(name: "ok", year: "1899", price: "1"),
      "the year '1899' is not a year from 1900 to 2100"
    ),
    (
      ProductEdit(name: "ok", year: "2101", price: "1"),
      "the year '2101' is not a year from 1900 to 2100"
    ),
    (
      ProductEdit(name: "ok", year: "20x5", price: "1"),
      "the year '20x5' is not a year from 1900 to 2100"
    ),
    (
      ProductEdit(name: "ok", year: "2015.5", price: "1"),
      "the year '2015.5' is not a year from 1900 to 2100"
    ),
    (
      ProductEdit(name: "ok", year: "2015", price: "1.999"),
      "the price '1.999' has more than two digits after the point"
    ),
    (
      ProductEdit(name: "ok", year: "2015", price: "1000000.01"),
      "the price '1000000.01' is more than $1,000,000.00"
    ),
    (
      ProductEdit(name: "ok", year: "2015", price: "-3"),
      "the price '-3' is negative"
    ),
    (
      ProductEdit(name: "", year: "0", price: "x"),
      "the draft cannot be saved: the name is empty; type 'name TEXT' to set it; the year '0' is not a year from 1900 to 2100; the price 'x' is not a number like 10.99"
    ),
    (
      ProductEdit(name: "ok", year: "0", price: "x"),
      "the draft cannot be saved: the year '0' is not a year from 1900 to 2100; the price 'x' is not a number like 10.99"
    ),
  ])
  func anInvalidDraftNamesEveryBadField(_ draft: ProductEdit, _ message: String) {
    do {
      _ = try draft.applied(to: cherries)
      Issue.record("accepted \(draft)")
    } catch {
      #expect(error.localizedDescription == message)
    }
  }

  @Test(arguments: [
    ProductEdit(name: String(repeating: "é", count: 100), year: "1900", price: "0"),
    ProductEdit(name: "樱桃 Cherries", year: "2100", price: "1000000"),
  ])
  func theLimitsThemselvesAreAccepted(_ draft: ProductEdit) throws {
    _ = try draft.applied(to: cherries)
  }
}

@Suite struct CatalogLookupTests {
  /// Typing more of a name cannot tell products of the same name apart: they come with their
  /// list numbers, years and prices, and the hint says which number to type.
  @Test func productsOfTheSameNameAreToldApartByNumber() throws {
    var products = bundledProducts
    products[2].name = "Mango"
    let error = #expect(throws: CatalogError.self) {
      try Catalog(products).product(matching: "mango")
    }
    let message = try #require(error).localizedDescription
    #expect(
      message.hasPrefix("'mango' matches 2 products: 3 Mango (\(products[2].year), "), "\(message)")
    #expect(message.contains(", 7 Mango (2013, $6.99)"), "\(message)")
    #expect(message.hasSuffix("type 'select 3' for the first, or another number"), "\(message)")
  }

  /// At a million products a prefix may match thousands: they are counted, five are named.
  @Test func manyMatchesAreCountedNotListed() throws {
    let products = (1...40).map { number in
      Product(
        identifier: UUID(), name: "Café au lait", imageName: "", year: 2000 + number % 20,
        price: Price(cents: 100 * number))
    }
    let error = #expect(throws: CatalogError.self) {
      try Catalog(products).product(matching: "cafe")
    }
    let message = try #require(error).localizedDescription
    #expect(
      message.hasPrefix("'cafe' matches 40 products, the first 5: 1 Café au lait"), "\(message)")
    #expect(message.hasSuffix("type 'select 1' for the first, or another number"))
  }
}
