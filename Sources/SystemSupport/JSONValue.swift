/// A JSON document as a tree of values, read and written without `Codable`.
///
/// State files are read at every launch and written at every saved change. `JSONDecoder` and
/// `JSONEncoder` instantiate generic metadata for each `Codable` type they meet the first time a
/// process does, a cost a command-line program pays on every run; a file read into this tree
/// and taken apart by hand (``JSONRepresentable``) does not pay it. The
/// same tree is what a program builds to print JSON in an order of its choosing.
///
/// Numbers keep their text, so that a 64-bit integer is read exactly; objects keep their
/// members in order (where a name repeats, the last counts, as with `JSONDecoder`).
package enum JSONValue: Sendable, Hashable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number, as the text of a valid JSON number.
  case number(String)
  /// A string.
  case string(String)
  /// An array.
  indirect case array([JSONValue])
  /// An object: its members in order.
  indirect case object([(String, JSONValue)])

  /// The deepest nesting of arrays and objects a document may have, as with `JSONDecoder`.
  package static let maximumDepth = 512

  /// An integer as a JSON number.
  ///
  /// - Parameter value: The integer.
  /// - Returns: The number.
  package static func int(_ value: Int) -> JSONValue { .number(String(value)) }

  /// A floating-point number as a JSON number, written as `JSONEncoder` writes it: the
  /// shortest text that reads back as the same value, without a trailing `.0`. NaN and the
  /// infinities, which JSON numbers cannot hold, are the strings `"nan"`, `"inf"` and `"-inf"`,
  /// which ``doubleValue()`` reads back.
  ///
  /// - Parameter value: The number.
  /// - Returns: The number, or its string.
  package static func double(_ value: Double) -> JSONValue {
    if value.isNaN { return .string("nan") }
    if value.isInfinite { return .string(value > 0 ? "inf" : "-inf") }
    let text = value.description
    return .number(text.hasSuffix(".0") ? String(text.dropLast(2)) : text)
  }

  /// An object with members from a dictionary, in the order of their names.
  ///
  /// - Parameter members: The members.
  /// - Returns: The object.
  package static func object(sorting members: [String: JSONValue]) -> JSONValue {
    .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
  }

  /// The member of this object with a name, the last one if the name repeats.
  ///
  /// - Parameter name: The member's name.
  /// - Returns: Its value, or nil when this is not an object or has no such member.
  package subscript(name: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.last { $0.0 == name }?.1
  }

  /// Whether two values are the same JSON: the same members in the same order, the same
  /// elements, numbers written the same way.
  package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.number(let a), .number(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }

  /// Hashes the value's structure.
  ///
  /// - Parameter hasher: The hasher.
  package func hash(into hasher: inout Hasher) {
    switch self {
    case .null: hasher.combine(0)
    case .bool(let value): hasher.combine(value)
    case .number(let text): hasher.combine(text)
    case .string(let text): hasher.combine(text)
    case .array(let elements): hasher.combine(elements)
    case .object(let members):
      hasher.combine(members.count)
      for (name, value) in members {
        hasher.combine(name)
        hasher.combine(value)
      }
    }
  }
}

// MARK: - Parsing

/// Why a document is not valid JSON, and where.
package struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What was wrong.
  package var problem: String
  /// The line of the document, from 1.
  package var line: Int
  /// The column in that line, in bytes, from 1.
  package var column: Int

  /// A one-line account, such as `not valid JSON at line 3, column 7: expected ',' or '}'`.
  package var description: String { "not valid JSON at line \(line), column \(column): \(problem)" }
}

