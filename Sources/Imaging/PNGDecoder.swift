import CZlib

/// Decodes PNG images to ``RGBAImage``: 8-bit greyscale, greyscale with alpha, RGB, RGBA and
/// palette images (with `tRNS` transparency), every filter type, not interlaced.
///
/// Everything else — interlaced or 16-bit images, damaged files, bad CRCs, sizes past the
/// limits — is an ``ImagingError``. Memory is bounded by the limits: the pixels are inflated
/// into a buffer of exactly the size the header declares, and never more.
public struct PNGDecoder: Sendable {
  /// The largest width or height accepted.
  public var maximumDimension = 8192
  /// The most pixels accepted.
  public var maximumPixels = 16 << 20
  /// The most bytes of a file read.
  public var maximumFileSize = 64 << 20

  /// Creates a decoder with the default limits.
  public init() {}

  /// Decodes a PNG file.
  ///
  /// - Parameter bytes: The file's bytes.
  /// - Returns: The image.
  /// - Throws: ``ImagingError``.
  /// - Complexity: O(*n*) in the number of pixels.
  public func decode(_ bytes: [UInt8]) throws -> RGBAImage {
    guard bytes.count <= maximumFileSize else {
      throw ImagingError.invalidPNG("the file is larger than \(maximumFileSize) bytes")
    }
    let info = try PNGInfo(bytes)
    guard info.width <= maximumDimension, info.height <= maximumDimension,
      info.width * info.height <= maximumPixels
    else {
      throw ImagingError.tooLarge(width: info.width, height: info.height)
    }
    guard !info.isInterlaced else { throw ImagingError.unsupported("interlaced images") }
    guard info.bitDepth == 8 else {
      throw ImagingError.unsupported("\(info.bitDepth)-bit samples (only 8-bit)")
    }
    let channels: Int
    switch info.colorType {
    case 0: channels = 1
    case 2: channels = 3
    case 3: channels = 1
    case 4: channels = 2
    case 6: channels = 4
    default: throw ImagingError.invalidPNG("colour type \(info.colorType)")
    }

    var compressed: [UInt8] = []
    var palette: [UInt8] = []
    var transparency: [UInt8] = []
    var offset = 8
    var sawEnd = false
    while offset < bytes.count {
      guard offset + 12 <= bytes.count else { throw ImagingError.invalidPNG("truncated chunk") }
      let length = Int(bytes.bigEndianWord(at: offset))
      guard length <= bytes.count - offset - 12 else {
        throw ImagingError.invalidPNG("truncated chunk")
      }
      let type = Array(bytes[(offset + 4)..<(offset + 8)])
      let data = Array(bytes[(offset + 8)..<(offset + 8 + length)])
      let stored = bytes.bigEndianWord(at: offset + 8 + length)
      guard PNGFormat.crc(type, data) == stored else {
        throw ImagingError.invalidPNG("bad CRC in \(String(decoding: type, as: UTF8.self))")
      }
      offset += 12 + length
      switch String(decoding: type, as: UTF8.self) {
      case "IDAT": compressed += data
      case "PLTE":
        guard length % 3 == 0, length / 3 <= 256, length > 0 else {
          throw ImagingError.invalidPNG("a palette of \(length) bytes")
        }
        palette = data
      case "tRNS": transparency = data
      case "IEND": sawEnd = true
      default:
        // Unknown critical chunks (upper-case first letter) cannot be skipped.
        if type[0] & 0x20 == 0, String(decoding: type, as: UTF8.self) != "IHDR" {
          throw ImagingError.unsupported(
            "the critical chunk '\(String(decoding: type, as: UTF8.self))'")
        }
      }
      if sawEnd { break }
    }
    guard sawEnd else { throw ImagingError.invalidPNG("no IEND chunk: the file is truncated") }
    guard !compressed.isEmpty else { throw ImagingError.invalidPNG("no image data") }
    if info.colorType == 3 && palette.isEmpty {
      throw ImagingError.invalidPNG("a palette image without a palette")
    }

    let stride = info.width * channels
    let raw = try inflate(compressed, expected: info.height * (stride + 1))
    let samples = try unfilter(raw, rows: info.height, stride: stride, bytesPerPixel: channels)
    return try expand(
      samples, info: info, channels: channels, palette: palette, transparency: transparency)
  }

