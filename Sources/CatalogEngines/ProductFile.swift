import CatalogModel
import Foundation
import StateRestoration
import SystemSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A file of products to import, read one record at a time so that a million products never
/// sit in memory together: a JSON array in the shape of the bundled `products.json` (or the
/// earlier `{"formatVersion": 1, "products": […]}` catalog file), or CSV with a header row.
///
/// Every record is held to the editor's rules (``Product/ruleViolation``); the first bad one
/// stops the reading with an ``BadRecord`` naming its record, line and field.
package struct ProductFile: ProductSequence, Sendable {
  /// The file's format.
  package enum Format: Sendable, Hashable {
    /// A JSON array of product objects.
    case json
    /// Comma-separated values with a header row naming the columns.
    case csv
  }

  /// The largest value of one field, in bytes.
  package static let fieldLimit = 65_536

  /// The format version of the earlier catalog file, `{"formatVersion": 1, "products": […]}`,
  /// the newest this program reads.
  package static let catalogFileFormatVersion = 1

  /// The products of a file in memory, every one held to the editor's rules: what a tool or a
  /// test reads the bundled `products.json` or a benchmark's catalog with.
  ///
  /// - Parameters:
  ///   - data: The file's contents.
  ///   - name: What to call it in messages.
  /// - Returns: The products, in the file's order.
  /// - Throws: ``CatalogError/badRecord(path:record:line:reason:)`` for the first bad record.
  package static func products(in data: Data, name: String) throws -> [Product] {
    var products: [Product] = []
    try ProductFile(data: data, name: name).forEachProduct { products.append($0) }
    return products
  }

  /// The file's path, or the name of the bytes read instead of a file.
  package let path: String
  /// The bytes to read instead of a file, when the products are in memory.
  package let data: Data?
  /// When set, a complete record that breaks a rule is passed here and skipped instead of
  /// stopping the reading: for migrating an earlier catalog, which held such products.
  package var skipping: (@Sendable (BadRecord) -> Void)?
  /// Called as the file is read, with the bytes read so far and the file's size.
  package var onRead: (@Sendable (_ bytesRead: Int, _ fileSize: Int) -> Void)?
  /// Called with the identifier made for each record that has none, which an import may match
  /// to a product of the same name instead.
  package var onMadeIdentifier: (@Sendable (UUID) -> Void)?

  /// Creates a reader for a file.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - skipping: Where records that break a rule go, when they are to be skipped.
  package init(path: String, skipping: (@Sendable (BadRecord) -> Void)? = nil) {
    self.path = path
    data = nil
    self.skipping = skipping
  }

  /// Creates a reader of products in memory, in either format.
  ///
  /// - Parameters:
  ///   - data: The bytes.
  ///   - name: What to call them in messages.
  package init(data: Data, name: String) {
    path = name
    self.data = data
  }

  /// Calls a body with each valid product in the file's order.
  ///
  /// - Throws: ``BadRecord``, or what the body throws.
  package func forEachProduct(_ body: (Product) throws -> Void) throws {
    // A picture given as a relative path is relative to the file: kept as given, with the
    // file's directory beside it, so that it names the same file wherever the app runs. Products
    // in memory have no directory.
    guard data == nil else { return try read(body) }
    let directory = Self.absoluteDirectory(of: path)
    try read { product in
      var product = product
      if Product.isImagePath(product.imageName) && !product.imageName.hasPrefix("/") {
        product.imageDirectory = directory
      }
      try body(product)
    }
  }

  /// The absolute directory of a file's path, without `.` or `..` in it.
  ///
  /// - Parameter path: The file's path, absolute or relative to the current directory.
  /// - Returns: The directory.
  package static func absoluteDirectory(of path: String) -> String {
    let absolute = Product.resolvingImagePath(
      path, against: FileManager.default.currentDirectoryPath, always: true)
    guard let slash = absolute.lastIndex(of: "/") else { return "/" }
    return slash == absolute.startIndex ? "/" : String(absolute[..<slash])
  }

  private func read(_ body: (Product) throws -> Void) throws {
    let reader = try data.map { ByteReader(bytes: Array($0), name: path) } ?? ByteReader(path: path)
    do {
      try read(reader, body)
    } catch CatalogError.badRecord(let record) {
      // What looks like the end of the file, or a record cut short, is a read that failed.
      if let failure = reader.failure { throw readFailure(failure, reader) }
      throw CatalogError.badRecord(record)
    }
    if let failure = reader.failure { throw readFailure(failure, reader) }
  }

  private func readFailure(_ reason: String, _ reader: ByteReader) -> CatalogError {
    CatalogError.badRecord(
      path: path, record: nil, line: reader.line, reason: "it cannot be read (\(reason))")
  }

  private func read(_ reader: ByteReader, _ body: (Product) throws -> Void) throws {
    reader.onRead = onRead
    reader.skipByteOrderMark()
    reader.skipWhitespace()
    switch reader.peek() {
    case UInt8(ascii: "["), UInt8(ascii: "{"):
      var json = JSONProductReader(reader)
      json.skipping = skipping
      json.onMadeIdentifier = onMadeIdentifier
      try json.forEachProduct(body)
    case nil:
      throw CatalogError.badRecord(path: path, record: nil, line: 1, reason: "the file is empty")
    default:
      let csv = CSVProductReader(reader, path: path, skipping: skipping)
      csv.onMadeIdentifier = onMadeIdentifier
      try csv.forEachProduct(body)
    }
  }
}