extension JSONValue {
  /// Parses a JSON document (RFC 8259, UTF-8).
  ///
  /// - Parameter bytes: The document.
  /// - Throws: ``JSONSyntaxError`` when it is not one valid JSON value, possibly surrounded by
  ///   white space.
  package init<Bytes: Collection<UInt8>>(parsing bytes: Bytes) throws(JSONSyntaxError) {
    // Not a `Result`: its type would be made at run time, after a search of every protocol
    // conformance in the program for `JSONSyntaxError: Error`, in each process that reads a
    // file.
    var parsed: JSONValue?
    var failure: JSONSyntaxError?
    let isContiguous =
      bytes.withContiguousStorageIfAvailable { (buffer: UnsafeBufferPointer<UInt8>) -> Void in
        var parser = JSONParser(buffer)
        do throws(JSONSyntaxError) {
          parsed = try parser.document()
        } catch {
          failure = error
        }
      } != nil
    if let failure { throw failure }
    if isContiguous, let parsed {
      self = parsed
    } else {
      self = try JSONValue(parsing: Array(bytes))
    }
  }
}

extension JSONValue {
  /// The byte a one-letter escape in a JSON string stands for: `n` for a line feed, `"` for a
  /// quote…; nil for `u`, which four hexadecimal digits follow, and for a letter that is not
  /// an escape.
  ///
  /// - Parameter letter: The byte after the backslash.
  /// - Returns: The byte it stands for.
  package static func byte(escapedAs letter: UInt8) -> UInt8? {
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
    case UInt8(ascii: "b"): 0x08
    case UInt8(ascii: "f"): 0x0C
    case UInt8(ascii: "n"): 0x0A
    case UInt8(ascii: "r"): 0x0D
    case UInt8(ascii: "t"): 0x09
    default: nil
    }
  }
}

/// A recursive-descent parser over a buffer of UTF-8.
private struct JSONParser {
  private let bytes: UnsafeBufferPointer<UInt8>
  private var index = 0
  private var depth = 0

  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  mutating func document() throws(JSONSyntaxError) -> JSONValue {
    skipWhiteSpace()
    let value = try value()
    skipWhiteSpace()
    guard index == bytes.count else { throw failure("unexpected text after the value") }
    return value
  }

  private mutating func value() throws(JSONSyntaxError) -> JSONValue {
    guard index < bytes.count else { throw failure("unexpected end of the document") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try object()
    case UInt8(ascii: "["): return try array()
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    default: throw failure("expected a value")
    }
  }

