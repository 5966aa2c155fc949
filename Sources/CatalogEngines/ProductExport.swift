import CatalogModel
import Foundation
import StateRestoration
import SystemSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a catalog as a JSON array in the shape of the bundled `products.json`, a product at a
/// time, so that exporting a million products never holds them all in memory. The output
/// imports back to the same catalog.
package enum ProductExport {
  /// What an export writes.
  package enum Format: String, Sendable, Hashable, CaseIterable {
    /// A JSON array shaped like the bundled `products.json`.
    case json
    /// RFC 4180 CSV with the header the importer reads; keywords joined by `;`.
    case csv

    /// The format a file's name asks for: CSV for `.csv`, JSON otherwise.
    ///
    /// - Parameter path: The file.
    /// - Returns: The format.
    package static func forFile(_ path: String) -> Format {
      path.lowercased().hasSuffix(".csv") ? .csv : .json
    }
  }

  /// The header row of a CSV export, the importer's column names.
  package static let csvHeader = "identifier,name,imageName,year,price,keywords"

  /// One product as a line of JSON: identifier, name, imageName, year, price (an exact
  /// decimal), keywords.
  ///
  /// - Parameters:
  ///   - product: The product.
  ///   - directory: The absolute directory of the file written, which an import resolves a
  ///     relative image path against: an image path relative to it stays as it was given, one
  ///     relative to another directory is written absolute. Nil writes it as given.
  /// - Returns: The JSON object, without a trailing newline.
  package static func json(_ product: Product, directory: String? = nil) -> String {
    let imageName = directory.map { product.imageName(relativeTo: $0) } ?? product.imageName
    return
      "{\"identifier\": \"\(product.identifier.uuidString)\", \"name\": \(product.name.jsonQuoted), "
      + "\"imageName\": \(imageName.jsonQuoted), \"year\": \(product.year), "
      + "\"price\": \(product.price.plainText), \"keywords\": ["
      + product.keywords.map(\.jsonQuoted).joined(separator: ", ") + "]}"
  }

  /// What an export wrote.
  package struct Summary: Sendable, Hashable {
    /// The products written.
    package var count = 0
  }

  /// Writes a catalog to a file descriptor.
  ///
  /// A catalog database's rows are written from their bytes when those show that the row keeps
  /// the editor's rules (``ProductBytes``), the same bytes a `Product` would give; every other
  /// row is read as a `Product` and checked in full.
  ///
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - descriptor: Where to write.
  ///   - path: The destination's name, for messages.
  ///   - directory: The absolute directory relative image paths are written relative to (see
  ///     ``json(_:directory:)``): the file's, or the current directory for standard output.
  ///   - format: JSON or CSV.
  ///   - byteOrderMark: Whether the file is for spreadsheets: it begins with a UTF-8 byte
  ///     order mark, and a text cell that a spreadsheet would run as a formula (one beginning
  ///     with `=`, `+`, `-`, `@`, a tab or a carriage return; or with `'`, which marks the
  ///     others) begins with `'`, which the importer takes off again in such a file.
  ///   - progress: Called every 10,000 products with how many are written; what it throws
  ///     stops the writing (Ctrl-C, say).
  /// - Returns: What was written.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``, or what `progress` throws.
  @discardableResult
  package static func write(
    _ catalog: Catalog, to descriptor: Int32, path: String, directory: String,
    format: Format = .json, byteOrderMark: Bool = false,
    progress: (_ written: Int) throws -> Void = { _ in }
  ) throws -> Summary {
    var output = Output(
      descriptor: descriptor, path: path, directory: directory, format: format,
      forSpreadsheets: byteOrderMark)
    if byteOrderMark { output.appendText("\u{FEFF}") }
    output.appendText(format == .json ? "[" : csvHeader + "\r\n")
    var summary = Summary()
    try catalog.source.forEachRecord { _, record in
      // One access to the output a row: its own methods write the row.
      try output.write(record, first: summary.count == 0)
      summary.count += 1
      if summary.count % 10_000 == 0 { try progress(summary.count) }
    }
    if format == .json { output.append(summary.count == 0 ? "]\n" : "\n]\n") }
    try output.flush()
    return summary
  }

  /// Products on their way to a file descriptor, as JSON or CSV: written into a buffer of its
  /// own, each field's room made once, and flushed every 64 KiB.
  private struct Output: ~Copyable {
    let descriptor: Int32
    let path: String
    /// The directory relative picture names are written relative to.
    let directory: String
    let format: Format
    /// Whether cells that would read as formulas are marked.
    let forSpreadsheets: Bool
    private var buffer: UnsafeMutableBufferPointer<UInt8>
    private var count = 0

    init(
      descriptor: Int32, path: String, directory: String, format: Format, forSpreadsheets: Bool
    ) {
      (self.descriptor, self.path, self.directory) = (descriptor, path, directory)
      (self.format, self.forSpreadsheets) = (format, forSpreadsheets)
      buffer = .allocate(capacity: 1 << 17)
    }

    deinit { buffer.deallocate() }

    /// Writes one product, after a separator unless it is the first; flushes every 64 KiB.
    mutating func write(_ record: ProductRecord, first: Bool) throws {
      if format == .json { append(first ? "\n  " : ",\n  ") }
      switch (record, format) {
      case (.bytes(let row), .json): appendJSON(row)
      case (.bytes(let row), .csv):
        appendCSV(
          identifier: row.identifier, name: row.name, imageName: row.imageName, year: row.year,
          cents: row.cents, keywords: row.keywords)
      case (.product(let product), .json): appendText(json(product, directory: directory))
      case (.product(let product), .csv):
        var identifier = product.identifier.uuidString
        var name = product.name
        var imageName = product.imageName(relativeTo: directory)
        var keywords = product.keywords.joined(separator: "\u{1F}")
        identifier.withUTF8 { identifier in
          name.withUTF8 { name in
            imageName.withUTF8 { imageName in
              keywords.withUTF8 { keywords in
                appendCSV(
                  identifier: identifier, name: name, imageName: imageName, year: product.year,
                  cents: product.price.cents, keywords: keywords)
              }
            }
          }
        }
      }
      if count > 1 << 16 { try flush() }
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
      guard buffer.count - count < extra else { return }
      let larger = UnsafeMutableBufferPointer<UInt8>.allocate(
        capacity: max(buffer.count * 2, count + extra))
      _ = larger.initialize(fromContentsOf: buffer[..<count])
      buffer.deallocate()
      buffer = larger
    }

    /// One byte, where room was made for it.
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
      buffer[count] = byte
      count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
      reserve(bytes.count)
      guard let source = bytes.baseAddress, let end = buffer.baseAddress else { return }
      (end + count).update(from: source, count: bytes.count)
      count += bytes.count
    }

    mutating func appendText(_ text: String) {
      var text = text
      text.withUTF8 { append($0) }
    }

    mutating func append(_ text: StaticString) {
      text.withUTF8Buffer { append($0) }
    }

    /// One byte.
    mutating func append(_ byte: UInt8) {
      reserve(1)
      put(byte)
    }

    /// A number's decimal digits, written in place: from the last back into a buffer on the
    /// stack, then copied at once.
    mutating func append(_ number: Int) {
      reserve(20)
      if number < 0 { put(UInt8(ascii: "-")) }
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
        var start = 20
        var rest = number.magnitude
        repeat {
          start -= 1
          digits[start] = UInt8(truncatingIfNeeded: rest % 10) + 0x30
          rest /= 10
        } while rest > 0
        append(UnsafeBufferPointer(rebasing: digits[start...]))
      }
    }

    /// A price in cents as the importer reads it (``Price/plainText``).
    mutating func appendPrice(_ cents: Int) {
      reserve(Price.longestText)
      guard let base = buffer.baseAddress else { return }
      count += Price(cents: cents).writePlainText(to: base + count)
    }

    /// Text without control characters in JSON quotes: quotes and backslashes escaped.
    mutating func appendJSONString(_ text: UnsafeBufferPointer<UInt8>) {
      reserve(text.count * 2 + 2)
      put(0x22)
      for byte in text {
        if byte == 0x22 || byte == 0x5C { put(0x5C) }
        put(byte)
      }
      put(0x22)
    }

    /// A CSV field without line breaks: quoted when it holds a comma or a quote; for
    /// spreadsheets, a field that would read as a formula begins with `'`.
    mutating func appendCSVField(_ text: UnsafeBufferPointer<UInt8>) {
      let quoted =
        text.baseAddress.map {
          memchr($0, 0x2C, text.count) != nil || memchr($0, 0x22, text.count) != nil
        } ?? false
      reserve(text.count * 2 + 3)
      if quoted { put(0x22) }
      if forSpreadsheets, let first = text.first, CSVCell.startsFormula(first) {
        put(CSVCell.formulaMark)
      }
      if quoted {
        for byte in text {
          if byte == 0x22 { put(0x22) }
          put(byte)
        }
        put(0x22)
      } else {
        append(text)
      }
    }

    mutating func appendJSON(_ row: ProductBytes) {
      append("{\"identifier\": \"")
      append(row.identifier)
      append("\", \"name\": ")
      appendJSONString(row.name)
      append(", \"imageName\": ")
      appendJSONString(row.imageName)
      append(", \"year\": ")
      append(row.year)
      append(", \"price\": ")
      appendPrice(row.cents)
      append(", \"keywords\": [")
      if !row.keywords.isEmpty {
        for (index, keyword) in row.keywords.split(
          separator: 0x1F, omittingEmptySubsequences: false
        ).enumerated() {
          if index > 0 { append(", ") }
          appendJSONString(UnsafeBufferPointer(rebasing: keyword))
        }
      }
      append("]}")
    }

    /// The keywords cell (``CSVCell/keywords(_:)``): keywords that join plainly are written as
    /// they are stored and their separators then made `;` in place, which neither quoting nor a
    /// formula's mark depends on; others as the cell made of them.
    mutating func appendCSVKeywords(_ keywords: UnsafeBufferPointer<UInt8>) {
      guard !keywords.isEmpty, CSVCell.isPlainList(keywords) else {
        CSVCell.keywords(keywords).withUnsafeBufferPointer { appendCSVField($0) }
        return
      }
      let start = count
      appendCSVField(keywords)
      for index in start..<count where buffer[index] == 0x1F {
        buffer[index] = UInt8(ascii: ";")
      }
    }

    /// One product as a CSV row (RFC 4180) and its line break; its keywords separated by the
    /// unit separator (0x1F), as stored.
    mutating func appendCSV(
      identifier: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>,
      imageName: UnsafeBufferPointer<UInt8>, year: Int, cents: Int,
      keywords: UnsafeBufferPointer<UInt8>
    ) {
      append(identifier)
      append(UInt8(ascii: ","))
      appendCSVField(name)
      append(UInt8(ascii: ","))
      appendCSVField(imageName)
      append(UInt8(ascii: ","))
      append(year)
      append(UInt8(ascii: ","))
      appendPrice(cents)
      append(UInt8(ascii: ","))
      appendCSVKeywords(keywords)
      append("\r\n")
    }

    mutating func flush() throws {
      defer { count = 0 }
      guard let base = buffer.baseAddress else { return }
      var offset = 0
      while offset < count {
        let written = Glibc.write(descriptor, base + offset, count - offset)
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else {
          throw SystemError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        offset += written
      }
    }
  }

  /// Writes a catalog to a file atomically and durably: a temporary file beside it, `fsync`,
  /// rename, and `fsync` of the directory. An existing file is replaced only by a complete one;
  /// a writing stopped by an error leaves no file.
  ///
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - path: The file.
  ///   - format: JSON or CSV; by default what the file's name asks for (``Format/forFile(_:)``).
  ///   - byteOrderMark: Whether to begin with a UTF-8 byte order mark (for spreadsheets).
  ///   - progress: Called every 10,000 products with how many are written, and once more
  ///     before the file takes its place; what it throws stops the writing (Ctrl-C, say) and
  ///     leaves no file.
  /// - Returns: What was written.
  /// - Throws: ``SystemError/cannotWrite(path:reason:)``, or what `progress` throws.
  @discardableResult
  package static func write(
    _ catalog: Catalog, toFile path: String, format: Format? = nil, byteOrderMark: Bool = false,
    progress: (_ written: Int) throws -> Void = { _ in }
  ) throws -> Summary {
    let directory = (path as NSString).deletingLastPathComponent
    let folder = directory.isEmpty ? "." : directory
    let destination = folder + "/" + (path as NSString).lastPathComponent
    // What an earlier export killed before its rename left beside the file goes first: no
    // launch sweeps the user's own folders.
    DurableFile.removeAbandonedTemporaryFiles(of: destination)
    var summary: Summary?
    let prepared = try DurableFile.prepare(for: path, permissions: 0o644) { descriptor in
      summary = try write(
        catalog, to: descriptor, path: path, directory: ProductFile.absoluteDirectory(of: path),
        format: format ?? .forFile(path), byteOrderMark: byteOrderMark, progress: progress)
    }
    // Once more before the file takes its place: a stop asked for while the file was flushed
    // still leaves no file (dropping the prepared write removes it).
    if let summary { try progress(summary.count) }
    try prepared.commit()
    guard let summary else {
      throw SystemError.cannotWrite(path: path, reason: "nothing was written")
    }
    return summary
  }
}
