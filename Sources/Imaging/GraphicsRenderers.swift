import Foundation

/// Draws an image with the kitty graphics protocol: the picture as PNG, base64 in chunks of
/// 4,096 bytes, placed at the cursor and scaled by the terminal to a box of cells.
package struct KittyRenderer: Sendable {
  /// The columns the picture takes.
  package var columns: Int

  /// Creates a renderer.
  ///
  /// - Parameter columns: The columns the picture takes.
  package init(columns: Int) {
    self.columns = max(1, columns)
  }

  /// The escape sequences that draw the picture, as one line; the terminal moves the cursor
  /// past the picture's rows.
  ///
  /// - Parameter image: The image.
  /// - Returns: The lines to write.
  /// - Throws: ``ImagingError`` when the picture cannot be encoded.
  package func render(_ image: RGBAImage) throws -> [String] {
    // Terminal cells are about twice as high as wide.
    let rows = max(1, (image.height * columns + image.width) / (2 * image.width))
    // The terminal scales it; sending more than 800 pixels across gains nothing.
    let width = min(image.width, 800)
    let scaled =
      width == image.width
      ? image
      : HalfBlockRenderer.scale(
        image, width: width, height: max(1, image.height * width / image.width))
    let encoded = Data(try PNGEncoder.encode(scaled)).base64EncodedString()
    var output = ""
    var start = encoded.startIndex
    var first = true
    while start < encoded.endIndex {
      let end =
        encoded.index(start, offsetBy: 4096, limitedBy: encoded.endIndex) ?? encoded.endIndex
      let more = end < encoded.endIndex ? 1 : 0
      let control = first ? "a=T,f=100,c=\(columns),r=\(rows),q=2,m=\(more)" : "m=\(more)"
      output += "\u{1B}_G\(control);\(encoded[start..<end])\u{1B}\\"
      first = false
      start = end
    }
    return [output]
  }
}

/// Draws an image as sixels (DEC's six-pixel columns): scaled to a width in pixels with an
/// area-averaging filter, its colours the 216 of a 6×6×6 cube, each run of a colour written
/// once with a repeat count.
package struct SixelRenderer: Sendable {
  /// The picture's width in pixels.
  package var width: Int

  /// Creates a renderer.
  ///
  /// - Parameter width: The picture's width in pixels.
  package init(width: Int) {
    self.width = max(1, width)
  }

  /// The sixel sequence that draws the picture, as one line.
  ///
  /// - Parameter image: The image.
  /// - Returns: The lines to write.
  package func render(_ image: RGBAImage) -> [String] {
    let outWidth = min(width, image.width)
    let outHeight = max(1, image.height * outWidth / image.width)
    let scaled = HalfBlockRenderer.scale(image, width: outWidth, height: outHeight)
    // Each pixel's colour in the cube, or -1 for a transparent one.
    let levels = { (value: UInt8) in (Int(value) * 5 + 127) / 255 }
    var indexes = [Int](repeating: -1, count: outWidth * outHeight)
    for y in 0..<outHeight {
      for x in 0..<outWidth {
        let pixel = scaled.pixel(x, y)
        guard pixel.3 >= 128 else { continue }
        indexes[y * outWidth + x] = 36 * levels(pixel.0) + 6 * levels(pixel.1) + levels(pixel.2)
      }
    }
    var output = "\u{1B}Pq\"1;1;\(outWidth);\(outHeight)"
    for color in Set(indexes) where color >= 0 {
      let (r, g, b) = (color / 36, color / 6 % 6, color % 6)
      output += "#\(color);2;\(r * 20);\(g * 20);\(b * 20)"
    }
    for band in stride(from: 0, to: outHeight, by: 6) {
      var colors: Set<Int> = []
      for y in band..<min(band + 6, outHeight) {
        for x in 0..<outWidth where indexes[y * outWidth + x] >= 0 {
          colors.insert(indexes[y * outWidth + x])
        }
      }
      for color in colors.sorted() {
        output += "#\(color)"
        var previous: Character?
        var count = 0
        func flush() {
          guard let previous, count > 0 else { return }
          output += count > 3 ? "!\(count)\(previous)" : String(repeating: previous, count: count)
        }
        for x in 0..<outWidth {
          var bits = 0
          for row in 0..<6 where band + row < outHeight {
            if indexes[(band + row) * outWidth + x] == color { bits |= 1 << row }
          }
          let character = Character(Unicode.Scalar(UInt8(63 + bits)))
          if character == previous {
            count += 1
          } else {
            flush()
            previous = character
            count = 1
          }
        }
        flush()
        output += "$"
      }
      output += "-"
    }
    return [output + "\u{1B}\\"]
  }
}