/// Bytes of a file read through a buffer, counting lines.
final class ByteReader {
  let path: String
  private let descriptor: Int32
  private static let bufferSize = 1 << 20
  private var buffer = [UInt8](repeating: 0, count: ByteReader.bufferSize)
  private var start = 0
  private var end = 0
  private(set) var line = 1
  private var bytesRead = 0
  private var fileSize = 0
  var onRead: (@Sendable (Int, Int) -> Void)?
  /// A field of the current record that was too long to keep: it was read past, not stored.
  var oversizedField: (name: String, bytes: Int)?
  /// Why the file could not be read further (an I/O error), once it could not.
  private(set) var failure: String?
  /// Whether the file began with a UTF-8 byte order mark: a file for spreadsheets, whose
  /// cells that would read as formulas are marked (``CSVCell``).
  private(set) var hadByteOrderMark = false
  /// What turns a UTF-16 file into UTF-8 as it is read; nil for a UTF-8 file.
  private var transcoder: UTF16Transcoder?

  init(bytes: [UInt8], name: String) {
    path = name
    descriptor = -1
    fileSize = bytes.count
    if let encoding = UTF16Transcoder.Endianness(byteOrderMark: bytes) {
      var transcoder = UTF16Transcoder(encoding)
      buffer = []
      transcoder.transcode(bytes.dropFirst(2), into: &buffer)
      if !transcoder.finish(into: &buffer) { failure = UTF16Transcoder.invalid }
    } else {
      buffer = bytes
    }
    end = buffer.count
  }

