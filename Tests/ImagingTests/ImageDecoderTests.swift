import CImageCodecs
import Foundation
import TestSupport
import Testing

@testable import Imaging

/// A corpus made here, by encoding through libpng and libjpeg-turbo, decoded and compared with
/// what was encoded.
@Suite struct ImageDecoderTests {
  let decoder = ImageDecoder()

  /// A sample value for pixel (x, y) and channel c at `depth` bits.
  static func sample(_ x: Int, _ y: Int, _ channel: Int, depth: Int) -> Int {
    let levels = depth >= 8 ? 256 : 1 << depth
    return (x * 7 + y * 13 + channel * 29 + x * y) % levels
  }

  /// Packs samples of `depth` bits into a PNG row (big-endian 16-bit samples).
  static func pack(_ values: [Int], depth: Int) -> [UInt8] {
    switch depth {
    case 16: return values.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    case 8: return values.map(UInt8.init)
    default:
      var bytes: [UInt8] = []
      var current = 0
      var used = 0
      for value in values {
        current = current << depth | value
        used += depth
        if used == 8 {
          bytes.append(UInt8(current))
          (current, used) = (0, 0)
        }
      }
      if used > 0 { bytes.append(UInt8(current << (8 - used))) }
      return bytes
    }
  }

  static func encodePNG(
    width: Int, height: Int, colorType: Int, depth: Int, interlaced: Bool,
    samples: [UInt8], palette: [UInt8] = [], trans: [UInt8] = []
  ) throws -> [UInt8] {
    var output: UnsafeMutablePointer<UInt8>?
    var size = 0
    var message = [CChar](repeating: 0, count: 256)
    let code = codec_png_encode(
      samples, Int32(width), Int32(height), Int32(colorType), Int32(depth), interlaced ? 1 : 0,
      palette, Int32(palette.count / 3), trans, Int32(trans.count), &output, &size, &message)
    try #require(code == 0, "libpng: \(Self.text(message))")
    defer { codec_free(output) }
    return Array(UnsafeBufferPointer(start: output, count: size))
  }