  private mutating func object() throws(JSONSyntaxError) -> JSONValue {
    try enter()
    index += 1  // {
    var members: [(String, JSONValue)] = []
    skipWhiteSpace()
    if consume(UInt8(ascii: "}")) {
      depth -= 1
      return .object(members)
    }
    while true {
      skipWhiteSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw failure("expected a member's name in quotes")
      }
      let key = try string()
      skipWhiteSpace()
      guard consume(UInt8(ascii: ":")) else { throw failure("expected ':' after a member's name") }
      skipWhiteSpace()
      members.append((key, try value()))
      skipWhiteSpace()
      if consume(UInt8(ascii: ",")) { continue }
      guard consume(UInt8(ascii: "}")) else { throw failure("expected ',' or '}'") }
      depth -= 1
      return .object(members)
    }
  }

  private mutating func array() throws(JSONSyntaxError) -> JSONValue {
    try enter()
    index += 1  // [
    var elements: [JSONValue] = []
    skipWhiteSpace()
    if consume(UInt8(ascii: "]")) {
      depth -= 1
      return .array(elements)
    }
    while true {
      skipWhiteSpace()
      elements.append(try value())
      skipWhiteSpace()
      if consume(UInt8(ascii: ",")) { continue }
      guard consume(UInt8(ascii: "]")) else { throw failure("expected ',' or ']'") }
      depth -= 1
      return .array(elements)
    }
  }

  private mutating func enter() throws(JSONSyntaxError) {
    depth += 1
    guard depth <= JSONValue.maximumDepth else {
      throw failure("nested more than \(JSONValue.maximumDepth) levels deep")
    }
  }

  private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONSyntaxError)
    -> JSONValue
  {
    let count = word.utf8CodeUnitCount
    guard bytes.count - index >= count,
      UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(
        bytes[index..<index + count])
    else { throw failure("expected a value") }
    index += count
    return value
  }

  private mutating func number() throws(JSONSyntaxError) -> JSONValue {
    let start = index
    _ = consume(UInt8(ascii: "-"))
    if consume(UInt8(ascii: "0")) {
      // A leading zero stands alone.
    } else if digits() == 0 {
      throw failure("expected a digit")
    }
    if consume(UInt8(ascii: ".")), digits() == 0 { throw failure("expected a digit after '.'") }
    if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
      if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
      if digits() == 0 { throw failure("expected a digit in the exponent") }
    }
    return .number(String(decoding: bytes[start..<index], as: UTF8.self))
  }

  private mutating func digits() -> Int {
    let start = index
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      index += 1
    }
    return index - start
  }

  /// A string, the opening quote at `index`.
  private mutating func string() throws(JSONSyntaxError) -> String {
    index += 1  // "
    let start = index
    // Every byte of the string or'ed together: below 0x80, it is ASCII, which is UTF-8 as it
    // is (most keys and values), and is made a string without the generic UTF-8 check.
    var bits: UInt8 = 0
    // Most strings have no escapes: they are their bytes, once checked to be UTF-8.
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
        guard
          let text = bits < 0x80
            ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self)
        else {
          throw failure("a string is not valid UTF-8")
        }
        index += 1
        return text
      }
      if byte == UInt8(ascii: "\\") { break }
      guard byte >= 0x20 else { throw failure("a control character in a string") }
      bits |= byte
      index += 1
    }
    var text = Array(bytes[start..<index])
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        guard
          let string = text.allSatisfy({ $0 < 0x80 })
            ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
        else {
          throw failure("a string is not valid UTF-8")
        }
        return string
      case UInt8(ascii: "\\"):
        index += 1
        try escape(into: &text)
      case ..<0x20:
        throw failure("a control character in a string")
      default:
        text.append(byte)
        index += 1
      }
    }
    throw failure("a string is not closed")
  }

  /// An escape, the backslash before `index`.
  private mutating func escape(into text: inout [UInt8]) throws(JSONSyntaxError) {
    guard index < bytes.count else { throw failure("a string is not closed") }
    let byte = bytes[index]
    index += 1
    if let escaped = JSONValue.byte(escapedAs: byte) {
      text.append(escaped)
      return
    }
    switch byte {
    case UInt8(ascii: "u"):
      var scalar = try hexQuad()
      if (0xD800..<0xDC00).contains(scalar) {
        guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")) else {
          throw failure("a high surrogate without its low one")
        }
        let low = try hexQuad()
        guard (0xDC00..<0xE000).contains(low) else {
          throw failure("a high surrogate without its low one")
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00..<0xE000).contains(scalar) {
        throw failure("a low surrogate without its high one")
      }
      guard let unicode = Unicode.Scalar(scalar) else { throw failure("not a Unicode scalar") }
      text.append(contentsOf: String(unicode).utf8)
    default:
      throw failure("an unknown escape")
    }
  }

  private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
    guard bytes.count - index >= 4 else { throw failure("expected four hexadecimal digits") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw failure("expected four hexadecimal digits")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  private mutating func consume(_ byte: UInt8) -> Bool {
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  private mutating func skipWhiteSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
      default: return
      }
    }
  }

  private func failure(_ problem: String) -> JSONSyntaxError {
    let before = bytes[..<min(index, bytes.count)]
    let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
    let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    return JSONSyntaxError(problem: problem, line: line, column: index - lineStart + 1)
  }
}

// MARK: - Writing

