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
    let products = try CatalogFile.parse(data, path: "products.json").products
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