  init(path: String) throws {
    self.path = path
    descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw CatalogError.badRecord(
        path: path, record: nil, line: 0, reason: String(cString: strerror(errno)))
    }
    var status = stat()
    if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
      close(descriptor)
      throw CatalogError.badRecord(path: path, record: nil, line: 0, reason: "it is a directory")
    }
    fileSize = Int(status.st_size)
  }

  deinit { if descriptor >= 0 { close(descriptor) } }

  func peek() -> UInt8? {
    if start == end { fill() }
    return start < end ? buffer[start] : nil
  }

  func next() -> UInt8? {
    guard let byte = peek() else { return nil }
    start += 1
    if byte == 0x0A { line += 1 }
    return byte
  }

  /// Appends the bytes up to the next separator, quote or line break in the buffer (at most
  /// what is buffered now) and returns that byte, left unread; nil when the buffer ended first,
  /// or at the end of the file (then ``peek()`` is nil too).
  ///
  /// CSV's plain fields are copied a run at a time rather than a byte at a time.
  func appendPlainRun(to field: inout [UInt8], separator: UInt8) -> UInt8? {
    if start == end { fill() }
    return buffer.withUnsafeBufferPointer { bytes in
      var index = start
      while index < end {
        switch bytes[index] {
        case separator, UInt8(ascii: "\""), 0x0A, 0x0D:
          field.append(contentsOf: bytes[start..<index])
          start = index
          return bytes[index]
        default: index += 1
        }
      }
      field.append(contentsOf: bytes[start..<end])
      start = end
      return nil
    }
  }

  private func fill() {
    // Bytes in memory have nothing more to read.
    guard descriptor >= 0 else {
      start = end
      return
    }
    while true {
      // A transcoded buffer holds what the last read made of it, of any length.
      if transcoder != nil, buffer.count != Self.bufferSize {
        buffer = [UInt8](repeating: 0, count: Self.bufferSize)
      }
      start = 0
      end = 0
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      // The reading ends here; the readers name this, not the end it looks like.
      if count < 0 { failure = String(cString: strerror(errno)) }
      end = max(0, count)
      bytesRead += end
      onRead?(bytesRead, fileSize)
      // A file that begins with a UTF-16 byte order mark (Excel's "Unicode Text", PowerShell's
      // default) is read as the UTF-8 it stands for, a buffer at a time.
      if bytesRead == end, transcoder == nil,
        let encoding = UTF16Transcoder.Endianness(byteOrderMark: buffer[..<end])
      {
        transcoder = UTF16Transcoder(encoding)
        start = 2
      }
      guard transcoder != nil else { return }
      var utf8: [UInt8] = []
      utf8.reserveCapacity((end - start) * 3 / 2 + 4)
      transcoder?.transcode(buffer[start..<end], into: &utf8)
      if end == 0, transcoder?.finish(into: &utf8) == false { failure = UTF16Transcoder.invalid }
      if transcoder?.isInvalid == true { failure = UTF16Transcoder.invalid }
      // An odd byte alone is kept for the next read: read on.
      if utf8.isEmpty, end > 0, failure == nil { continue }
      buffer = utf8
      start = 0
      end = utf8.count
      return
    }
  }

  /// The separator of the delimited text about to be read: a tab when its first line (as far
  /// as it is buffered) has more tabs than commas, as a spreadsheet's "Unicode Text" or TSV
  /// has; a comma otherwise.
  func separatorOfFirstLine() -> UInt8 {
    if start == end { fill() }
    var tabs = 0
    var commas = 0
    for byte in buffer[start..<end] {
      if byte == 0x0A || byte == 0x0D { break }
      if byte == 0x09 { tabs += 1 }
      if byte == UInt8(ascii: ",") { commas += 1 }
    }
    return tabs > commas ? 0x09 : UInt8(ascii: ",")
  }

  func skipWhitespace() {
    while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
      _ = next()
    }
  }

  /// Skips a UTF-8 byte order mark (EF BB BF) at the start; another character beginning with
  /// EF (U+F000–U+FFFF) stays.
  func skipByteOrderMark() {
    guard peek() == 0xEF, end - start >= 3, buffer[start + 1] == 0xBB, buffer[start + 2] == 0xBF
    else { return }
    start += 3
    hadByteOrderMark = true
  }
}

/// The fields of one record, before they become a product.
private struct RecordFields {
  var identifier: String?
  var name: String?
  var imageName: String?
  var year: String?
  var price: String?
  var keywords: [String] = []
  /// What makes the record unusable although it was read whole (a field too long to keep).
  var problem: String?

  /// The record's product; a rule it breaks is thrown, or passed to `skipping` (and nil
  /// returned) when that is set.
  func product(
    record: Int, line: Int, path: String, skipping: (@Sendable (BadRecord) -> Void)?
  ) throws -> Product? {
    do {
      return try product(record: record, line: line, path: path)
    } catch CatalogError.badRecord(let error) where skipping != nil {
      skipping?(error)
      return nil
    }
  }

