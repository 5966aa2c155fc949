import CatalogEngines
import CatalogModel
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CatalogCore

/// A whole catalog written out from a database's row bytes (export, `list --all`) is the same,
/// byte for byte, as the same products written one `Product` at a time.
@Suite struct WholeCatalogOutputTests {
  private static let products: [Product] = {
    func product(
      _ name: String, image: String = "", year: Int = 2020, cents: Int = 150,
      keywords: [String] = [], directory: String? = nil
    ) -> Product {
      Product(
        identifier: UUID(), name: name, imageName: image, year: year, price: Price(cents: cents),
        keywords: keywords, imageDirectory: directory)
    }
    return [
      product("Kiwi", image: "Kiwi", keywords: ["fruit", "green"]),
      product(#"Fish, "n" chips"#, keywords: ["a;b", "老 ', x"]),
      product("樱桃", cents: 0, keywords: ["樱桃", "a\u{00A0}b"]),
      product(#"Back\slash"#, image: "pictures/x.png", directory: "/srv/shop"),
      product("Cherry", year: 1900, cents: 100_000_000, keywords: ["🍒"]),
      product("Crème Brûlée", image: "Crème", year: 2100, keywords: ["dessert"]),
      product("=SUM(A1)", image: "@x", keywords: [" padded", "", "[x]", "\u{00A0}nbsp"]),
      product("-Minus", keywords: ["'quoted", "+plus"]),
      product("Quoted keywords", keywords: ["x, y", #"say "hi""#]),
      product("Formula keyword", keywords: ["=cmd", "b"]),
    ] + (1...3_000).map { product("Product \($0)", cents: $0 * 37, keywords: ["k\($0 % 7)"]) }
  }()

  private func database(_ temporary: TemporaryDirectory) throws -> Catalog {
    let path = temporary.path + "/catalog.sqlite"
    try CatalogDatabase.create(at: path)
    let database = try CatalogDatabase(path: path)
    _ = try database.importProducts(Self.products)
    return Catalog(source: database)
  }

  private func exported(
    _ catalog: Catalog, _ format: ProductExport.Format, _ path: String, forSpreadsheets: Bool
  ) throws -> (String, ProductExport.Summary) {
    let summary = try ProductExport.write(
      catalog, toFile: path, format: format, byteOrderMark: forSpreadsheets)
    return (try String(contentsOfFile: path, encoding: .utf8), summary)
  }

  @Test(arguments: [ProductExport.Format.json, .csv], [false, true])
  func anExportFromRowBytesIsTheSameAsFromProducts(
    format: ProductExport.Format, forSpreadsheets: Bool
  ) throws {
    let temporary = TemporaryDirectory()
    let (fromRows, rowSummary) = try exported(
      try database(temporary), format, temporary.path + "/rows", forSpreadsheets: forSpreadsheets)
    let (fromProducts, productSummary) = try exported(
      Catalog(Self.products), format, temporary.path + "/products",
      forSpreadsheets: forSpreadsheets)
    #expect(fromRows == fromProducts)
    #expect(rowSummary == productSummary)
    #expect(rowSummary.count == Self.products.count)
    // And the file reads back as the same products.
    var read: [Product] = []
    try ProductFile(path: temporary.path + "/rows").forEachProduct { read.append($0) }
    #expect(read.map(\.name) == Self.products.map(\.name))
    #expect(read.map(\.keywords) == Self.products.map(\.keywords))
    // Keywords joined by `;` are quoted and marked as the joined cell would be.
    if format == .csv {
      #expect(fromRows.contains(#",Quoted keywords,,2020,1.50,"x, y;say ""hi"""\#r\#n"#))
      let mark = forSpreadsheets ? "'" : ""
      #expect(fromRows.contains(",Formula keyword,,2020,1.50,\(mark)=cmd;b\r\n"))
    }
  }

  /// An export stopped part way (Ctrl-C) leaves no file, neither the one asked for nor its
  /// temporary one, and an existing file as it was.
  @Test func anExportStoppedPartWayLeavesNoFile() throws {
    struct Stop: Error {}
    let temporary = TemporaryDirectory()
    let catalog = Catalog(
      (1...25_000).map {
        Product(
          identifier: UUID(), name: "P\($0)", imageName: "", year: 2000, price: Price(cents: $0),
          keywords: [])
      })
    let path = temporary.path + "/export.csv"
    try Data("earlier".utf8).write(to: URL(fileURLWithPath: path))
    var calls: [Int] = []
    #expect(throws: Stop.self) {
      try ProductExport.write(catalog, toFile: path) { written in
        calls.append(written)
        if written == 20_000 { throw Stop() }
      }
    }
    #expect(calls == [10_000, 20_000])
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "earlier")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["export.csv"])
  }

  @Test func listAllFromRowBytesIsTheSameAsFromProducts() throws {
    let temporary = TemporaryDirectory()
    func listed(_ catalog: Catalog) throws -> String {
      let parts = Mutex<String>("")
      try CatalogListing.all(catalog).produce { part in parts.withLock { $0 += part } }
      return parts.withLock { $0 }
    }
    let fromRows = try listed(try database(temporary))
    #expect(try fromRows == listed(Catalog(Self.products)))
    #expect(fromRows.contains("\n   3  樱桃             2020          $0.00\n"))
    #expect(fromRows.hasSuffix("3,010 products."))
  }
}
