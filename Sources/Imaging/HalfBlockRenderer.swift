/// Draws an image in a terminal with upper-half-block characters (`▀`): each character cell
/// shows two pixels, the upper one in the foreground colour and the lower in the background.
package struct HalfBlockRenderer: Sendable {
  /// How colours are written.
  package enum ColorDepth: Sendable, Hashable {
    /// 24-bit colour (`COLORTERM=truecolor` or `24bit`).
    case trueColor
    /// The xterm 256-colour palette: its 6×6×6 cube and grey ramp.
    case palette256
  }

  /// How colours are written.
  package var depth: ColorDepth
  /// The most columns the picture takes.
  package var maximumColumns: Int

  /// Creates a renderer.
  ///
  /// - Parameters:
  ///   - depth: How colours are written.
  ///   - maximumColumns: The most columns the picture takes.
  package init(depth: ColorDepth, maximumColumns: Int = 40) {
    self.depth = depth
    self.maximumColumns = max(1, maximumColumns)
  }

  /// The picture as lines of text with escape sequences, each line ending in a reset.
  ///
  /// The image is scaled to at most ``maximumColumns`` columns (averaging the pixels each
  /// column covers, so nothing flickers away), keeping its proportions. Pixels less than half
  /// opaque show the terminal's own background.
  ///
  /// - Parameter image: The image.
  /// - Returns: The lines.
  package func render(_ image: RGBAImage) -> [String] {
    let columns = min(maximumColumns, image.width)
    let rows = max(1, (image.height * columns + image.width - 1) / image.width)
    let scaled = Self.scale(image, width: columns, height: rows + rows % 2)
    var lines: [String] = []
    for row in stride(from: 0, to: scaled.height, by: 2) {
      // A colour is written only when it changes from the cell before.
      var line = ""
      var foreground: String?
      var background: String?
      func set(_ code: String, background isBackground: Bool) {
        if isBackground {
          if background != code { line += code }
          background = code
        } else {
          if foreground != code { line += code }
          foreground = code
        }
      }
      let defaultBackground = "\u{1B}[49m"
      for column in 0..<columns {
        let upper = scaled.pixel(column, row)
        let lower = scaled.pixel(column, row + 1)
        switch (upper.3 >= 128, lower.3 >= 128) {
        case (false, false):
          set(defaultBackground, background: true)
          line += " "
        case (true, false):
          set(defaultBackground, background: true)
          set(color(upper, background: false), background: false)
          line += "▀"
        case (false, true):
          set(defaultBackground, background: true)
          set(color(lower, background: false), background: false)
          line += "▄"
        case (true, true):
          set(color(upper, background: false), background: false)
          set(color(lower, background: true), background: true)
          line += "▀"
        }
      }
      lines.append(line + "\u{1B}[0m")
    }
    return lines
  }

  private func color(_ pixel: (UInt8, UInt8, UInt8, UInt8), background: Bool) -> String {
    let code = background ? 48 : 38
    switch depth {
    case .trueColor:
      return "\u{1B}[\(code);2;\(pixel.0);\(pixel.1);\(pixel.2)m"
    case .palette256:
      return "\u{1B}[\(code);5;\(Self.paletteIndex(pixel.0, pixel.1, pixel.2))m"
    }
  }

  /// The nearest colour of the xterm 256-colour palette, from its cube or its grey ramp.
  static func paletteIndex(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> Int {
    let levels = [0, 95, 135, 175, 215, 255]
    func nearestLevel(_ value: UInt8) -> Int {
      levels.indices.min { abs(levels[$0] - Int(value)) < abs(levels[$1] - Int(value)) } ?? 0
    }
    let (r, g, b) = (nearestLevel(red), nearestLevel(green), nearestLevel(blue))
    let cube = (levels[r], levels[g], levels[b])
    let average = (Int(red) + Int(green) + Int(blue)) / 3
    let greyStep = max(0, min(23, (average - 8 + 5) / 10))
    let grey = 8 + 10 * greyStep
    func distance(_ color: (Int, Int, Int)) -> Int {
      let dr = color.0 - Int(red)
      let dg = color.1 - Int(green)
      let db = color.2 - Int(blue)
      return dr * dr + dg * dg + db * db
    }
    return distance((grey, grey, grey)) < distance(cube)
      ? 232 + greyStep : 16 + 36 * r + 6 * g + b
  }

  /// The image resized by averaging the source pixels each target pixel covers (weighted by
  /// opacity, so transparent pixels do not darken edges).
  static func scale(_ image: RGBAImage, width: Int, height: Int) -> RGBAImage {
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
      let top = y * image.height / height
      let bottom = max(top + 1, (y + 1) * image.height / height)
      for x in 0..<width {
        let left = x * image.width / width
        let right = max(left + 1, (x + 1) * image.width / width)
        var sums = (0, 0, 0, 0)
        var count = 0
        for sourceY in top..<min(bottom, image.height) {
          for sourceX in left..<min(right, image.width) {
            let pixel = image.pixel(sourceX, sourceY)
            let alpha = Int(pixel.3)
            sums.0 += Int(pixel.0) * alpha
            sums.1 += Int(pixel.1) * alpha
            sums.2 += Int(pixel.2) * alpha
            sums.3 += alpha
            count += 1
          }
        }
        let offset = (y * width + x) * 4
        if sums.3 > 0 {
          pixels[offset] = UInt8(sums.0 / sums.3)
          pixels[offset + 1] = UInt8(sums.1 / sums.3)
          pixels[offset + 2] = UInt8(sums.2 / sums.3)
        }
        pixels[offset + 3] = UInt8(sums.3 / max(count, 1))
      }
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
      ?? RGBAImage(width: width, height: height)
  }
}

extension RGBAImage {
  /// The pixel at a column and row; transparent outside the image.
  func pixel(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
    guard x >= 0, y >= 0, x < width, y < height else { return (0, 0, 0, 0) }
    let offset = (y * width + x) * 4
    return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
  }
}
