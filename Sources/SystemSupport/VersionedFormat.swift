#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A state file's contents with a `formatVersion` field, so that a newer program's file is
/// recognized (and kept aside) instead of being misread or overwritten.
package protocol VersionedFormat: Codable, Sendable {
  /// The format version this program writes and the newest it reads.
  static var currentFormatVersion: Int { get }
  /// The version recorded in the file.
  var formatVersion: Int { get }

  /// Decodes a file's contents after checking its format version: with `JSONDecoder`, or by
  /// hand for a format that is also ``JSONRepresentable``.
  ///
  /// - Parameters:
  ///   - data: The file's contents.
  ///   - path: The file's path, for error messages.
  /// - Returns: The decoded contents.
  /// - Throws: ``SystemError/newerFormatVersion(path:found:supported:)`` or
  ///   ``SystemError/malformed(path:detail:)``.
  static func decoded(from data: Data, path: String) throws -> Self

  /// The file's contents: pretty-printed UTF-8 JSON with sorted keys, ending in a newline.
  ///
  /// - Returns: The encoded contents.
  /// - Throws: `EncodingError` when a value cannot be encoded.
  func encoded() throws -> Data
}

private struct FormatHeader: Decodable {
  var formatVersion: Int
}

extension VersionedFormat {
  /// Decodes a file's contents with `JSONDecoder` after checking its format version.
  ///
  /// - Parameters:
  ///   - data: The file's contents.
  ///   - path: The file's path, for error messages.
  /// - Returns: The decoded contents.
  /// - Throws: ``SystemError/newerFormatVersion(path:found:supported:)`` or
  ///   ``SystemError/malformed(path:detail:)``.
  package static func decoded(from data: Data, path: String) throws -> Self {
    let decoder = JSONDecoder()
    // The whole file first: a file this version reads is parsed once. Only a file that does
    // not decode is read again for its version, to tell a newer format from damage.
    let contentError: any Error
    do {
      let content = try decoder.decode(Self.self, from: data)
      try checkVersion(content.formatVersion, path: path)
      return content
    } catch let error as SystemError {
      throw error
    } catch {
      contentError = error
    }
    let header: FormatHeader
    do {
      header = try decoder.decode(FormatHeader.self, from: data)
    } catch {
      throw SystemError.malformed(path: path, detail: describe(error))
    }
    try checkVersion(header.formatVersion, path: path)
    throw SystemError.malformed(path: path, detail: describe(contentError))
  }

  /// Refuses a version this program does not read.
  fileprivate static func checkVersion(_ version: Int, path: String) throws {
    guard version <= currentFormatVersion else {
      throw SystemError.newerFormatVersion(
        path: path, found: version, supported: currentFormatVersion)
    }
    guard version >= 1 else {
      throw SystemError.malformed(
        path: path, detail: "format version \(version) is not valid")
    }
  }

  /// The file's contents as `JSONEncoder` writes them: pretty-printed UTF-8 JSON with sorted
  /// keys, ending in a newline.
  ///
  /// - Returns: The encoded contents.
  /// - Throws: `EncodingError` when a value cannot be encoded.
  package func encoded() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(self)
    data.append(UInt8(ascii: "\n"))
    return data
  }
}

extension VersionedFormat where Self: JSONRepresentable {
  /// Reads a file's contents by hand (``JSONRepresentable``): parsed once, the format version
  /// checked first, so that a newer program's file is told from a damaged one.
  ///
  /// - Parameters:
  ///   - data: The file's contents.
  ///   - path: The file's path, for error messages.
  /// - Returns: The contents.
  /// - Throws: ``SystemError/newerFormatVersion(path:found:supported:)`` or
  ///   ``SystemError/malformed(path:detail:)``.
  package static func decoded(from data: Data, path: String) throws -> Self {
    do {
      let json = try JSONValue(parsing: data)
      try checkVersion(
        json.read("formatVersion") { value throws(JSONReadError) in try value.intValue() },
        path: path)
      return try Self(json: json)
    } catch let error as JSONSyntaxError {
      throw SystemError.malformed(path: path, detail: error.description)
    } catch let error as JSONReadError {
      throw SystemError.malformed(path: path, detail: error.description)
    }
  }

  /// The file's contents, written by hand as `JSONEncoder` would write them: pretty-printed
  /// UTF-8 JSON with sorted keys, ending in a newline.
  ///
  /// - Returns: The contents.
  package func encoded() throws -> Data {
    var bytes = json.serialized(pretty: true, sortingKeys: true)
    bytes.append(UInt8(ascii: "\n"))
    return Data(bytes)
  }
}

/// A short, one-line account of a decoding error: what was wrong and where.
package func describe(_ error: any Error) -> String {
  guard let decodingError = error as? DecodingError else { return "not valid JSON" }
  func location(_ path: [any CodingKey]) -> String {
    path.isEmpty
      ? ""
      : " at '" + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        + "'"
  }
  switch decodingError {
  case .typeMismatch(let type, let context):
    return "expected \(type)\(location(context.codingPath))"
  case .valueNotFound(let type, let context):
    return "missing \(type) value\(location(context.codingPath))"
  case .keyNotFound(let key, let context):
    return "missing '\(key.stringValue)'\(location(context.codingPath))"
  case .dataCorrupted(let context):
    return context.codingPath.isEmpty
      ? "not valid JSON" : "\(context.debugDescription)\(location(context.codingPath))"
  @unknown default:
    return "not valid"
  }
}
