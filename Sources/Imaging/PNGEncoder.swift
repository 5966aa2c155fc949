import CZlib

/// Writes images as PNG: 8-bit RGBA, non-interlaced, each row filtered with the filter that
/// compresses best by the usual heuristic (smallest sum of absolute values).
package enum PNGEncoder {
  /// Encodes an image as a PNG file.
  ///
  /// - Parameter image: The image.
  /// - Returns: The file's bytes.
  /// - Throws: ``ImagingError/compression(_:)`` when zlib fails.
  /// - Complexity: O(*n*) in the number of pixels.
  package static func encode(_ image: RGBAImage) throws -> [UInt8] {
    var output: [UInt8] = PNGFormat.signature
    var header: [UInt8] = []
    header.appendBigEndian(UInt32(image.width))
    header.appendBigEndian(UInt32(image.height))
    header += [8, 6, 0, 0, 0]  // bit depth 8, colour type RGBA, deflate, adaptive, no interlace
    PNGFormat.appendChunk("IHDR", header, to: &output)
    PNGFormat.appendChunk("IDAT", try compress(filteredRows(image)), to: &output)
    PNGFormat.appendChunk("IEND", [], to: &output)
    return output
  }

  private static func filteredRows(_ image: RGBAImage) -> [UInt8] {
    let stride = image.width * 4
    var result: [UInt8] = []
    result.reserveCapacity((stride + 1) * image.height)
    var previous = [UInt8](repeating: 0, count: stride)
    for row in 0..<image.height {
      let line = Array(image.pixels[(row * stride)..<((row + 1) * stride)])
      var best: (cost: Int, type: UInt8, bytes: [UInt8])?
      for type in UInt8(0)...4 {
        let bytes = PNGFormat.filter(type, line: line, previous: previous, bytesPerPixel: 4)
        let cost = bytes.reduce(0) { $0 + Int(Int8(bitPattern: $1).magnitude) }
        if cost < (best?.cost ?? .max) { best = (cost, type, bytes) }
      }
      if let best {
        result.append(best.type)
        result += best.bytes
      }
      previous = line
    }
    return result
  }

  static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
    var capacity = compressBound(uLong(bytes.count))
    var output = [UInt8](repeating: 0, count: Int(capacity))
    let status = output.withUnsafeMutableBufferPointer { destination in
      bytes.withUnsafeBufferPointer { source in
        compress2(destination.baseAddress, &capacity, source.baseAddress, uLong(source.count), 9)
      }
    }
    guard status == Z_OK else { throw ImagingError.compression(status) }
    return Array(output.prefix(Int(capacity)))
  }
}