extension JSONValue {
  /// The document as UTF-8.
  ///
  /// Strings are written as they are, but for quotes, backslashes and every character a terminal
  /// could act on (controls, line and paragraph separators, bidirectional overrides), which are
  /// escaped, so that the text stays inert when printed.
  ///
  /// - Parameters:
  ///   - pretty: Whether to write one member or element per line, indented by two spaces;
  ///     otherwise no white space at all.
  ///   - sortingKeys: Whether to write each object's members in the order of their names, as
  ///     `JSONEncoder` does with `.sortedKeys`, rather than in their own order.
  /// - Returns: The document, without a final newline.
  package func serialized(pretty: Bool = false, sortingKeys: Bool = false) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(256)
    write(to: &output, pretty: pretty, sortingKeys: sortingKeys, indent: 0)
    return output
  }

  /// The document as text, one member or element per line (``serialized(pretty:sortingKeys:)``).
  package var rendered: String { String(decoding: serialized(pretty: true), as: UTF8.self) }

  private func write(to output: inout [UInt8], pretty: Bool, sortingKeys: Bool, indent: Int) {
    switch self {
    case .null: output.append(contentsOf: "null".utf8)
    case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
    case .number(let text): output.append(contentsOf: text.utf8)
    case .string(let text): Self.writeString(text, to: &output)
    case .array(let elements):
      guard !elements.isEmpty else { return output.append(contentsOf: "[]".utf8) }
      output.append(UInt8(ascii: "["))
      for (offset, element) in elements.enumerated() {
        if offset > 0 { output.append(UInt8(ascii: ",")) }
        Self.newline(to: &output, pretty: pretty, indent: indent + 1)
        element.write(to: &output, pretty: pretty, sortingKeys: sortingKeys, indent: indent + 1)
      }
      Self.newline(to: &output, pretty: pretty, indent: indent)
      output.append(UInt8(ascii: "]"))
    case .object(let members):
      guard !members.isEmpty else { return output.append(contentsOf: "{}".utf8) }
      output.append(UInt8(ascii: "{"))
      let ordered = sortingKeys ? members.sorted { $0.0 < $1.0 } : members
      for (offset, (name, value)) in ordered.enumerated() {
        if offset > 0 { output.append(UInt8(ascii: ",")) }
        Self.newline(to: &output, pretty: pretty, indent: indent + 1)
        Self.writeString(name, to: &output)
        output.append(contentsOf: (pretty ? ": " : ":").utf8)
        value.write(to: &output, pretty: pretty, sortingKeys: sortingKeys, indent: indent + 1)
      }
      Self.newline(to: &output, pretty: pretty, indent: indent)
      output.append(UInt8(ascii: "}"))
    }
  }

  private static func newline(to output: inout [UInt8], pretty: Bool, indent: Int) {
    guard pretty else { return }
    output.append(UInt8(ascii: "\n"))
    output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
  }

  private static func writeString(_ text: String, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    // Most strings need no escape: their bytes go out as they are. A byte that may begin one
    // (a control, a quote, a backslash, DEL, or the first byte of U+0080–U+00BF or of
    // U+2000–U+2FFF, where the C1 controls and the separators and overrides are) sends the
    // string through the scalar-by-scalar path.
    let plain = text.utf8.allSatisfy { byte in
      byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0x7F
        && byte != 0xC2 && byte != 0xE2
    }
    if plain {
      output.append(contentsOf: text.utf8)
      return output.append(UInt8(ascii: "\""))
    }
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x22: output.append(contentsOf: #"\""#.utf8)
      case 0x5C: output.append(contentsOf: #"\\"#.utf8)
      case 0x0A: output.append(contentsOf: #"\n"#.utf8)
      case 0x0D: output.append(contentsOf: #"\r"#.utf8)
      case 0x09: output.append(contentsOf: #"\t"#.utf8)
      case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
        let hex = Array("0123456789abcdef".utf8)
        output.append(contentsOf: #"\u"#.utf8)
        for shift in [12, 8, 4, 0] { output.append(hex[Int(scalar.value >> UInt32(shift) & 0xF)]) }
      case 0x00...0x7F: output.append(UInt8(truncatingIfNeeded: scalar.value))
      default: output.append(contentsOf: String(scalar).utf8)
      }
    }
    output.append(UInt8(ascii: "\""))
  }
}
