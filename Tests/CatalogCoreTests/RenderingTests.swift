import CatalogModel
import Foundation
import LineEditing
import TestSupport
import Testing

@testable import CatalogCore

/// What the core renders: pictures drawn or described, tables aligned by display width.
@Suite struct RenderingTests {
  @Test func drawsThePhotoTabWhenPicturesAreOn() throws {
    let environment = FakeEnvironment()
    environment.drawsPictures = true
    let output = try run(["select cher", "tab photo"], environment: environment).output
    #expect(output == "Cherries\n  <Cherries picture>\n  Tabs  detail [photo]")
    environment.drawsPictures = false
    let described = try run(["select cher", "tab photo"], environment: environment).output
    #expect(described.contains("Photo  Images/Cherries.png, 64×64 pixels"))
  }
}

@Suite struct TableTests {
  @Test func tablesAlignByDisplayWidth() {
    let table = Table.render(rows: [["樱桃", "x"], ["Mango", "y"]])
    #expect(table == "樱桃   x\nMango  y")
  }
}

/// Search results at a terminal: how many match in all, rows cut to the window.
@Suite struct SearchResultsRenderingTests {
  @Test func saysHowManyMatchAndCutsWhyToTheWindow() throws {
    let found = try FakeEnvironment().search("flower", in: bundledCatalog)
    #expect(found.results.count == 5 && found.total == 5)
    var fewer = found
    fewer.results.removeLast(3)
    // Too wide: the activity's title, which repeats the product's name, goes first.
    let text = Describe.searchResults(fewer, columns: 36, hint: false)
    let lines = text.split(separator: "\n")
    #expect(lines.first == "#  Product    Why", "\(text)")
    #expect(lines.last == "The best 2 of 5 matches; add words to narrow them.")
    #expect(lines.dropLast().allSatisfy { DisplayWidth.of($0) <= 36 }, "\(text)")
    // Narrower still: the widest cells are cut.
    let narrow = Describe.searchResults(fewer, columns: 24, hint: false).split(separator: "\n")
    #expect(narrow.dropLast().allSatisfy { DisplayWidth.of($0) <= 24 }, "\(narrow)")
    #expect(narrow[1].hasSuffix("…"))
    // In a script, whole rows.
    #expect(Describe.searchResults(fewer, hint: false).contains("keywords: 'flower'"))
    var many = fewer
    many.total = SearchResults.countLimit
    many.isTotalExact = false
    #expect(
      Describe.searchResults(many, hint: false).hasSuffix(
        "The best 2 of more than 1,000 matches; add words to narrow them."))
  }
}
