import CatalogModel
import Foundation
import Testing

@Suite struct PriceTests {
  @Test(arguments: [
    ("10.99", 1099), ("10", 1000), ("10.5", 1050), ("$10.99", 1099), ("0", 0), ("0.01", 1),
    (".5", 50), ("1000000", 100_000_000), ("1000000.00", 100_000_000), (" 7.25 ", 725),
    ("007.10", 710), ("10.", 1000),
  ])
  func parsesPrices(_ text: String, _ cents: Int) throws {
    #expect(try Price(parsing: text).cents == cents)
  }

  @Test(arguments: [
    "", "abc", "10.999", "1,000", "-1", "1000000.01", "99999999999999999999", "1e3", ".", "$", "１０",
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
}