  private func product(record: Int, line: Int, path: String) throws -> Product {
    func fail(_ reason: String) -> CatalogError {
      CatalogError.badRecord(path: path, record: record, line: line, reason: reason)
    }
    if let problem { throw fail(problem) }
    func required(_ value: String?, _ field: String) throws -> String {
      guard let value else { throw fail("the field '\(field)' is missing") }
      return value
    }
    let uuid: UUID
    if let text = identifier, !text.isEmpty {
      guard let parsed = UUID(canonical: text) ?? UUID(uuidString: text) else {
        throw fail("identifier: '\(text.abbreviated)' is not a UUID")
      }
      uuid = parsed
    } else {
      uuid = UUID()
    }
    let yearText = try required(year, "year")
    guard let yearValue = Int(yearText), ProductEdit.years.contains(yearValue) else {
      throw fail("year: '\(yearText.abbreviated)' is not a year from 1900 to 2100")
    }
    let priceText = try required(price, "price")
    let priceValue: Price
    do {
      priceValue = try Price(parsingNumber: priceText)
    } catch let error as CatalogError {
      throw fail("price: " + (error.errorDescription ?? "is not valid"))
    }
    // The name trimmed as the editor trims it.
    let product = Product(
      identifier: uuid,
      name: try required(name, "name").trimmingSpacesAndNewlines,
      // A product without a picture: a sheet of names and prices.
      imageName: imageName ?? "", year: yearValue, price: priceValue,
      keywords: keywords)
    if let violation = product.ruleViolation { throw fail(violation) }
    return product
  }
}

/// Reads a JSON array of products, one object at a time.
private struct JSONProductReader {
  let reader: ByteReader
  var record = 0
  var skipping: (@Sendable (BadRecord) -> Void)?
  var onMadeIdentifier: (@Sendable (UUID) -> Void)?

  init(_ reader: ByteReader) {
    self.reader = reader
  }

  private func fail(_ reason: String) -> CatalogError {
    CatalogError.badRecord(
      path: reader.path, record: record == 0 ? nil : record, line: reader.line, reason: reason)
  }

  mutating func forEachProduct(_ body: (Product) throws -> Void) throws {
    reader.skipWhitespace()
    if reader.peek() == UInt8(ascii: "{") {
      // The earlier catalog file: {"formatVersion": 1, "products": [...]}.
      try findProductsArray()
    }
    try expect("[")
    reader.skipWhitespace()
    if reader.peek() == UInt8(ascii: "]") {
      _ = reader.next()
      return try expectEnd()
    }
    while true {
      record += 1
      reader.skipWhitespace()
      let line = reader.line
      var fields = try readObject()
      if let (name, bytes) = reader.oversizedField {
        fields.problem = "the \(name) has \(bytes) bytes; the limit is \(ProductFile.fieldLimit)"
      }
      if let product = try fields.product(
        record: record, line: line, path: reader.path, skipping: skipping)
      {
        if fields.identifier?.isEmpty ?? true { onMadeIdentifier?(product.identifier) }
        try body(product)
      }
      reader.skipWhitespace()
      switch reader.next() {
      case UInt8(ascii: ","): continue
      case UInt8(ascii: "]"): return try expectEnd()
      default: throw fail("expected ',' or ']' after the product")
      }
    }
  }

  private func expectEnd() throws {
    reader.skipWhitespace()
    if reader.peek() == UInt8(ascii: "}") {
      _ = reader.next()
      reader.skipWhitespace()
    }
    guard reader.peek() == nil else { throw fail("unexpected text after the list of products") }
  }

  private func expect(_ character: Unicode.Scalar) throws {
    reader.skipWhitespace()
    guard reader.next() == UInt8(ascii: character) else {
      throw fail("expected '\(character)'")
    }
  }

  private mutating func findProductsArray() throws {
    try expect("{")
    while true {
      reader.skipWhitespace()
      let key = try readString(field: "key")
      try expect(":")
      if key == "formatVersion" {
        reader.skipWhitespace()
        let version = try readScalar()
        guard let number = Int(version), number <= ProductFile.catalogFileFormatVersion else {
          throw fail(
            "its format version \(version.abbreviated) is newer than this program's \(ProductFile.catalogFileFormatVersion)"
          )
        }
      } else if key == "products" {
        return
      } else {
        try skipValue()
      }
      reader.skipWhitespace()
      guard reader.next() == UInt8(ascii: ",") else { throw fail("no list of products") }
    }
  }

