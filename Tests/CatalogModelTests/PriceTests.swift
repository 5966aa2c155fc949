import CatalogModel
import Foundation
import StateRestoration
import SystemSupport
import TestSupport
import Testing

@Suite struct PriceTests {
  @Test(arguments: [
    ("10.99", 1099), ("10", 1000), ("10.5", 1050), ("$10.99", 1099), ("0", 0), ("0.01", 1),
    (".5", 50), ("1000000", 100_000_000), ("1000000.00", 100_000_000), (" 7.25 ", 725),
    ("007.10", 710), ("10.", 1000), ("1,000", 100_000), ("$1,299.50", 129_950),
    ("1,000,000", 100_000_000),
  ])
  func parsesPrices(_ text: String, _ cents: Int) throws {
    #expect(try Price(parsing: text).cents == cents)
  }

  @Test(arguments: [
    "", "abc", "10.999", "1,00", "12,34.5", ",100", "-1", "1000000.01", "99999999999999999999",
    "1e3", ".", "$", "１０",
  ])
  func rejectsInvalidPrices(_ text: String) {
    #expect(throws: CatalogError.self) { try Price(parsing: text) }
  }

  @Test(arguments: [
    (1099, "$10.99"), (5, "$0.05"), (100_000_000, "$1,000,000.00"), (123_456, "$1,234.56"),
    (0, "$0.00"), (99_999, "$999.99"), (100_000, "$1,000.00"), (12_345_678, "$123,456.78"),
    (-150, "-$1.50"), (Int.min, "-$92,233,720,368,547,758.08"),
  ])
  func formatsAsCurrency(_ cents: Int, _ text: String) {
    #expect(Price(cents: cents).formatted == text)
  }

  @Test(arguments: [
    (1099, "10.99"), (5, "0.05"), (0, "0.00"), (100_000_000, "1000000.00"), (123_456, "1234.56"),
    (10, "0.10"),
  ])
  func writesThePlainTextTheEditorTakes(_ cents: Int, _ text: String) throws {
    #expect(Price(cents: cents).plainText == text)
    #expect(try Price(parsing: text).cents == cents)
  }

  @Test func decodesJSONNumbersExactlyAndWritesThemBack() throws {
    let prices = try JSONDecoder().decode(
      [Price].self, from: Data("[10.99, 49.98, 0.1, 12.45, 1000000]".utf8))
    #expect(prices.map(\.cents) == [1099, 4998, 10, 1245, 100_000_000])
    #expect(
      String(decoding: try JSONEncoder().encode(prices), as: UTF8.self)
        == "[10.99,49.98,0.1,12.45,1000000]")
  }

  @Test(arguments: ["10.999", "-1", "1000000.01", "\"10\""])
  func refusesJSONThatIsNotAPrice(_ json: String) {
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(Price.self, from: Data(json.utf8))
    }
  }

  @Test func editorFieldsRoundTripThroughCodableAndTheirJSON() throws {
    var random = SeededGenerator(seed: 7)
    for _ in 0..<300 {
      let fields = ProductFields(
        name: ["Cherries", "樱桃 \"x\"", "a\u{1B}b"][Int.random(in: 0..<3, using: &random)],
        year: Int.random(in: 1900...2100, using: &random),
        price: Price(cents: Int.random(in: 0...Price.maximum.cents, using: &random)),
        imageName: Bool.random(using: &random) ? "Cherries" : nil)
      let byHand = Data(fields.json.serialized(sortingKeys: true))
      #expect(try JSONDecoder().decode(ProductFields.self, from: byHand) == fields)
      #expect(try ProductFields(json: JSONValue(parsing: JSONEncoder().encode(fields))) == fields)
    }
    for refused in ["-1", "1000000.01", "1.005", #""3""#] {
      #expect(throws: JSONReadError.self) {
        try Price(json: JSONValue(parsing: Array(refused.utf8)))
      }
    }
  }
}
