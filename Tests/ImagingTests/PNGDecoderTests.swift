import CatalogModel
import Foundation
import Testing

@testable import CatalogResources
@testable import Imaging

/// Writes PNG files of any supported kind, with a chosen filter on every row, for the decoder
/// to read back.
func makePNG(
  width: Int, height: Int, colorType: UInt8, samples: [UInt8], filter: UInt8,
  extraChunks: [(String, [UInt8])] = []
) throws -> [UInt8] {
  let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)] ?? 1
  let stride = width * channels
  var raw: [UInt8] = []
  var previous = [UInt8](repeating: 0, count: stride)
  for row in 0..<height {
    let line = Array(samples[(row * stride)..<((row + 1) * stride)])
    raw.append(filter)
    raw += PNGFormat.filter(filter, line: line, previous: previous, bytesPerPixel: channels)
    previous = line
  }
  var output = PNGFormat.signature
  var header: [UInt8] = []
  header.appendBigEndian(UInt32(width))
  header.appendBigEndian(UInt32(height))
  header += [8, colorType, 0, 0, 0]
  PNGFormat.appendChunk("IHDR", header, to: &output)
  for (type, data) in extraChunks { PNGFormat.appendChunk(type, data, to: &output) }
  PNGFormat.appendChunk("IDAT", try PNGEncoder.compress(raw), to: &output)
  PNGFormat.appendChunk("IEND", [], to: &output)
  return output
}

@Suite struct PNGDecoderTests {
  let decoder = PNGDecoder()

  @Test func decodesEveryBundledPicture() throws {
    let directory = URL(fileURLWithPath: resourcesFolder + "/Images")
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      .filter { $0.hasSuffix(".png") }
    #expect(files.count == 10)
    for file in files {
      let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(file)))
      let image = try decoder.decode(bytes)
      #expect(image.width == 64 && image.height == 64, "\(file)")
      // What the encoder wrote is what the decoder reads.
      #expect(try decoder.decode(PNGEncoder.encode(image)) == image, "\(file)")
    }
  }

  /// A 5×3 RGBA image with varied pixels, so every filter predicts something different.
  static let rgba: [UInt8] = (0..<60).map { (index: Int) -> UInt8 in
    UInt8(truncatingIfNeeded: index * 37 + index / 4 * 11)
  }

  @Test(arguments: [0, 1, 2, 3, 4] as [UInt8])
  func readsEveryFilterTypeAndColourType(filter: UInt8) throws {
    let expected = try #require(RGBAImage(width: 5, height: 3, pixels: Self.rgba))
    let rgbaFile = try makePNG(
      width: 5, height: 3, colorType: 6, samples: Self.rgba, filter: filter)
    #expect(try decoder.decode(rgbaFile) == expected)

    let rgb = stride(from: 0, to: Self.rgba.count, by: 4).flatMap { Self.rgba[$0..<($0 + 3)] }
    let rgbImage = try decoder.decode(
      makePNG(width: 5, height: 3, colorType: 2, samples: rgb, filter: filter))
    #expect(rgbImage.pixel(4, 2) == (Self.rgba[56], Self.rgba[57], Self.rgba[58], 255))

    let grey = (0..<15).map { UInt8($0 * 17) }
    let greyImage = try decoder.decode(
      makePNG(width: 5, height: 3, colorType: 0, samples: grey, filter: filter))
    #expect(greyImage.pixel(3, 1) == (136, 136, 136, 255))

    let greyAlpha = (0..<30).map { UInt8($0 * 8) }
    let greyAlphaImage = try decoder.decode(
      makePNG(width: 5, height: 3, colorType: 4, samples: greyAlpha, filter: filter))
    #expect(greyAlphaImage.pixel(1, 0) == (16, 16, 16, 24))

    let palette: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255]
    let indices = (0..<15).map { UInt8($0 % 3) }
    let paletteImage = try decoder.decode(
      makePNG(
        width: 5, height: 3, colorType: 3, samples: indices, filter: filter,
        extraChunks: [("PLTE", palette), ("tRNS", [255, 128])]))
    #expect(paletteImage.pixel(0, 0) == (255, 0, 0, 255))
    #expect(paletteImage.pixel(1, 0) == (0, 255, 0, 128))
    #expect(paletteImage.pixel(2, 0) == (0, 0, 255, 255))
  }

  @Test func aTransparentColourKeyClearsThosePixels() throws {
    let grey: [UInt8] = [0, 50, 100, 50]
    let image = try decoder.decode(
      makePNG(
        width: 2, height: 2, colorType: 0, samples: grey, filter: 0,
        extraChunks: [("tRNS", [0, 50])]))
    #expect(image.pixel(1, 0).3 == 0 && image.pixel(0, 0).3 == 255)
  }

  /// A file with an IHDR chunk and nothing else unless `data` is given.
  static func file(
    width: UInt32, height: UInt32, depth: UInt8 = 8, colorType: UInt8 = 6, interlace: UInt8 = 0,
    data: [UInt8]? = nil
  ) throws -> [UInt8] {
    var file = PNGFormat.signature
    var header: [UInt8] = []
    header.appendBigEndian(width)
    header.appendBigEndian(height)
    header += [depth, colorType, 0, 0, interlace]
    PNGFormat.appendChunk("IHDR", header, to: &file)
    if let data {
      PNGFormat.appendChunk("IDAT", try PNGEncoder.compress(data), to: &file)
      PNGFormat.appendChunk("IEND", [], to: &file)
    }
    return file
  }

  static func damaged() throws -> [(String, [UInt8], String)] {
    let good = try makePNG(width: 5, height: 3, colorType: 6, samples: rgba, filter: 4)
    var badCRC = good
    badCRC[good.count - 20] ^= 0xFF  // inside IDAT
    let huge = try file(width: 100_000, height: 100_000)
    let interlaced = try file(width: 4, height: 4, interlace: 1)
    let sixteen = try file(width: 4, height: 4, depth: 16, colorType: 2)
    var badFilter = [UInt8](repeating: 0, count: 3 * (5 * 4 + 1))
    badFilter[0] = 9
    let wrongFilter = try file(width: 5, height: 3, data: badFilter)
    let tooLittle = try file(width: 5, height: 3, data: [0, 1, 2])
    return [
      ("empty", [], "wrong signature"),
      (
        "wrong signature", Array("GIF89a plus some more bytes to be long enough".utf8),
        "wrong signature"
      ),
      ("truncated in the header", Array(good.prefix(20)), "truncated header"),
      ("truncated in the data", Array(good.prefix(good.count - 30)), "truncated"),
      ("no IEND", Array(good.prefix(good.count - 12)), "no IEND chunk"),
      ("bad CRC", badCRC, "bad CRC in IDAT"),
      ("100000×100000", huge, "too large (100000×100000 pixels)"),
      ("interlaced", interlaced, "interlaced images"),
      ("16-bit", sixteen, "16-bit samples"),
      ("unknown filter", wrongFilter, "filter type 9"),
      ("too little data", tooLittle, "shorter than its size"),
    ]
  }

  @Test func damagedFilesAreOneLineErrors() throws {
    for (name, bytes, message) in try Self.damaged() {
      do {
        _ = try decoder.decode(bytes)
        Issue.record("\(name) decoded")
      } catch {
        let text = error.localizedDescription
        #expect(text.contains(message), "\(name): \(text)")
        #expect(!text.contains("\n"))
      }
    }
  }

  @Test func randomDamageNeverCrashes() throws {
    let good = try makePNG(width: 5, height: 3, colorType: 6, samples: Self.rgba, filter: 4)
    var state: UInt64 = 7
    for _ in 0..<500 {
      var bytes = good
      state = state &* 6_364_136_223_846_793_005 &+ 1
      let position = Int(state >> 33) % bytes.count
      bytes[position] ^= UInt8(truncatingIfNeeded: state >> 20) | 1
      _ = try? decoder.decode(bytes)
      _ = try? decoder.decode(Array(bytes.prefix(position)))
    }
  }
}