  private mutating func readObject() throws -> RecordFields {
    guard reader.next() == UInt8(ascii: "{") else { throw fail("a product is not an object") }
    var fields = RecordFields()
    reader.oversizedField = nil
    reader.skipWhitespace()
    if reader.peek() == UInt8(ascii: "}") {
      _ = reader.next()
      return fields
    }
    while true {
      reader.skipWhitespace()
      let key = try readString(field: "key")
      try expect(":")
      reader.skipWhitespace()
      // `null` for an optional field is the field left out, as JSON writers put it.
      if key == "identifier" || key == "keywords", readsNull() {
        // Absent: nothing to keep.
      } else {
        switch key {
        case "identifier": fields.identifier = try readString(field: key)
        case "name": fields.name = try readString(field: key)
        case "imageName": fields.imageName = try readString(field: key)
        case "year": fields.year = try readScalar(field: key)
        case "price": fields.price = try readScalar(field: key)
        case "keywords": fields.keywords = try readStrings(field: key)
        default: try skipValue()
        }
      }
      reader.skipWhitespace()
      switch reader.next() {
      case UInt8(ascii: ","): continue
      case UInt8(ascii: "}"): return fields
      default: throw fail("expected ',' or '}' in the product")
      }
    }
  }

  /// Reads `null` when it comes next; false, reading nothing, otherwise.
  private func readsNull() -> Bool {
    guard reader.peek() == UInt8(ascii: "n") else { return false }
    for expected in Array("null".utf8) {
      guard reader.next() == expected else { return false }
    }
    return true
  }

  private func readStrings(field: String) throws -> [String] {
    guard reader.next() == UInt8(ascii: "[") else { throw fail("\(field): not a list of strings") }
    var strings: [String] = []
    reader.skipWhitespace()
    if reader.peek() == UInt8(ascii: "]") {
      _ = reader.next()
      return strings
    }
    while true {
      reader.skipWhitespace()
      strings.append(try readString(field: field))
      guard strings.count <= Product.maximumKeywordCount else {
        throw fail("\(field): more than \(Product.maximumKeywordCount)")
      }
      reader.skipWhitespace()
      switch reader.next() {
      case UInt8(ascii: ","): continue
      case UInt8(ascii: "]"): return strings
      default: throw fail("\(field): expected ',' or ']'")
      }
    }
  }

