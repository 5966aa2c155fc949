import Foundation
import StateRestoration

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a catalog as a JSON array in the shape of the bundled `products.json`, a product at a
/// time, so that exporting a million products never holds them all in memory. The output
/// imports back to the same catalog.
public enum ProductExport {
  /// What an export writes.
  public enum Format: String, Sendable, Hashable {
    /// A JSON array shaped like the bundled `products.json`.
    case json
    /// RFC 4180 CSV with the header the importer reads; keywords joined by `;`.
    case csv

    /// The format a file's name asks for: CSV for `.csv`, JSON otherwise.
    ///
    /// - Parameter path: The file.
    /// - Returns: The format.
    public static func forFile(_ path: String) -> Format {
      path.lowercased().hasSuffix(".csv") ? .csv : .json
    }
  }

  /// The header row of a CSV export, the importer's column names.
  public static let csvHeader = "identifier,name,imageName,year,price,keywords"

  /// One product as a CSV row (RFC 4180: a field with a comma, quote or line break in double
  /// quotes, quotes doubled), without its line break.
  ///
  /// - Parameters:
  ///   - product: The product.
  ///   - directory: As for ``json(_:directory:)``.
  /// - Returns: The row.
  public static func csv(_ product: Product, directory: String? = nil) -> String {
    let imageName = directory.map { product.imageName(relativeTo: $0) } ?? product.imageName
    return [
      product.identifier.uuidString, product.name, imageName, String(product.year),
      product.price.plainText, product.keywords.joined(separator: ";"),
    ].map(csvField).joined(separator: ",")
  }

  private static func csvField(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
  /// One product as a line of JSON: identifier, name, imageName, year, price (an exact
  /// decimal), keywords.
  ///
  /// - Parameters:
  ///   - product: The product.
  ///   - directory: The absolute directory of the file written, which an import resolves a
  ///     relative image path against: an image path relative to it stays as it was given, one
  ///     relative to another directory is written absolute. Nil writes it as given.
  /// - Returns: The JSON object, without a trailing newline.
  public static func json(_ product: Product, directory: String? = nil) -> String {
    let imageName = directory.map { product.imageName(relativeTo: $0) } ?? product.imageName
    return
      "{\"identifier\": \"\(product.identifier.uuidString)\", \"name\": \(product.name.jsonQuoted), "
      + "\"imageName\": \(imageName.jsonQuoted), \"year\": \(product.year), "
      + "\"price\": \(product.price.plainText), \"keywords\": ["
      + product.keywords.map(\.jsonQuoted).joined(separator: ", ") + "]}"
  }

  /// Writes a catalog to a file descriptor.
  ///
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - descriptor: Where to write.
  ///   - path: The destination's name, for messages.
  ///   - directory: The absolute directory relative image paths are written relative to (see
  ///     ``json(_:directory:)``): the file's, or the current directory for standard output.
  ///   - format: JSON or CSV.
  ///   - byteOrderMark: Whether to begin with a UTF-8 byte order mark (for spreadsheets).
  /// - Returns: The number of products written.
  /// - Throws: ``StateRestorationError/cannotWrite(path:reason:)``.
  @discardableResult
  public static func write(
    _ catalog: Catalog, to descriptor: Int32, path: String, directory: String,
    format: Format = .json, byteOrderMark: Bool = false
  ) throws -> Int {
    var buffer = (byteOrderMark ? "\u{FEFF}" : "") + (format == .json ? "[" : csvHeader + "\r\n")
    var count = 0
    func flush() throws {
      var bytes = buffer
      buffer = ""
      try bytes.withUTF8 { chunk in
        guard let base = chunk.baseAddress else { return }
        var offset = 0
        while offset < chunk.count {
          let written = Glibc.write(descriptor, base + offset, chunk.count - offset)
          if written < 0 && errno == EINTR { continue }
          guard written > 0 else {
            throw StateRestorationError.cannotWrite(
              path: path, reason: String(cString: strerror(errno)))
          }
          offset += written
        }
      }
    }
    try catalog.forEachProduct { product in
      switch format {
      case .json: buffer += (count == 0 ? "\n  " : ",\n  ") + json(product, directory: directory)
      case .csv: buffer += csv(product, directory: directory) + "\r\n"
      }
      count += 1
      if buffer.utf8.count > 1 << 16 { try flush() }
    }
    if format == .json { buffer += count == 0 ? "]\n" : "\n]\n" }
    try flush()
    return count
  }

  /// Writes a catalog to a file atomically and durably: a temporary file beside it, `fsync`,
  /// rename, and `fsync` of the directory. An existing file is replaced only by a complete one.
  ///
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - path: The file.
  ///   - format: JSON or CSV; by default what the file's name asks for (``Format/forFile(_:)``).
  ///   - byteOrderMark: Whether to begin with a UTF-8 byte order mark (for spreadsheets).
  /// - Returns: The number of products written.
  /// - Throws: ``StateRestorationError/cannotWrite(path:reason:)``.
  @discardableResult
  public static func write(
    _ catalog: Catalog, toFile path: String, format: Format? = nil, byteOrderMark: Bool = false
  ) throws -> Int {
    let directory = (path as NSString).deletingLastPathComponent
    let folder = directory.isEmpty ? "." : directory
    let destination = folder + "/" + (path as NSString).lastPathComponent
    // What an earlier export killed before its rename left beside the file goes first: no
    // launch sweeps the user's own folders.
    DurableFile.removeAbandonedTemporaryFiles(of: destination)
    let temporary = DurableFile.temporaryPath(for: destination)
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else {
      throw StateRestorationError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
    }
    var isComplete = false
    defer {
      close(descriptor)
      if !isComplete { unlink(temporary) }
    }
    let count = try write(
      catalog, to: descriptor, path: path, directory: ProductFile.absoluteDirectory(of: path),
      format: format ?? .forFile(path), byteOrderMark: byteOrderMark)
    guard fsync(descriptor) == 0 else {
      throw StateRestorationError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
    }
    guard rename(temporary, path) == 0 else {
      throw StateRestorationError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
    }
    isComplete = true
    try DurableFile.synchronizeDirectory(folder)
    return count
  }
}
