/// An image in memory: 8-bit RGBA pixels, row by row from the top left.
package struct RGBAImage: Sendable, Hashable {
  /// The width in pixels.
  package let width: Int
  /// The height in pixels.
  package let height: Int
  /// The pixels, four bytes each (red, green, blue, alpha), `width × height` of them.
  package var pixels: [UInt8]

  /// Creates an image filled with one colour.
  ///
  /// - Parameters:
  ///   - width: The width in pixels, at least 1.
  ///   - height: The height in pixels, at least 1.
  ///   - fill: The colour of every pixel, as red, green, blue and alpha; transparent by default.
  package init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)) {
    self.width = max(1, width)
    self.height = max(1, height)
    pixels = [UInt8](repeating: 0, count: self.width * self.height * 4)
    for offset in stride(from: 0, to: pixels.count, by: 4) {
      pixels[offset] = fill.0
      pixels[offset + 1] = fill.1
      pixels[offset + 2] = fill.2
      pixels[offset + 3] = fill.3
    }
  }

  /// Creates an image from its pixels.
  ///
  /// - Parameters:
  ///   - width: The width in pixels.
  ///   - height: The height in pixels.
  ///   - pixels: `width × height × 4` bytes of RGBA; nil when the count does not match the size.
  package init?(width: Int, height: Int, pixels: [UInt8]) {
    guard width > 0, height > 0, pixels.count == width * height * 4 else { return nil }
    self.width = width
    self.height = height
    self.pixels = pixels
  }
}
