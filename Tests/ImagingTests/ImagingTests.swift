import CatalogEngines
import CatalogModel
import Foundation
import Imaging
import Testing

@testable import CatalogResources

/// The repository's `Resources/` folder.
let resourcesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .appendingPathComponent("../../Resources").standardized.path

/// The resources built into the binary are the files of `Resources/`, byte for byte: a change
/// to one without running `swift run generate-images Resources` fails here.
@Suite struct EmbeddedResourcesTests {
  @Test func theEmbeddedFilesAreTheResourcesFiles() throws {
    let images = try FileManager.default.contentsOfDirectory(atPath: resourcesFolder + "/Images")
      .filter { $0.hasSuffix(".png") }.map { "Images/" + $0 }
    let names = (["products.json"] + images).sorted()
    #expect(CatalogResources.fileNames == names)
    for name in names {
      let onDisk = try Data(contentsOf: URL(fileURLWithPath: resourcesFolder + "/" + name))
      #expect(CatalogResources.file(name) == onDisk, "\(name)")
    }
    #expect(CatalogResources.catalogData.count > 1000)
    #expect(CatalogResources.imageData(named: "Nope") == nil)
  }
}

@Suite struct ImagingTests {
  @Test func everyBundledProductHasA64PixelSquarePicture() throws {
    let data = CatalogResources.catalogData
    let products = try ProductFile.products(in: data, name: "products.json")
    #expect(products.count == 10)
    for product in products {
      let bytes = try #require(CatalogResources.imageData(named: product.imageName))
      let image = try ImageDecoder().decode(Array(bytes))
      #expect(image.width == 64 && image.height == 64, "\(product.imageName)")
      // What the encoder writes is what the decoder reads.
      #expect(try ImageDecoder().decode(PNGEncoder.encode(image)) == image)
    }
  }

  @Test func theEncoderWritesAValidFile() throws {
    let image = RGBAImage(width: 3, height: 2, fill: (255, 0, 0, 255))
    let png = try PNGEncoder.encode(image)
    #expect(try ImageDecoder().decode(png) == image)
    #expect(Array(png.suffix(12)) == [0, 0, 0, 0, 73, 69, 78, 68, 0xAE, 0x42, 0x60, 0x82])  // IEND
  }
}

@Suite struct PictureRendererTests {
  /// A picture whose colour does not change writes its colours once a line, not once a cell.
  @Test func aColourIsWrittenOnlyWhenItChanges() throws {
    let lines = HalfBlockRenderer(depth: .trueColor, maximumColumns: 8)
      .render(RGBAImage(width: 8, height: 4, fill: (10, 20, 30, 255)))
    #expect(lines.count == 2)
    for line in lines {
      #expect(
        line.components(separatedBy: "\u{1B}[38;2;10;20;30m").count == 2, "\(line.debugDescription)"
      )
      #expect(line.components(separatedBy: "\u{1B}[48;2;10;20;30m").count == 2)
      #expect(line.filter { $0 == "▀" }.count == 8)
    }
  }

  /// The kitty protocol gets the picture as PNG, base64, in chunks of at most 4,096 bytes,
  /// placed in a box of cells that keeps its proportions.
  @Test func kittyGraphicsCarryThePictureAsPNG() throws {
    // Noise, which compresses badly: the PNG takes several chunks.
    var state: UInt32 = 1
    let noise = (0..<(90 * 60 * 4)).map { _ -> UInt8 in
      state = state &* 1_664_525 &+ 1_013_904_223
      return UInt8(state >> 24)
    }
    let image = try #require(RGBAImage(width: 90, height: 60, pixels: noise))
    let lines = try KittyRenderer(columns: 30).render(image)
    let text = try #require(lines.first)
    let chunks = text.components(separatedBy: "\u{1B}\\").filter { !$0.isEmpty }
    #expect(chunks.count > 1)
    #expect(chunks[0].hasPrefix("\u{1B}_Ga=T,f=100,c=30,r=10,q=2,m=1;"))
    #expect(chunks.last?.hasPrefix("\u{1B}_Gm=0;") == true)
    var payload = ""
    for chunk in chunks {
      let data = String(chunk[chunk.index(after: try #require(chunk.firstIndex(of: ";")))...])
      #expect(data.utf8.count <= 4096)
      payload += data
    }
    let png = try #require(Data(base64Encoded: payload))
    #expect(try ImageDecoder().decode(Array(png)) == image)
  }

  /// Sixels: a two-colour picture defines two colours and writes one band every six rows.
  @Test func sixelsDefineTheColoursAndWriteBands() throws {
    var image = RGBAImage(width: 12, height: 13, fill: (255, 0, 0, 255))
    for offset in stride(from: 0, to: image.pixels.count / 2, by: 4) {
      image.pixels.replaceSubrange(offset..<(offset + 4), with: [0, 0, 255, 255])
    }
    let text = try #require(SixelRenderer(width: 12).render(image).first)
    #expect(text.hasPrefix("\u{1B}Pq\"1;1;12;13"))
    #expect(text.hasSuffix("\u{1B}\\"))
    #expect(text.contains("#180;2;100;0;0") && text.contains("#5;2;0;0;100"), "\(text)")
    #expect(text.filter { $0 == "-" }.count == 3)
    // A row of one colour is one repeat, not twelve characters.
    #expect(text.contains("!12~"), "\(text)")
  }
}
