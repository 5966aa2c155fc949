internal import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Encodes a navigation-path element to JSON exactly as SwiftUI does on Apple's systems, with a
/// plain `JSONEncoder()`: object keys in the order the type encodes them, `/` escaped.
///
/// Foundation's `JSONEncoder` on Linux keeps an object's keys in a hash table, so their order
/// changes from one process to the next. This encoder records the structure in call order and
/// leaves every leaf (strings, numbers, dates, data, URLs, decimals) to `JSONEncoder`, so the
/// values are written byte for byte as it writes them.
enum ElementEncoder {
  /// The element's JSON.
  ///
  /// - Parameter value: The element.
  /// - Returns: Compact JSON text.
  /// - Throws: `EncodingError` when a value cannot be encoded (a non-finite number, say).
  static func encode(_ value: some Encodable) throws -> String {
    try Node.encoding(value, codingPath: []).json
  }
}

/// Strings as a plain `JSONEncoder()` writes them, without its generic machinery: quotes,
/// backslashes and `/` escaped with a backslash, the controls below U+0020 as `\b`, `\t`,
/// `\n`, `\f`, `\r` or `\u00xx`, everything else as its UTF-8.
enum JSONEncoderText {
  /// A string as a JSON string literal, quotes included.
  ///
  /// - Parameter text: The string.
  /// - Returns: The literal.
  static func quoted(_ text: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 2)
    append(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends a string as a JSON string literal, quotes included.
  ///
  /// - Parameters:
  ///   - text: The string.
  ///   - bytes: The UTF-8 written so far.
  static func append(_ text: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(byte)
      case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
      case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
      case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
      case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
      case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
      case 0x00..<0x20:
        bytes.append(contentsOf: #"\u00"#.utf8)
        bytes.append(byte < 0x10 ? UInt8(ascii: "0") : UInt8(ascii: "1"))
        let low = byte & 0xF
        bytes.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }
}

/// A JSON value under construction; containers are filled after they are handed out, so they are
/// references.
private final class Node {
  enum Content {
    /// JSON text written by `JSONEncoder`.
    case leaf(String)
    case array([Node])
    case object([(key: String, value: Node)])
  }

  var content: Content?

  init(_ content: Content? = nil) {
    self.content = content
  }

  /// The JSON of a value: a leaf through `JSONEncoder`, anything else through its own
  /// `encode(to:)` with keys kept in order.
  static func encoding(_ value: some Encodable, codingPath: [any CodingKey]) throws -> Node {
    switch value {
    case is String, is Bool, is Int, is Int8, is Int16, is Int32, is Int64, is UInt, is UInt8,
      is UInt16, is UInt32, is UInt64, is Double, is Float, is Date, is Data, is URL, is Decimal,
      is UUID:
      return Node(.leaf(try leaf(value)))
    default:
      let encoder = OrderedEncoder(codingPath: codingPath)
      try value.encode(to: encoder)
      // A value that encodes nothing is an empty object, as JSONEncoder writes it.
      return encoder.node.content == nil ? Node(.object([])) : encoder.node
    }
  }

  static func leaf(_ value: some Encodable) throws -> String {
    // The common leaves written directly, as `JSONEncoder` writes them (a path of products and
    // years is written at every step), without its generic machinery.
    switch value {
    case let value as Int: return String(value)
    case let value as Bool: return value ? "true" : "false"
    case let value as String: return JSONEncoderText.quoted(value)
    // A UUID encodes its `uuidString`, which is what `canonicalText` writes.
    case let value as UUID: return "\"" + value.canonicalText + "\""
    default: return String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
  }

  var json: String {
    switch content {
    case .leaf(let text): text
    case .array(let items): "[" + items.map(\.json).joined(separator: ",") + "]"
    case .object(let pairs):
      "{"
        + pairs.map { ((try? Node.leaf($0.key)) ?? "\"\"") + ":" + $0.value.json }.joined(
          separator: ",") + "}"
    case nil: "{}"
    }
  }

  func append(_ node: Node) {
    guard case .array(var items) = content else { return }
    items.append(node)
    content = .array(items)
  }

  func set(_ node: Node, forKey key: String) {
    guard case .object(var pairs) = content else { return }
    if let index = pairs.firstIndex(where: { $0.key == key }) {
      pairs[index].value = node
    } else {
      pairs.append((key, node))
    }
    content = .object(pairs)
  }
}

private struct OrderedEncoder: Encoder {
  let node = Node()
  var codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if node.content == nil { node.content = .object([]) }
    return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if node.content == nil { node.content = .array([]) }
    return UnkeyedContainer(node: node, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueContainer(node: node, codingPath: codingPath)
  }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: Node
  var codingPath: [any CodingKey]

  mutating func encodeNil(forKey key: Key) throws {
    node.set(Node(.leaf("null")), forKey: key.stringValue)
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    node.set(try Node.encoding(value, codingPath: codingPath + [key]), forKey: key.stringValue)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = Node(.object([]))
    node.set(nested, forKey: key.stringValue)
    return KeyedEncodingContainer(
      KeyedContainer<NestedKey>(node: nested, codingPath: codingPath + [key]))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let nested = Node(.array([]))
    node.set(nested, forKey: key.stringValue)
    return UnkeyedContainer(node: nested, codingPath: codingPath + [key])
  }

  mutating func superEncoder() -> any Encoder {
    superEncoder(named: "super")
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    superEncoder(named: key.stringValue)
  }

  private func superEncoder(named key: String) -> any Encoder {
    let encoder = OrderedEncoder(codingPath: codingPath)
    node.set(encoder.node, forKey: key)
    return encoder
  }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
  let node: Node
  var codingPath: [any CodingKey]
  var count: Int {
    if case .array(let items) = node.content { return items.count }
    return 0
  }

  mutating func encodeNil() throws {
    node.append(Node(.leaf("null")))
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    node.append(try Node.encoding(value, codingPath: codingPath))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let nested = Node(.object([]))
    node.append(nested)
    return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: nested, codingPath: codingPath))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let nested = Node(.array([]))
    node.append(nested)
    return UnkeyedContainer(node: nested, codingPath: codingPath)
  }

  mutating func superEncoder() -> any Encoder {
    let encoder = OrderedEncoder(codingPath: codingPath)
    node.append(encoder.node)
    return encoder
  }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
  let node: Node
  var codingPath: [any CodingKey]

  mutating func encodeNil() throws {
    node.content = .leaf("null")
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    node.content = try Node.encoding(value, codingPath: codingPath).content
  }
}
