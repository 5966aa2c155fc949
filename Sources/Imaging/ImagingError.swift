import Foundation

/// What can go wrong reading or writing an image.
public enum ImagingError: Error, Sendable, Equatable, LocalizedError {
  /// The data is not a PNG file or is damaged; the detail says where.
  case invalidPNG(String)
  /// The image uses a PNG feature this decoder does not support.
  case unsupported(String)
  /// The image is larger than the limits allow.
  case tooLarge(width: Int, height: Int)
  /// zlib failed.
  case compression(Int32)

  /// The message shown to the user: what went wrong, with the values involved in quotes.
  public var errorDescription: String? {
    switch self {
    case .invalidPNG(let detail): "not a valid PNG image: \(detail)"
    case .unsupported(let detail): "unsupported PNG image: \(detail)"
    case .tooLarge(let width, let height): "the image is too large (\(width)×\(height) pixels)"
    case .compression(let code): "zlib failed with code \(code)"
    }
  }
}