  /// A number (or `true`, `false`, `null`) as its text.
  private func readScalar(field: String = "value") throws -> String {
    var bytes: [UInt8] = []
    while let byte = reader.peek(),
      byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
        || byte == UInt8(ascii: ".") || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "e")
        || byte == UInt8(ascii: "E") || (0x61...0x7A).contains(byte)
    {
      bytes.append(byte)
      _ = reader.next()
      guard bytes.count <= 64 else { throw fail("\(field): the number is too long") }
    }
    guard !bytes.isEmpty else { throw fail("\(field): not a number") }
    return String(decoding: bytes, as: UTF8.self)
  }

  private func readString(field: String) throws -> String {
    guard reader.next() == UInt8(ascii: "\"") else { throw fail("\(field): not a string") }
    var bytes: [UInt8] = []
    var length = 0
    while true {
      guard let byte = reader.next() else { throw fail("\(field): the string does not end") }
      switch byte {
      case UInt8(ascii: "\""):
        if length > ProductFile.fieldLimit {
          // Read past, not kept: the record is reported as breaking a rule.
          reader.oversizedField = (field, length)
          return ""
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
          throw fail("\(field): not valid UTF-8")
        }
        return string
      case UInt8(ascii: "\\"):
        try readEscape(into: &bytes, field: field)
      case 0..<0x20:
        throw fail("\(field): a control character in a string")
      default:
        length += 1
        if length <= ProductFile.fieldLimit { bytes.append(byte) }
      }
      if length > ProductFile.fieldLimit, !bytes.isEmpty { bytes = [] }
    }
  }

  private func readEscape(into bytes: inout [UInt8], field: String) throws {
    let letter = reader.next()
    if let letter, let escaped = JSONValue.byte(escapedAs: letter) {
      bytes.append(escaped)
      return
    }
    switch letter {
    case UInt8(ascii: "u"):
      var value = try readHex(field: field)
      if (0xD800...0xDBFF).contains(value) {
        guard reader.next() == UInt8(ascii: "\\"), reader.next() == UInt8(ascii: "u") else {
          throw fail("\(field): an unpaired surrogate in a string")
        }
        let low = try readHex(field: field)
        guard (0xDC00...0xDFFF).contains(low) else {
          throw fail("\(field): an unpaired surrogate in a string")
        }
        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
      }
      guard let scalar = Unicode.Scalar(value) else {
        throw fail("\(field): an unpaired surrogate in a string")
      }
      bytes.append(contentsOf: String(Character(scalar)).utf8)
    default:
      throw fail("\(field): a bad escape in a string")
    }
  }

  private func readHex(field: String) throws -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = reader.next(), let digit = Character(Unicode.Scalar(byte)).hexDigitValue
      else { throw fail("\(field): a bad \\u escape") }
      value = value << 4 | UInt32(digit)
    }
    return value
  }

  private func skipValue() throws {
    var depth = 0
    repeat {
      reader.skipWhitespace()
      switch reader.peek() {
      case UInt8(ascii: "\""): _ = try readString(field: "value")
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        _ = reader.next()
        depth += 1
        guard depth <= 64 else { throw fail("values nested too deeply") }
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        _ = reader.next()
        depth -= 1
      case UInt8(ascii: ","), UInt8(ascii: ":"):
        guard depth > 0 else { return }
        _ = reader.next()
      case nil: throw fail("the file ends inside a value")
      default: _ = try readScalar()
      }
    } while depth > 0
  }
}

/// Reads CSV (RFC 4180) or tab-separated text with a header row: `name`, `year` and `price`
/// are required; `identifier`, `imageName` (or `image`, `picture`) and `keywords` (separated by
/// `;`) are optional; other columns are ignored. A column's name is read whatever its case and
/// its spaces, underscores or hyphens (`Image Name`, `image_name`).
private final class CSVProductReader {
  let reader: ByteReader
  let path: String
  let skipping: (@Sendable (BadRecord) -> Void)?
  var onMadeIdentifier: (@Sendable (UUID) -> Void)?
  /// The header row, once read: a field too long is named by its column.
  private var header: [String] = []
  /// A comma, or a tab for tab-separated text.
  private var separator = UInt8(ascii: ",")

  init(_ reader: ByteReader, path: String, skipping: (@Sendable (BadRecord) -> Void)?) {
    self.reader = reader
    self.path = path
    self.skipping = skipping
  }

