import Foundation

/// What can go wrong reading or writing an image.
package enum ImagingError: Error, Sendable, Equatable, LocalizedError {
  /// The data is not a PNG file or is damaged; the detail says where.
  case invalidPNG(String)
  /// The data is not a JPEG file or is damaged, truncated or corrupt.
  case invalidJPEG(String)
  /// The data is neither PNG nor JPEG.
  case unknownFormat
  /// The image is of a kind that is not shown, or its decoder cannot be loaded.
  case unsupported(String)
  /// The file is larger than the limit, in bytes.
  case fileTooLarge(bytes: Int, limit: Int)
  /// The file cannot be read.
  case cannotRead(path: String, reason: String)
  /// The image is larger than the limits allow.
  case tooLarge(width: Int, height: Int)
  /// zlib failed.
  case compression(Int32)

  /// The message shown to the user: what went wrong, with the values involved in quotes.
  package var errorDescription: String? {
    switch self {
    case .invalidPNG(let detail): "not a valid PNG image: \(detail)"
    case .invalidJPEG(let detail): "not a valid JPEG image: \(detail)"
    case .unknownFormat: "it is not a picture (a PNG or JPEG file)"
    case .unsupported(let detail): "unsupported image: \(detail)"
    case .fileTooLarge(let bytes, let limit):
      "the file is too large (\(bytes) bytes; the limit is \(limit))"
    case .cannotRead(let path, let reason): "cannot read '\(path)': \(reason)"
    case .tooLarge(let width, let height): "the image is too large (\(width)×\(height) pixels)"
    case .compression(let code): "zlib failed with code \(code)"
    }
  }
}
