/// What a PNG file's header says: its size and pixel format, read without decoding the pixels.
public struct PNGInfo: Sendable, Hashable {
  /// The width in pixels.
  public let width: Int
  /// The height in pixels.
  public let height: Int
  /// Bits per sample: 1, 2, 4, 8 or 16.
  public let bitDepth: Int
  /// The PNG colour type: 0 greyscale, 2 RGB, 3 palette, 4 greyscale with alpha, 6 RGBA.
  public let colorType: Int
  /// Whether the image is Adam7-interlaced.
  public let isInterlaced: Bool

  /// Reads the signature and the `IHDR` chunk, checking its CRC.
  ///
  /// - Parameter bytes: The file's bytes (the first 33 are enough).
  /// - Throws: ``ImagingError/invalidPNG(_:)`` when the signature, chunk or CRC is wrong.
  public init(_ bytes: some Collection<UInt8>) throws {
    let head = Array(bytes.prefix(33))
    guard head.count >= 8, Array(head[0..<8]) == PNGFormat.signature else {
      throw ImagingError.invalidPNG("wrong signature")
    }
    guard head.count == 33 else { throw ImagingError.invalidPNG("truncated header") }
    func word(_ offset: Int) -> UInt32 {
      head[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
    guard word(8) == 13, Array(head[12..<16]) == Array("IHDR".utf8) else {
      throw ImagingError.invalidPNG("the first chunk is not IHDR")
    }
    guard PNGFormat.crc(Array(head[12..<16]), Array(head[16..<29])) == word(29) else {
      throw ImagingError.invalidPNG("bad CRC in IHDR")
    }
    width = Int(word(16))
    height = Int(word(20))
    bitDepth = Int(head[24])
    colorType = Int(head[25])
    isInterlaced = head[28] != 0
    guard width > 0, height > 0 else { throw ImagingError.invalidPNG("zero width or height") }
  }
}
