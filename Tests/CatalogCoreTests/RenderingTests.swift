import CatalogModel
import Foundation
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