  func forEachProduct(_ body: (Product) throws -> Void) throws {
    separator = reader.separatorOfFirstLine()
    guard let header = try readRow() else { return }
    var columns: [String: Int] = [:]
    for (index, name) in header.enumerated() {
      let key = Self.columnKey(name)
      // Two columns that read as one field: which to take would be a guess.
      if let earlier = columns[key] {
        throw CatalogError.badRecord(
          path: path, record: nil, line: 1,
          reason:
            "the header row has two columns for '\(key)': '\(header[earlier].abbreviated)' (column \(earlier + 1)) and '\(name.abbreviated)' (column \(index + 1))"
        )
      }
      columns[key] = index
    }
    for required in ["name", "year", "price"] where columns[required] == nil {
      // A spreadsheet saved with another separator reads as one column.
      let semicolons = header.count == 1 && header[0].contains(";")
      throw CatalogError.badRecord(
        path: path, record: nil, line: 1,
        reason: semicolons
          ? "the header row is one column holding ';': the file seems separated by semicolons; save it as CSV with commas, or as tab-separated text"
          : "the header row has no column '\(required)'"
      )
    }
    self.header = header
    let identifierColumn = columns["identifier"]
    let nameColumn = columns["name"]
    let imageNameColumn = columns["imagename"]
    let yearColumn = columns["year"]
    let priceColumn = columns["price"]
    let keywordsColumn = columns["keywords"]
    var record = 0
    while true {
      let line = reader.line
      guard let row = try readRow(record: record + 1) else { return }
      // Blank rows — a blank line, or the empty cells a spreadsheet leaves at the end of a
      // sheet — are skipped.
      if row.allSatisfy({ $0.isEmpty || $0.trimmingSpaces.isEmpty }) { continue }
      record += 1
      guard row.count == header.count else {
        throw CatalogError.badRecord(
          path: path, record: record, line: line,
          reason: "it has \(row.count) fields; the header has \(header.count)")
      }
      func field(_ column: Int?) -> String? { column.map { row[$0] } }
      // A file for spreadsheets marks the cells that would read as formulas.
      func text(_ column: Int?) -> String? {
        reader.hadByteOrderMark ? field(column).map(CSVCell.unmarked) : field(column)
      }
      let keywords = text(keywordsColumn).map(CSVCell.keywords(ofCell:))
      let fields = RecordFields(
        identifier: field(identifierColumn), name: text(nameColumn),
        imageName: text(imageNameColumn), year: field(yearColumn)?.trimmingSpaces,
        price: field(priceColumn)?.trimmingSpaces,
        keywords: keywords ?? [])
      if let product = try fields.product(
        record: record, line: line, path: path, skipping: skipping)
      {
        if fields.identifier?.isEmpty ?? true { onMadeIdentifier?(product.identifier) }
        try body(product)
      }
    }
  }

  /// The field a header's column names: its name without case, spaces, underscores or hyphens,
  /// and a picture's usual names (`image`, `picture`) as `imagename`.
  static func columnKey(_ name: String) -> String {
    let key = String(
      name.lowercased().unicodeScalars.filter { !" _-\t".unicodeScalars.contains($0) })
    switch key {
    case "image", "picture", "imagefile", "picturename": return "imagename"
    default: return key
    }
  }

  /// One row's fields; nil at the end of the file.
  private func readRow(record: Int? = nil) throws -> [String]? {
    guard reader.peek() != nil else { return nil }
    var fields: [String] = []
    fields.reserveCapacity(header.count)
    var field: [UInt8] = []
    var quoted = false
    func finish() throws {
      try checkLength(field, fields.count, record)
      guard let text = String(validatingField: field) else {
        throw CatalogError.badRecord(
          path: path, record: record, line: reader.line, reason: "not valid UTF-8")
      }
      fields.append(text)
      field.removeAll(keepingCapacity: true)
    }
    while true {
      if !quoted, reader.appendPlainRun(to: &field, separator: separator) == nil,
        reader.peek() != nil
      {
        // The buffer ended inside the field: it goes on in the next one.
        try checkLength(field, fields.count, record)
        continue
      }
      guard let byte = reader.next() else {
        if quoted {
          throw CatalogError.badRecord(
            path: path, record: record, line: reader.line, reason: "a quoted field does not end")
        }
        try finish()
        return fields
      }
      if quoted {
        if byte == UInt8(ascii: "\"") {
          if reader.peek() == UInt8(ascii: "\"") {
            _ = reader.next()
            field.append(byte)
          } else {
            quoted = false
          }
        } else {
          field.append(byte)
        }
      } else {
        switch byte {
        case UInt8(ascii: "\"") where field.isEmpty: quoted = true
        case separator: try finish()
        case 0x0D where reader.peek() == 0x0A: continue
        // LF, CRLF, and CR alone (old Mac and Excel files) each end a row.
        case 0x0A, 0x0D:
          try finish()
          return fields
        default: field.append(byte)
        }
      }
      try checkLength(field, fields.count, record)
    }
  }