  /// Inflates exactly `expected` bytes; more or fewer is an error.
  private func inflate(_ compressed: [UInt8], expected: Int) throws -> [UInt8] {
    var output = [UInt8](repeating: 0, count: expected)
    var length = uLongf(expected)
    let status = output.withUnsafeMutableBufferPointer { out in
      compressed.withUnsafeBufferPointer { input in
        uncompress(out.baseAddress, &length, input.baseAddress, uLong(input.count))
      }
    }
    switch status {
    case Z_OK:
      guard Int(length) == expected else {
        throw ImagingError.invalidPNG("the image data is shorter than its size")
      }
      return output
    case Z_BUF_ERROR:
      throw ImagingError.invalidPNG("the image data does not match its size")
    case Z_DATA_ERROR:
      throw ImagingError.invalidPNG("the image data is corrupt")
    default:
      throw ImagingError.compression(status)
    }
  }

  /// Undoes the per-row filters.
  private func unfilter(_ raw: [UInt8], rows: Int, stride: Int, bytesPerPixel: Int) throws
    -> [UInt8]
  {
    var samples = [UInt8](repeating: 0, count: rows * stride)
    try raw.withUnsafeBufferPointer { raw in
      try samples.withUnsafeMutableBufferPointer { out in
        for row in 0..<rows {
          let filter = raw[row * (stride + 1)]
          let input = row * (stride + 1) + 1
          let base = row * stride
          for index in 0..<stride {
            let left = index >= bytesPerPixel ? out[base + index - bytesPerPixel] : 0
            let up = row > 0 ? out[base - stride + index] : 0
            let upLeft =
              row > 0 && index >= bytesPerPixel ? out[base - stride + index - bytesPerPixel] : 0
            let predictor: UInt8
            switch filter {
            case 0: predictor = 0
            case 1: predictor = left
            case 2: predictor = up
            case 3: predictor = UInt8((Int(left) + Int(up)) / 2)
            case 4: predictor = PNGFormat.paeth(left, up, upLeft)
            default: throw ImagingError.invalidPNG("row \(row) has filter type \(filter)")
            }
            out[base + index] = raw[input + index] &+ predictor
          }
        }
      }
    }
    return samples
  }

  /// Turns samples of any supported colour type into RGBA.
  private func expand(
    _ samples: [UInt8], info: PNGInfo, channels: Int, palette: [UInt8], transparency: [UInt8]
  ) throws -> RGBAImage {
    let count = info.width * info.height
    var pixels = [UInt8](repeating: 255, count: count * 4)
    // tRNS for greyscale and RGB: one colour, as 16-bit samples, is transparent.
    let key: [UInt8]? =
      switch info.colorType {
      case 0 where transparency.count >= 2: [transparency[1]]
      case 2 where transparency.count >= 6: [transparency[1], transparency[3], transparency[5]]
      default: nil
      }
    for pixel in 0..<count {
      let input = pixel * channels
      let output = pixel * 4
      switch info.colorType {
      case 0, 4:
        let grey = samples[input]
        pixels[output] = grey
        pixels[output + 1] = grey
        pixels[output + 2] = grey
        if info.colorType == 4 {
          pixels[output + 3] = samples[input + 1]
        } else if key == [grey] {
          pixels[output + 3] = 0
        }
      case 2, 6:
        pixels[output] = samples[input]
        pixels[output + 1] = samples[input + 1]
        pixels[output + 2] = samples[input + 2]
        if info.colorType == 6 {
          pixels[output + 3] = samples[input + 3]
        } else if let key, key == Array(samples[input..<(input + 3)]) {
          pixels[output + 3] = 0
        }
      default:
        let entry = Int(samples[input])
        guard entry * 3 + 2 < palette.count else {
          throw ImagingError.invalidPNG("palette index \(entry) past the palette")
        }
        pixels[output] = palette[entry * 3]
        pixels[output + 1] = palette[entry * 3 + 1]
        pixels[output + 2] = palette[entry * 3 + 2]
        pixels[output + 3] = entry < transparency.count ? transparency[entry] : 255
      }
    }
    guard let image = RGBAImage(width: info.width, height: info.height, pixels: pixels) else {
      throw ImagingError.invalidPNG("the pixel count does not match the size")
    }
    return image
  }
}

extension [UInt8] {
  fileprivate func bigEndianWord(at offset: Int) -> UInt32 {
    self[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
  }
}