@Suite struct HalfBlockRendererTests {
  /// Red and green on top; blue and nothing below.
  static let image = RGBAImage(
    width: 2, height: 2,
    pixels: [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 0, 0, 0, 0])

  @Test func drawsTwoPixelsACellInTrueColour() throws {
    let lines = HalfBlockRenderer(depth: .trueColor).render(try #require(Self.image))
    #expect(
      lines == [
        "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;0;255m▀" + "\u{1B}[0m\u{1B}[38;2;0;255;0m▀" + "\u{1B}[0m"
      ])
  }

  @Test func mapsTo256Colours() throws {
    let lines = HalfBlockRenderer(depth: .palette256).render(try #require(Self.image))
    #expect(lines == ["\u{1B}[38;5;196m\u{1B}[48;5;21m▀\u{1B}[0m\u{1B}[38;5;46m▀\u{1B}[0m"])
    #expect(HalfBlockRenderer.paletteIndex(128, 128, 128) == 244)
    #expect(HalfBlockRenderer.paletteIndex(0, 0, 0) == 16)
    #expect(HalfBlockRenderer.paletteIndex(255, 255, 255) == 231)
  }

  @Test func scalesToTheColumnLimitKeepingProportions() throws {
    let image = RGBAImage(width: 64, height: 64, fill: (10, 20, 30, 255))
    let lines = HalfBlockRenderer(depth: .trueColor, maximumColumns: 40).render(image)
    #expect(lines.count == 20)
    #expect(lines.allSatisfy { $0.components(separatedBy: "▀").count - 1 == 40 })
    #expect(lines[0].hasPrefix("\u{1B}[38;2;10;20;30m\u{1B}[48;2;10;20;30m▀"))
    // A small picture is not enlarged.
    #expect(
      HalfBlockRenderer(depth: .trueColor, maximumColumns: 40).render(try #require(Self.image))
        .count == 1)
  }
}
