import CZlib

/// The parts of the PNG format shared by the encoder and the readers.
enum PNGFormat {
  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  static func crc(_ type: [UInt8], _ data: [UInt8]) -> UInt32 {
    var value = crc32(0, nil, 0)
    value = type.withUnsafeBufferPointer { crc32(value, $0.baseAddress, uInt($0.count)) }
    value = data.withUnsafeBufferPointer { crc32(value, $0.baseAddress, uInt($0.count)) }
    return UInt32(value)
  }

  static func appendChunk(_ type: String, _ data: [UInt8], to output: inout [UInt8]) {
    let typeBytes = Array(type.utf8)
    output.appendBigEndian(UInt32(data.count))
    output += typeBytes
    output += data
    output.appendBigEndian(crc(typeBytes, data))
  }

  /// Applies PNG filter `type` (0 none, 1 sub, 2 up, 3 average, 4 Paeth) to one row.
  static func filter(_ type: UInt8, line: [UInt8], previous: [UInt8], bytesPerPixel: Int) -> [UInt8]
  {
    var out = [UInt8](repeating: 0, count: line.count)
    for index in line.indices {
      let left = index >= bytesPerPixel ? line[index - bytesPerPixel] : 0
      let up = previous[index]
      let upLeft = index >= bytesPerPixel ? previous[index - bytesPerPixel] : 0
      let predictor: UInt8 =
        switch type {
        case 1: left
        case 2: up
        case 3: UInt8((Int(left) + Int(up)) / 2)
        case 4: paeth(left, up, upLeft)
        default: 0
        }
      out[index] = line[index] &- predictor
    }
    return out
  }

  static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
    let p = Int(a) + Int(b) - Int(c)
    let pa = abs(p - Int(a))
    let pb = abs(p - Int(b))
    let pc = abs(p - Int(c))
    if pa <= pb && pa <= pc { return a }
    return pb <= pc ? b : c
  }
}

extension Array where Element == UInt8 {
  mutating func appendBigEndian(_ value: UInt32) {
    append(UInt8(value >> 24))
    append(UInt8((value >> 16) & 0xFF))
    append(UInt8((value >> 8) & 0xFF))
    append(UInt8(value & 0xFF))
  }
}
