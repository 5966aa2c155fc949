import CImageCodecs

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Decodes PNG and JPEG images to ``RGBAImage`` through libpng and libjpeg-turbo, the decoders
/// every Linux image viewer uses.
///
/// Every valid PNG (all bit depths and colour types, palettes with transparency, interlaced;
/// gamma is ignored) and every baseline or progressive JPEG (greyscale, colour, or CMYK and
/// YCCK converted to RGB as Pillow converts them; its EXIF orientation applied) decodes. A
/// damaged, truncated or unknown file, or an image over the limits (pixels, and for a JPEG
/// its scans and the work they add up to, counted rather than timed) is an ``ImagingError``,
/// never a crash: the libraries' own error
/// handling (libpng's `longjmp`, libjpeg's `error_exit`) ends in C, and comes out as a code and
/// a message. The size is checked from the header, before the pixels are allocated.
package struct ImageDecoder: Sendable {
  /// The most bytes of a file read.
  package var maximumFileSize = 64 << 20
  /// The most pixels decoded.
  package var maximumPixels = 50_000_000
  /// The most work a JPEG may take, in pixels read: its pixels times its scans, as each scan
  /// of a progressive file reads every coefficient of the components it holds. A 50-megapixel
  /// photo of the ten scans libjpeg writes is within it. Counted, not timed, so the same file
  /// always gets the same answer, however busy the machine is.
  package var maximumJPEGWork = 500_000_000

  /// Creates a decoder with the default limits: 64 MiB, 50 megapixels.
  package init() {}

  /// Decodes an image file's bytes, PNG or JPEG, told apart by their first bytes.
  ///
  /// - Parameters:
  ///   - bytes: The bytes.
  ///   - minimumSide: For a picture to be drawn small: a JPEG image may be decoded at 1/2, 1/4
  ///     or 1/8 of its size (libjpeg's scaled inverse DCT, which averages) while its longer side
  ///     stays at least this; nil for full size.
  /// - Returns: The image, upright.
  /// - Throws: ``ImagingError``.
  package func decode(_ bytes: [UInt8], minimumSide: Int? = nil) throws(ImagingError)
    -> RGBAImage
  {
    guard bytes.count <= maximumFileSize else {
      throw .fileTooLarge(bytes: bytes.count, limit: maximumFileSize)
    }
    let isPNG = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47])
    let isJPEG = bytes.starts(with: [0xFF, 0xD8, 0xFF])
    guard isPNG || isJPEG else { throw .unknownFormat }
    var result = codec_image()
    let code = bytes.withUnsafeBufferPointer { buffer in
      isPNG
        ? codec_png_decode(buffer.baseAddress, buffer.count, Int64(maximumPixels), &result)
        : codec_jpeg_decode(
          buffer.baseAddress, buffer.count, Int64(maximumPixels), Int64(maximumJPEGWork),
          Int32(clamping: minimumSide ?? 0), &result)
    }
    let message = withUnsafeBytes(of: result.message) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    switch Int(code) {
    case Int(CODEC_OK): break
    case Int(CODEC_TOO_LARGE):
      throw .tooLarge(width: Int(result.width), height: Int(result.height))
    case Int(CODEC_UNSUPPORTED): throw .unsupported(message)
    default: throw isPNG ? .invalidPNG(message) : .invalidJPEG(message)
    }
    defer { codec_free(result.pixels) }
    let width = Int(result.width)
    let height = Int(result.height)
    guard let base = result.pixels, width > 0, height > 0,
      let image = RGBAImage(
        width: width, height: height,
        pixels: Array(UnsafeBufferPointer(start: base, count: width * height * 4)))
    else { throw isPNG ? .invalidPNG("no pixels") : .invalidJPEG("no pixels") }
    return image.oriented(Int(result.orientation))
  }

  /// An image file's size as it is shown (its EXIF orientation applied), read from its header
  /// without decoding the pixels.
  ///
  /// - Parameter path: The file.
  /// - Returns: The width and height in pixels.
  /// - Throws: ``ImagingError``.
  package func size(contentsOf path: String) throws(ImagingError) -> (width: Int, height: Int) {
    let bytes = try read(path)
    guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) || bytes.starts(with: [0xFF, 0xD8, 0xFF])
    else { throw .unknownFormat }
    var result = codec_image()
    let code = bytes.withUnsafeBufferPointer {
      codec_read_size($0.baseAddress, $0.count, &result)
    }
    guard code == 0, result.width > 0, result.height > 0 else {
      let message = withUnsafeBytes(of: result.message) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      throw bytes.starts(with: [0x89, 0x50]) ? .invalidPNG(message) : .invalidJPEG(message)
    }
    let (width, height) = (Int(result.width), Int(result.height))
    return result.orientation >= 5 ? (height, width) : (width, height)
  }

  /// Decodes an image file: a regular file (a link is not followed, a FIFO not waited on) no
  /// larger than the limit, read whole.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - minimumSide: As for ``decode(_:minimumSide:)``.
  /// - Returns: The image, upright.
  /// - Throws: ``ImagingError``.
  package func decode(contentsOf path: String, minimumSide: Int? = nil) throws(ImagingError)
    -> RGBAImage
  {
    try decode(read(path), minimumSide: minimumSide)
  }

  /// Reads an image file's bytes, within the limit.
  func read(_ path: String) throws(ImagingError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard descriptor >= 0 else {
      throw .cannotRead(path: path, reason: String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      throw .cannotRead(path: path, reason: "it is not a regular file")
    }
    guard Int(status.st_size) <= maximumFileSize else {
      throw .fileTooLarge(bytes: Int(status.st_size), limit: maximumFileSize)
    }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
    var done = 0
    while done < bytes.count {
      let count = bytes[done...].withUnsafeMutableBytes {
        Glibc.read(descriptor, $0.baseAddress, $0.count)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      done += count
    }
    return Array(bytes[..<done])
  }
}

extension RGBAImage {
  /// The image turned upright from an EXIF orientation: 1 as stored, 2 mirrored, 3 turned half
  /// way, 4 flipped, 5 transposed, 6 turned a quarter clockwise, 7 transversed, 8 turned a
  /// quarter counter-clockwise.
  ///
  /// - Parameter orientation: The EXIF orientation, 1 to 8; anything else is 1.
  /// - Returns: The image as it is meant to be seen.
  package func oriented(_ orientation: Int) -> RGBAImage {
    guard (2...8).contains(orientation) else { return self }
    let swaps = orientation >= 5
    let (outWidth, outHeight) = swaps ? (height, width) : (width, height)
    var out = [UInt8](repeating: 0, count: pixels.count)
    for y in 0..<outHeight {
      for x in 0..<outWidth {
        // Where the upright pixel (x, y) is stored.
        let (sx, sy): (Int, Int)
        switch orientation {
        case 2: (sx, sy) = (width - 1 - x, y)
        case 3: (sx, sy) = (width - 1 - x, height - 1 - y)
        case 4: (sx, sy) = (x, height - 1 - y)
        case 5: (sx, sy) = (y, x)
        case 6: (sx, sy) = (y, height - 1 - x)
        case 7: (sx, sy) = (width - 1 - y, height - 1 - x)
        default: (sx, sy) = (width - 1 - y, x)
        }
        let from = (sy * width + sx) * 4
        let to = (y * outWidth + x) * 4
        out[to] = pixels[from]
        out[to + 1] = pixels[from + 1]
        out[to + 2] = pixels[from + 2]
        out[to + 3] = pixels[from + 3]
      }
    }
    return RGBAImage(width: outWidth, height: outHeight, pixels: out) ?? self
  }
}