  private func checkLength(_ field: [UInt8], _ index: Int, _ record: Int?) throws {
    guard field.count > ProductFile.fieldLimit else { return }
    let column =
      header.indices.contains(index)
      ? "the field '\(header[index].abbreviated)' (column \(index + 1))"
      : "field \(index + 1)\(record == nil ? " of the header row" : "")"
    throw CatalogError.badRecord(
      path: path, record: record, line: reader.line,
      reason: "\(column) is longer than \(ProductFile.fieldLimit) bytes")
  }
}

extension String {
  /// The bytes of a field as text; nil when they are not UTF-8. Plain ASCII, the common case,
  /// is settled without the standard library's general validation.
  init?(validatingField bytes: [UInt8]) {
    if bytes.allSatisfy({ $0 < 0x80 }) {
      self.init(decoding: bytes, as: UTF8.self)
    } else {
      self.init(validating: bytes, as: UTF8.self)
    }
  }
}

/// UTF-16 bytes to UTF-8, a chunk at a time: a code unit or a surrogate pair split between two
/// chunks is carried over to the next.
struct UTF16Transcoder {
  /// The byte order a byte order mark names.
  enum Endianness {
    case little, big

    /// The byte order of bytes that begin with a UTF-16 byte order mark (FF FE or FE FF).
    init?<Bytes: Collection<UInt8>>(byteOrderMark bytes: Bytes) {
      var iterator = bytes.makeIterator()
      switch (iterator.next(), iterator.next()) {
      case (0xFF?, 0xFE?): self = .little
      case (0xFE?, 0xFF?): self = .big
      default: return nil
      }
    }
  }

  static let invalid = "it is not valid UTF-16"

  private let endianness: Endianness
  private var oddByte: UInt8?
  private var highSurrogate: UInt16?
  /// Whether an unpaired surrogate was found.
  private(set) var isInvalid = false

  init(_ endianness: Endianness) {
    self.endianness = endianness
  }

  mutating func transcode<Bytes: Sequence<UInt8>>(_ bytes: Bytes, into output: inout [UInt8]) {
    for byte in bytes {
      guard let first = oddByte else {
        oddByte = byte
        continue
      }
      oddByte = nil
      let unit =
        endianness == .little
        ? UInt16(first) | UInt16(byte) << 8 : UInt16(first) << 8 | UInt16(byte)
      append(unit, to: &output)
    }
  }

  /// Ends the input.
  ///
  /// - Returns: Whether it ended on a whole character.
  mutating func finish(into output: inout [UInt8]) -> Bool {
    if oddByte != nil || highSurrogate != nil { isInvalid = true }
    return !isInvalid
  }

  private mutating func append(_ unit: UInt16, to output: inout [UInt8]) {
    let scalar: UInt32
    switch unit {
    case 0xD800...0xDBFF:
      if highSurrogate != nil { isInvalid = true }
      highSurrogate = unit
      return
    case 0xDC00...0xDFFF:
      guard let high = highSurrogate else {
        isInvalid = true
        return
      }
      highSurrogate = nil
      scalar = 0x10000 + (UInt32(high - 0xD800) << 10 | UInt32(unit - 0xDC00))
    default:
      if highSurrogate != nil { isInvalid = true }
      highSurrogate = nil
      scalar = UInt32(unit)
    }
    switch scalar {
    case ..<0x80:
      output.append(UInt8(scalar))
    case ..<0x800:
      output.append(0xC0 | UInt8(scalar >> 6))
      output.append(0x80 | UInt8(scalar & 0x3F))
    case ..<0x10000:
      output.append(0xE0 | UInt8(scalar >> 12))
      output.append(0x80 | UInt8(scalar >> 6 & 0x3F))
      output.append(0x80 | UInt8(scalar & 0x3F))
    default:
      output.append(0xF0 | UInt8(scalar >> 18))
      output.append(0x80 | UInt8(scalar >> 12 & 0x3F))
      output.append(0x80 | UInt8(scalar >> 6 & 0x3F))
      output.append(0x80 | UInt8(scalar & 0x3F))
    }
  }
}
