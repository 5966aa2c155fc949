internal import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension NavigationPath {
  /// A serializable form of a ``NavigationPath``, in SwiftUI's format: a flat JSON array of
  /// strings, each element's registered type name then its JSON-encoded value, the last
  /// element first.
  ///
  /// ```json
  /// ["Swift.Bool","true","Swift.Int","42","Swift.String","\"hello\""]
  /// ```
  ///
  /// is the path `"hello"`, `42`, `true`. Decoding never fails and never traps: what cannot be
  /// decoded (an unknown type name, a value of the wrong shape, something that is not an
  /// array of strings) ends the path there. The representation keeps its longest decodable
  /// prefix from the root, and ``decodingError`` and ``droppedElementCount`` say what was
  /// dropped and why.
  public struct CodableRepresentation: Codable, Sendable, Equatable {
    struct Item: Sendable {
      let typeName: String
      let json: String
      let value: any Hashable & Sendable
    }

    let items: [Item]

    /// Why decoding stopped early; nil when every element was decoded.
    public let decodingError: StateRestorationError?

    /// How many elements decoding dropped; 0 when every element was decoded, and when the
    /// data was not an array at all.
    public let droppedElementCount: Int

    init(items: [Item]) {
      self.items = items
      decodingError = nil
      droppedElementCount = 0
    }

    /// Decodes a representation from JSON data, keeping its longest decodable prefix.
    ///
    /// - Parameters:
    ///   - jsonData: The data, as ``jsonData`` produced it.
    ///   - registry: The element types to decode; the shared registry by default.
    /// - Complexity: O(*n*) in the size of the data.
    public init(jsonData: Data, registry: NavigationTypeRegistry = .shared) {
      let json: JSONValue
      do {
        json = try JSONValue(parsing: jsonData)
      } catch {
        self.init(items: [], error: .notJSON(reason: Self.reason(for: error)), dropped: 0)
        return
      }
      guard case .array(let elements) = json else {
        self.init(items: [], error: .notAnArray, dropped: 0)
        return
      }
      let strings = elements.map { element -> String? in
        guard case .string(let text) = element else { return nil }
        return text
      }
      self.init(strings: strings, registry: registry)
    }

    /// Decodes a representation as SwiftUI does: whole, or not at all. A program then starts
    /// with an empty path, as the SwiftUI pattern does in its `catch`;
    /// ``init(jsonData:registry:)`` keeps the longest decodable prefix instead.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` for content this program cannot restore whole —
    ///   not an array of strings, an odd count, a type it does not have, a value that does not
    ///   decode — with the ``StateRestorationError`` as its underlying error.
    public init(from decoder: any Decoder) throws {
      var container = try decoder.unkeyedContainer()
      var strings: [String?] = []
      while !container.isAtEnd {
        guard let slot = try? container.decode(Slot.self) else { break }
        strings.append(slot.string)
      }
      let decoded = Self(strings: strings, registry: .shared)
      if let error = decoded.decodingError {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: decoder.codingPath, debugDescription: error.description,
            underlyingError: error))
      }
      self = decoded
    }

    /// Writes the representation as a flat array of strings.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.unkeyedContainer()
      for item in items.reversed() {
        try container.encode(item.typeName)
        try container.encode(item.json)
      }
    }

    /// The representation as compact JSON, byte for byte as SwiftUI writes it: a plain
    /// `JSONEncoder()` for the outer array too, which escapes every `/` of each string (those
    /// of an element's own JSON included: `"\"https:\\\/\\\/example.com\""` for a URL).
    public var jsonData: Data {
      // Written as `encode(to:)` writes it through `JSONEncoder`, without its machinery.
      var bytes: [UInt8] = [UInt8(ascii: "[")]
      for item in items.reversed() {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        JSONEncoderText.append(item.typeName, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONEncoderText.append(item.json, to: &bytes)
      }
      bytes.append(UInt8(ascii: "]"))
      return Data(bytes)
    }

    /// Returns whether two representations write the same type names and values.
    ///
    /// - Parameters:
    ///   - lhs: A representation.
    ///   - rhs: Another representation.
    /// - Returns: Whether they are equal.
    public static func == (lhs: CodableRepresentation, rhs: CodableRepresentation) -> Bool {
      lhs.items.map(\.typeName) == rhs.items.map(\.typeName)
        && lhs.items.map(\.json) == rhs.items.map(\.json)
        && lhs.decodingError == rhs.decodingError
        && lhs.droppedElementCount == rhs.droppedElementCount
    }

    private init(items: [Item], error: StateRestorationError?, dropped: Int) {
      self.items = items
      decodingError = error
      droppedElementCount = dropped
    }

    /// Decodes the strings from the root (the end of the array) until one does not decode.
    private init(strings: [String?], registry: NavigationTypeRegistry) {
      let total = (strings.count + 1) / 2
      var items: [Item] = []
      var problem: StateRestorationError?
      var end = strings.count
      while end >= 2 {
        let position = items.count + 1
        guard let typeName = strings[end - 2] else {
          problem = .notAString(index: end - 1)
          break
        }
        guard let json = strings[end - 1] else {
          problem = .notAString(index: end)
          break
        }
        do {
          guard let value = try registry.decode(json, typeNamed: typeName) else {
            problem = .unknownTypeName(typeName, position: position)
            break
          }
          items.append(Item(typeName: typeName, json: json, value: value))
        } catch {
          problem = .undecodableValue(
            typeName: typeName, position: position, reason: Self.reason(for: error))
          break
        }
        end -= 2
      }
      if problem == nil, end == 1 {
        problem = strings[0] == nil ? .notAString(index: 1) : .oddCount(strings.count)
      }
      self.init(items: items, error: problem, dropped: total - items.count)
    }

    private static func reason(for error: any Error) -> String {
      switch error {
      case DecodingError.dataCorrupted(let context),
        DecodingError.typeMismatch(_, let context),
        DecodingError.valueNotFound(_, let context),
        DecodingError.keyNotFound(_, let context):
        context.debugDescription.abbreviated
      case let error as JSONSyntaxError: error.description.abbreviated
      case let error as JSONReadError: error.description.abbreviated
      default:
        "\(error)".abbreviated
      }
    }
  }
}

/// One entry of the flat array: a string, or nil for anything else.
private struct Slot: Decodable {
  let string: String?

  init(from decoder: any Decoder) throws {
    string = try? decoder.singleValueContainer().decode(String.self)
  }
}