  /// Every colour type at every bit depth it allows, interlaced and not, with tRNS where it
  /// applies: decoded exactly to what was encoded.
  @Test(
    arguments: [
      (0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16), (3, 1), (3, 2), (3, 4), (3, 8),
      (4, 8), (4, 16), (6, 8), (6, 16),
    ], [false, true])
  func everyPNGKindDecodesExactly(kind: (colorType: Int, depth: Int), interlaced: Bool) throws {
    let (width, height) = (11, 7)
    let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][kind.colorType] ?? 1
    let wide = kind.depth == 16
    var samples: [UInt8] = []
    var expected: [UInt8] = []
    // Palette images use every index their depth allows; the first two partly transparent.
    let entries = kind.colorType == 3 ? 1 << kind.depth : 0
    var palette: [UInt8] = []
    for entry in 0..<entries {
      palette += [UInt8(entry * 40 % 256), UInt8(entry * 90 % 256), 200]
    }
    let paletteAlpha: [UInt8] = entries > 0 ? [0, 128] : []
    // Grey 8-bit images get a tRNS grey that some pixels have.
    let transparentGrey = 5
    let grey8Trans = kind.colorType == 0 && kind.depth == 8
    for y in 0..<height {
      var row: [Int] = []
      for x in 0..<width {
        var values = (0..<channels).map { Self.sample(x, y, $0, depth: kind.depth) }
        if grey8Trans && (x + y) % 5 == 0 { values[0] = transparentGrey }
        row += wide ? values.map { $0 * 257 } : values
        let scale = { (value: Int) -> UInt8 in
          UInt8(kind.depth >= 8 ? value : value * 255 / ((1 << kind.depth) - 1))
        }
        switch kind.colorType {
        case 0:
          let grey = scale(values[0])
          let alpha: UInt8 = grey8Trans && values[0] == transparentGrey ? 0 : 255
          expected += [grey, grey, grey, alpha]
        case 2: expected += values.map(scale) + [255]
        case 3:
          let index = values[0]
          expected += Array(palette[(3 * index)..<(3 * index + 3)])
          expected.append(index < paletteAlpha.count ? paletteAlpha[index] : 255)
        case 4:
          let grey = scale(values[0])
          expected += [grey, grey, grey, scale(values[1])]
        default: expected += values.map(scale)
        }
      }
      samples += Self.pack(row, depth: kind.depth)
    }
    let png = try Self.encodePNG(
      width: width, height: height, colorType: kind.colorType, depth: kind.depth,
      interlaced: interlaced, samples: samples, palette: palette,
      trans: kind.colorType == 3 ? paletteAlpha : grey8Trans ? [0, UInt8(transparentGrey)] : [])
    let image = try decoder.decode(png)
    #expect(image.width == width && image.height == height)
    #expect(image.pixels == expected, "colour type \(kind.colorType), \(kind.depth)-bit")
  }

  /// Cut short anywhere, or with any byte changed, a PNG file is an error, never a crash and
  /// never a picture.
  @Test func aDamagedPNGIsAnErrorNeverAPicture() throws {
    let samples = (0..<(16 * 16 * 4)).map { UInt8($0 % 251) }
    let png = try Self.encodePNG(
      width: 16, height: 16, colorType: 6, depth: 8, interlaced: false, samples: samples)
    for length in [0, 4, 8, 20, 33, 40, png.count / 2, png.count - 13, png.count - 1] {
      #expect(throws: ImagingError.self, "cut at \(length)") {
        try decoder.decode(Array(png.prefix(length)))
      }
    }
    for offset in stride(from: 8, to: png.count, by: 7) {
      var damaged = png
      damaged[offset] ^= 0x5A
      #expect(throws: ImagingError.self, "byte \(offset) changed") { try decoder.decode(damaged) }
    }
  }

  /// A header claiming 100,000 × 100,000 pixels is refused from the header, before the pixels'
  /// 40 GB are asked for.
  @Test func aHugeHeaderIsRefusedBeforeAnyAllocation() throws {
    var png = try Self.encodePNG(
      width: 1, height: 1, colorType: 0, depth: 8, interlaced: false, samples: [0])
    let ihdr = Array(png[12..<29])
    var patched = ihdr
    for (offset, value) in [(4, 100_000), (8, 100_000)] {
      for byte in 0..<4 {
        patched[offset + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte))
      }
    }
    png.replaceSubrange(12..<29, with: patched)
    let crc = PNGFormat.crc(Array(patched[0..<4]), Array(patched[4...]))
    for byte in 0..<4 { png[29 + byte] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(byte))) }
    #expect(throws: ImagingError.tooLarge(width: 100_000, height: 100_000)) {
      try decoder.decode(png)
    }
  }

  // MARK: - JPEG

  /// A smooth image whose red grows to the right and green downwards, so that every turn and
  /// mirror shows, and that JPEG keeps close (no sharp edges for chroma subsampling to blur).
  static func photo(width: Int, height: Int) -> RGBAImage {
    var pixels: [UInt8] = []
    for y in 0..<height {
      for x in 0..<width {
        pixels += [UInt8(x * 255 / (width - 1)), UInt8(y * 255 / (height - 1)), 128, 255]
      }
    }
    return RGBAImage(width: width, height: height, pixels: pixels) ?? RGBAImage(width: 1, height: 1)
  }

  static func encodeJPEG(
    _ image: RGBAImage, components: Int = 3, progressive: Bool = false, orientation: Int = 0
  ) throws -> [UInt8] {
    var samples: [UInt8] = []
    for pixel in stride(from: 0, to: image.pixels.count, by: 4) {
      let rgb = Array(image.pixels[pixel..<(pixel + 3)])
      switch components {
      case 1: samples.append(Self.grey(rgb[0], rgb[1], rgb[2]))
      // Adobe's inverted CMYK: ink 255 - R stored as R, no black ink stored as 255.
      case 4: samples += rgb + [255]
      default: samples += rgb
      }
    }
    var output: UnsafeMutablePointer<UInt8>?
    var size = 0
    var message = [CChar](repeating: 0, count: 256)
    let code = codec_jpeg_encode(
      samples, Int32(image.width), Int32(image.height), Int32(components), progressive ? 1 : 0,
      95, Int32(orientation), &output, &size, &message)
    try #require(code == 0, "libjpeg: \(Self.text(message))")
    defer { codec_free(output) }
    return Array(UnsafeBufferPointer(start: output, count: size))
  }

  /// The luma of a colour, as libjpeg computes it.
  static func grey(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> UInt8 {
    let sum: Int = Int(red) * 299 + Int(green) * 587 + Int(blue) * 114
    return UInt8(sum / 1000)
  }

  /// The text of a C message buffer.
  static func text(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The largest difference of any channel of any pixel, and the mean.
  static func difference(_ a: RGBAImage, _ b: RGBAImage) -> (maximum: Int, mean: Double) {
    guard a.width == b.width, a.height == b.height else { return (255, 255) }
    let differences = zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }
    return (differences.max() ?? 0, Double(differences.reduce(0, +)) / Double(differences.count))
  }

  /// Baseline, progressive and greyscale JPEG images come back within a stated tolerance of
  /// what was encoded (quality 95): a mean error under 2 levels, no channel off by more than 16.
  @Test(arguments: ["baseline", "progressive", "grey"])
  func jpegImagesDecodeWithinTolerance(kind: String) throws {
    var original = Self.photo(width: 48, height: 32)
    if kind == "grey" {
      for pixel in stride(from: 0, to: original.pixels.count, by: 4) {
        let grey = Self.grey(
          original.pixels[pixel], original.pixels[pixel + 1], original.pixels[pixel + 2])
        original.pixels.replaceSubrange(pixel..<(pixel + 3), with: [grey, grey, grey])
      }
    }
    let jpeg = try Self.encodeJPEG(
      original, components: kind == "grey" ? 1 : 3, progressive: kind == "progressive")
    let image = try decoder.decode(jpeg)
    let (maximum, mean) = Self.difference(image, original)
    #expect(mean < 2 && maximum <= 16, "\(kind): mean \(mean), maximum \(maximum)")
  }

  /// Each EXIF orientation is applied: the picture comes out upright.
  @Test(arguments: 1...8)
  func theEXIFOrientationIsApplied(orientation: Int) throws {
    let upright = Self.photo(width: 32, height: 16)
    // What a camera stores for this orientation: the upright picture turned the other way.
    let stored = Self.stored(upright, orientation: orientation)
    let jpeg = try Self.encodeJPEG(stored, orientation: orientation)
    let image = try decoder.decode(jpeg)
    let (maximum, mean) = Self.difference(image, upright)
    #expect(image.width == 32 && image.height == 16, "orientation \(orientation)")
    #expect(mean < 2 && maximum <= 16, "orientation \(orientation): mean \(mean), \(maximum)")
  }

  /// The inverse of `oriented(_:)`: turns an upright picture into how orientation `n` stores it.
  static func stored(_ upright: RGBAImage, orientation: Int) -> RGBAImage {
    let inverse = [1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6][orientation] ?? 1
    return upright.oriented(inverse)
  }

  /// What each orientation means, pixel by pixel, on a 3×2 picture stored as
  /// `a b c / d e f` (EXIF 2.3, tag 0x0112).
  @Test func orientationsTurnAndMirrorAsEXIFDefines() throws {
    let labels: [UInt8] = [1, 2, 3, 4, 5, 6]  // a…f
    let stored = try #require(
      RGBAImage(width: 3, height: 2, pixels: labels.flatMap { [$0, 0, 0, 255] }))
    func shown(_ orientation: Int) -> [[UInt8]] {
      let image = stored.oriented(orientation)
      return (0..<image.height).map { y in
        (0..<image.width).map { x in image.pixels[(y * image.width + x) * 4] }
      }
    }
    #expect(shown(1) == [[1, 2, 3], [4, 5, 6]])
    #expect(shown(2) == [[3, 2, 1], [6, 5, 4]])  // mirrored left to right
    #expect(shown(3) == [[6, 5, 4], [3, 2, 1]])  // turned half way
    #expect(shown(4) == [[4, 5, 6], [1, 2, 3]])  // flipped top to bottom
    #expect(shown(5) == [[1, 4], [2, 5], [3, 6]])  // transposed
    #expect(shown(6) == [[4, 1], [5, 2], [6, 3]])  // stored turned left: turn it right
    #expect(shown(7) == [[6, 3], [5, 2], [4, 1]])  // transversed
    #expect(shown(8) == [[3, 6], [2, 5], [1, 4]])  // stored turned right: turn it left
  }

  /// A JPEG image to be drawn small is decoded at a fraction of its size, averaged, its
  /// longer side kept at least the side asked for, and still upright.
  @Test func aJPEGDecodesSmallerWhenAskedTo() throws {
    let upright = Self.photo(width: 64, height: 48)
    let jpeg = try Self.encodeJPEG(Self.stored(upright, orientation: 6), orientation: 6)
    let small = try decoder.decode(jpeg, minimumSide: 16)
    #expect(small.width == 16 && small.height == 12)
    let expected = HalfBlockRenderer.scale(upright, width: 16, height: 12)
    let (maximum, mean) = Self.difference(small, expected)
    #expect(mean < 3 && maximum <= 24, "mean \(mean), maximum \(maximum)")
    #expect(try decoder.decode(jpeg, minimumSide: 1000).width == 64)
  }

  /// The size as shown, from the header alone: a JPEG turned by its EXIF orientation, a PNG.
  @Test func theSizeComesFromTheHeader() throws {
    let folder = NSTemporaryDirectory() + "image-size-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let jpeg = try Self.encodeJPEG(Self.photo(width: 40, height: 24), orientation: 6)
    try Data(jpeg).write(to: URL(fileURLWithPath: folder + "/a.jpg"))
    #expect(try decoder.size(contentsOf: folder + "/a.jpg") == (24, 40))
    let png = try Self.encodePNG(
      width: 5, height: 3, colorType: 0, depth: 8, interlaced: false,
      samples: [UInt8](repeating: 9, count: 15))
    try Data(png).write(to: URL(fileURLWithPath: folder + "/b.png"))
    #expect(try decoder.size(contentsOf: folder + "/b.png") == (5, 3))
    try Data(png.prefix(20)).write(to: URL(fileURLWithPath: folder + "/c.png"))
    #expect(throws: ImagingError.self) { try decoder.size(contentsOf: folder + "/c.png") }
  }

  /// A CMYK JPEG written by Pillow (Adobe's inverted samples and marker, as Photoshop writes
  /// them), and the RGB pixels Pillow 13 gives it (`Image.open(f).convert("RGB")`).
  static let pillowCMYK = [
    "/9j/7gAOQWRvYmUAZAAAAAAA/9sAQwADAgIDAgIDAwMDBAMDBAUIBQUEBAUKBwcGCAwKDAwLCgsLDQ4SEA0OEQ4L",
    "CxAWEBETFBUVFQwPFxgWFBgSFBUU/8AAFAgAEAAYBEMRAE0RAFkRAEsRAP/EAB8AAAEFAQEBAQEBAAAAAAAAAAAB",
    "AgMEBQYHCAkKC//EALUQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNi",
    "coIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SV",
    "lpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+v/aAA4E",
    "QwBNAFkASwAAPwD71+Lf/Lb8a+x/+Gif+nr/AMer4H+En/LH8K+8fjB8YP8AhAfP/f8Al7M98V8VfFv/AJbfjR/w",
    "0T/09f8Aj1favwk/5Y/hXgdj+0J8SvHu658PRf2dofzf8T7V5WtrLjzB8jYLS/PEyHylfaxG7aDmvir4t/8ALb8a",
    "P+Gif+nr/wAer7W+En/LH8Kz1+LvjDVdQs4NP+JGp65NDLbJqtpoGjs8Vu0hwU+1vLsiUlXCzSoqgKWK4BA/ar4t",
    "/wDLb8a/L/8A4aJ/6ev/AB6vxU+En/LH8K0P2hLH/hPfjhF4euWxodlv1LWPn2/6HEw3Jw6N+8do4sody+buwQpr",
    "4q+Lf/Lb8aP+Gif+nr/x6vtX4Sf8sfwritU1S/13V9K1TVNK8zSX2xeF/BkEaxpfKq/u5ZY+FjtERdyqcKyrubEI",
    "/efFXxb/AOW340f8NE/9PX/j1fa3wk/5Y/hU2q37XUEVvqM0OrwxS2iWN08FxBpUARxELPT7WMj7ewdZF2sBGwiR",
    "GWIth//Z",
  ]
  static let pillowRGB = [
    "//8A9P4K6/8U4v8d1f4pzf8yw/88uP5Gr/9QovtZm/9kkPxshv95ff+Cc/6Laf+WXvudVf+qSvyyQv+9Nv/JLf7R",
    "IvvZGf/m//AA8u0K5usU3Okcy+QnweIvtuA4qdtAn9pJldhRhs9WgdRgccpma81vYMh0VsR6T8eEQbiCO7uMNLyU",
    "KbWXI7ihGranErCp/+EA7tsK4NYT09Ibwcsltccsp8E0mrs6jbVAhbZJdalLbahRY6ZZWJ5bTpheRJJiOotjNYtp",
    "K4BmJX9rG3FlFnBpEWtoC2Zp/9MA68sK2cMTy70auLUjqq8pmqcwjKA1fpc5b408ZopBWoNETHhFQ3FGOmpGMWJF",
    "KFlEJFlIHE5CFEE7E0pGCzIyCTY4GMrc/8MA6rsK1bESw6gZrp4hnZUmi4sre4Ivb3wzYHE0Umc1RV00OlU1MEsy",
    "KUUxHzotGDIpUrykR7ipPLGsLJ6iI5eiG5SnEoqi/7UA6KsJz6ASu5YYpIofkoAjfnUnbWopWl0pUVksP0opNUIo",
    "KTclGycccLCIXqOHTpWERZKJN4SDK3d9InJ/GWZ2EVlsCktg/qQA5JkJyY0RsoIXmnYdhWshcF8jXlQkTkokNTUd",
    "MjUgHiIWfZlwbZBxXIRwTXhtQXFuL1tdJ1VcHUlUFD1LDTE/CCYyGJ/e/pUA4ooJxH0RqnEWkGUbeVgdYkseT0Ae",
    "PDMbLCgYlpFggINfbHlhWWtdSV9YOlNTLEVJITpCFy43DiApMoq5JoCzG3OoEWSZ/ocA23oJwnAQoGEVhVQZbEca",
    "Vz0bPi4YKB8TnYFVgXJUbWZSWltRRUtINT9BJzM4GiYtUoSlQnifNGuVJV2JG1J+EURuCjde/3gA3WwJvGAQllAT",
    "e0UYZjwZPycTMyETqHNNhmFJcFdIXUxFQzw8NDI3JCYsZXSRUGWHRGCHMU92JEFnGjlgDyhHCBsyF2/U/WgA1VsJ",
    "tVEPlkYTcTgWTygTPyIUsGRClVlEeExBXD88SjY4MCYsHBcdbGOEVVV5Q0pxLzpeIzFUFSI9NWfEKF68HFOtEESU",
    "/1sA21EJqkIPiDcSay4VSCASLBQNoU89gUM7Zjg4TS0yNiIoIRYdbE9xV0VqQjlfMC5SHR85EhYsPFKrK0ifHDmE",
    "ES1uCSJV/ksAzz8IrjgPgSsRXCASOhUOtUY4lj05dTI2UyYuPB0nIREZbz5kZDxoQitRLiFCHRcwUkikPDyPLTOA",
    "HCdpER1SCRQ6FkPN/z0AzzMIoioOfCEQVhkRLg4LqDU0hSwyYSIsQxklKRAbfzVfZS5bRiJIMho8HxIsVziSQS6B",
    "LSRrHhxVDxE3KTjCGy+pDyaO/S0AziYIoB8ObRYOSA8OxywxnSQwdh0sUxUmMQ0ajypdbyJTTxtINRM4HwwlWyeB",
    "RSF0LhhcHRFEDwoqLyetHh6NEhh0CA9O/x4AyhkImRQNaQ4OPwkMuxsuixUrZxEnQAsdox5ZehhPWhNEPQ44Iggj",
    "ZRp7SxZsMhBUHgs9SB2uNBeTIRJ6Ew1aCQg6FhrH",
  ]

  /// A CMYK JPEG decodes to the colours Pillow gives it.
  @Test func aCMYKJPEGDecodesAsPillowConvertsIt() throws {
    let jpeg = try #require(Data(base64Encoded: Self.pillowCMYK.joined()))
    let expected = try #require(Data(base64Encoded: Self.pillowRGB.joined()))
    let image = try decoder.decode([UInt8](jpeg))
    #expect(image.width == 24 && image.height == 16)
    var largest = 0
    for pixel in 0..<(image.width * image.height) {
      for channel in 0..<3 {
        let difference = abs(
          Int(image.pixels[pixel * 4 + channel]) - Int(expected[pixel * 3 + channel]))
        largest = max(largest, difference)
      }
      #expect(image.pixels[pixel * 4 + 3] == 255)
    }
    #expect(largest <= 1, "a channel differs from Pillow's by \(largest)")
  }

  /// A YCCK JPEG (what libjpeg writes for CMYK by default, as Photoshop does), baseline and
  /// progressive, decodes to the colours its CMYK samples stand for.
  @Test(arguments: [false, true])
  func aYCCKJPEGDecodesToItsColours(progressive: Bool) throws {
    let original = Self.photo(width: 48, height: 32)
    let jpeg = try Self.encodeJPEG(original, components: 4, progressive: progressive)
    let image = try decoder.decode(jpeg)
    let (maximum, mean) = Self.difference(image, original)
    #expect(mean < 2 && maximum <= 16, "mean \(mean), maximum \(maximum)")
    // Scaled down for a small picture, too.
    #expect(try decoder.decode(jpeg, minimumSide: 12).width == 12)
  }

  /// Cut short, a JPEG file is an error (libjpeg would fill the rest with grey and warn); with
  /// bytes changed, an error or a picture, never a crash.
  @Test func aDamagedJPEGIsAnErrorOrAPictureNeverACrash() throws {
    let jpeg = try Self.encodeJPEG(Self.photo(width: 64, height: 48), progressive: true)
    for length in [0, 2, 3, 20, 200, jpeg.count / 2, jpeg.count - 2] {
      #expect(throws: ImagingError.self, "cut at \(length)") {
        try decoder.decode(Array(jpeg.prefix(length)))
      }
    }
    var generator = SeededGenerator(seed: 0x5EED_0001)
    for _ in 0..<200 {
      var damaged = jpeg
      for _ in 0..<3 {
        damaged[Int.random(in: 2..<damaged.count, using: &generator)] = UInt8.random(
          in: 0...255, using: &generator)
      }
      _ = try? decoder.decode(damaged)
    }
  }

  /// Where a marker's segment starts in a JPEG file: the index of its 0xFF.
  static func segments(_ jpeg: [UInt8]) -> [(marker: UInt8, start: Int)] {
    var found: [(UInt8, Int)] = []
    var index = 2
    while index + 3 < jpeg.count, jpeg[index] == 0xFF {
      let marker = jpeg[index + 1]
      found.append((marker, index))
      if marker == 0xDA { break }  // entropy-coded data follows
      index += 2 + (Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3]))
    }
    return found
  }

  /// A progressive JPEG whose last scan is repeated thousands of times — a small file that
  /// takes libjpeg seconds and hundreds of megabytes — is refused at once.
  @Test func aJPEGWithThousandsOfScansIsRefused() throws {
    let jpeg = try Self.encodeJPEG(Self.photo(width: 64, height: 48), progressive: true)
    var lastScan = 0
    for index in 0..<(jpeg.count - 1) where jpeg[index] == 0xFF && jpeg[index + 1] == 0xDA {
      lastScan = index
    }
    let scan = Array(jpeg[lastScan..<(jpeg.count - 2)])
    var many = Array(jpeg[..<(jpeg.count - 2)])
    for _ in 0..<3_000 { many += scan }
    many += [0xFF, 0xD9]
    do {
      _ = try decoder.decode(many)
      Issue.record("a JPEG of 3,000 scans was decoded")
    } catch {
      #expect("\(error)".contains("more than 100 scans"), "\(error)")
    }
  }

  /// The work a progressive JPEG takes is counted, not timed: scans times pixels past the
  /// limit is refused whatever the machine is doing, and a file within it always decodes.
  @Test func aJPEGIsRefusedForItsWorkNotForTheTimeItTook() throws {
    // 64 × 48 pixels in libjpeg's ten progressive scans: 30,720 pixels read.
    let jpeg = try Self.encodeJPEG(Self.photo(width: 64, height: 48), progressive: true)
    var strict = decoder
    strict.maximumJPEGWork = 64 * 48 * 10
    for _ in 0..<3 { #expect(try strict.decode(jpeg).width == 64) }
    strict.maximumJPEGWork = 64 * 48 * 10 - 1
    for _ in 0..<3 {
      do {
        _ = try strict.decode(jpeg, minimumSide: 8)
        Issue.record("a JPEG past its work limit was decoded")
      } catch {
        #expect("\(error)".contains("takes too much work to decode"), "\(error)")
      }
    }
    // The default takes a 50-megapixel photo of ten scans.
    #expect(ImageDecoder().maximumJPEGWork >= 50_000_000 * 10)
  }

  /// Bytes between the picture's data and the end marker (a Motion-JPEG frame, some cameras):
  /// viewers show the picture with a warning, and so does this.
  @Test func extraneousBytesBeforeAMarkerAreShownAsViewersDo() throws {
    let original = Self.photo(width: 48, height: 32)
    let jpeg = try Self.encodeJPEG(original)
    let padded = Array(jpeg[..<(jpeg.count - 2)]) + [0x12, 0x34, 0x56] + [0xFF, 0xD9]
    let image = try decoder.decode(padded)
    let (maximum, mean) = Self.difference(image, original)
    #expect(mean < 2 && maximum <= 16, "mean \(mean), maximum \(maximum)")
    // Cut short is still refused.
    #expect(throws: ImagingError.self) { try decoder.decode(Array(jpeg.prefix(jpeg.count / 2))) }
  }

  /// The orientation is found in the Exif segment when an XMP one comes first, and when it is
  /// stored as a LONG rather than a SHORT.
  @Test(arguments: ["xmp first", "long"])
  func theOrientationIsFoundWhereverWritersPutIt(_ variant: String) throws {
    let upright = Self.photo(width: 32, height: 16)
    var jpeg = try Self.encodeJPEG(Self.stored(upright, orientation: 6), orientation: 6)
    if variant == "xmp first" {
      let payload = Array(
        "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)
      let length = payload.count + 2
      let segment = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
      let exif = try #require(Self.segments(jpeg).first { $0.marker == 0xE1 })
      jpeg.insert(contentsOf: segment, at: exif.start)
    } else {
      let short: [UInt8] = [0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
      let at = try #require(
        (0...(jpeg.count - short.count)).first { Array(jpeg[$0..<($0 + short.count)]) == short })
      jpeg[at + 2] = 4
    }
    let image = try decoder.decode(jpeg)
    let (maximum, mean) = Self.difference(image, upright)
    #expect(image.width == 32 && image.height == 16, "\(variant): \(image.width)×\(image.height)")
    #expect(mean < 2 && maximum <= 16, "\(variant): mean \(mean), \(maximum)")
  }

  @Test func otherFilesAreRefusedByName() throws {
    #expect(throws: ImagingError.unknownFormat) { try decoder.decode(Array("GIF89a....".utf8)) }
    var small = ImageDecoder()
    small.maximumFileSize = 10
    #expect(throws: ImagingError.fileTooLarge(bytes: 11, limit: 10)) {
      try small.decode([UInt8](repeating: 0, count: 11))
    }
    #expect(throws: ImagingError.self) { try decoder.decode(contentsOf: "/") }
    #expect(throws: ImagingError.self) { try decoder.decode(contentsOf: "/nonexistent/x.png") }
  }
}
