import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import TestSupport
import Testing

/// An export to a file stopped by its progress callback (Ctrl-C, in the app) leaves no file of
/// its own and the one that was there as it was.
@Suite struct ProductExportTests {
  private struct Stop: Error {}

  /// The last call comes after the last product, while the file is flushed and before it takes
  /// its place: a stop then still leaves no file.
  @Test func aStopAfterTheLastProductLeavesNoFile() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/products.csv"
    let catalog = Catalog((1...20).map { numberedProduct($0) })
    try Data("kept".utf8).write(to: URL(fileURLWithPath: path))
    var calls: [Int] = []
    #expect(throws: Stop.self) {
      try ProductExport.write(catalog, toFile: path) { written in
        calls.append(written)
        throw Stop()
      }
    }
    #expect(calls == [20])
    #expect(FileManager.default.contents(atPath: path) == Data("kept".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["products.csv"])

    let summary = try ProductExport.write(catalog, toFile: path)
    #expect(summary.count == 20)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.split(separator: "\r\n").count == 21)
  }
}
