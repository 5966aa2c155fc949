import Foundation
import StateRestoration
import Testing

/// A type with its own registered name; unregistered in the shared registry.
struct Recipe: Codable, Hashable, Sendable {
  var title: String
  var servings: Int
}

/// Codable, but never registered anywhere.
struct Unregistered: Codable, Hashable, Sendable {
  var value: Int
}

/// Keys in a declaration order that is not alphabetical, as in issue 13's example.
struct Balloon: Codable, Hashable, Sendable {
  var emoji: String
  var count: Int
}

/// Nested containers, optionals, dates and data: every shape a synthesized `Codable` writes.
struct Trip: Codable, Hashable, Sendable {
  enum Leg: Codable, Hashable, Sendable {
    case walk(minutes: Int, via: String)
    case rest
  }
  var name: String
  var stops: [Balloon]
  var note: String?
  var when: Date
  var blob: Data
  var legs: [Leg]
  var zone: [String: Int]
}

/// Hashable but not Codable.
struct Opaque: Hashable, Sendable {
  var value: Int
}

/// Nested types of each kind, found by name without registration.
final class Screen: Codable, Hashable, Sendable {
  enum Tab: String, Codable, Hashable, Sendable { case detail, photo }
  let tab: Tab
  init(tab: Tab) { self.tab = tab }
  static func == (lhs: Screen, rhs: Screen) -> Bool { lhs.tab == rhs.tab }
  func hash(into hasher: inout Hasher) { hasher.combine(tab) }
}

@Suite struct NavigationPathTests {
  static let registry: NavigationTypeRegistry = {
    var registry = NavigationTypeRegistry()
    try? registry.register(Recipe.self, as: "tests.Recipe")
    return registry
  }()

  static let identifier = UUID(uuidString: "FA542E3D-4895-4A6D-AB1B-1D2E4E8A3F61") ?? UUID()

  static let paths: [(String, NavigationPath)] = [
    ("empty", NavigationPath()),
    ("one string", NavigationPath(["hello"])),
    ("integers", NavigationPath([1, 2, 3])),
    ("heterogeneous", heterogeneous),
    ("a thousand elements", NavigationPath(0..<1000)),
    (
      "awkward strings",
      NavigationPath(["", "quote \" and slash / and \\", "樱桃 🍒", "line\nbreak"])
    ),
  ]

  static var heterogeneous: NavigationPath {
    var path = NavigationPath()
    path.append(identifier)
    path.append(2015)
    path.append("text")
    path.append(true)
    path.append(2.5)
    path.append(URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/"))
    path.append(Date(timeIntervalSinceReferenceDate: 726_000_000.5))
    path.append(Recipe(title: "Cherry pie", servings: 8))
    return path
  }

  @Test(arguments: paths)
  func roundTripsThroughJSON(name: String, path: NavigationPath) throws {
    let representation = try path.codableRepresentation(using: Self.registry)
    let decoded = NavigationPath.CodableRepresentation(
      jsonData: representation.jsonData, registry: Self.registry)
    #expect(decoded.decodingError == nil)
    #expect(decoded.droppedElementCount == 0)
    #expect(NavigationPath(decoded) == path)
    #expect(NavigationPath(decoded).count == path.count)
  }

  @Test func roundTripsThroughAnEnclosingCodable() throws {
    struct Saved: Codable { var path: NavigationPath.CodableRepresentation }
    let path = NavigationPath([Self.identifier, Self.identifier])
    let data = try JSONEncoder().encode(Saved(path: try #require(path.codable)))
    let decoded = try JSONDecoder().decode(Saved.self, from: data)
    #expect(NavigationPath(decoded.path) == path)
  }

  @Test func encodesInSwiftUIsFormatLastElementFirst() throws {
    var path = NavigationPath()
    path.append("hello")
    path.append(42)
    path.append(true)
    let json = String(decoding: try #require(path.codable).jsonData, as: UTF8.self)
    #expect(json == #"["Swift.Bool","true","Swift.Int","42","Swift.String","\"hello\""]"#)
    let decoded = NavigationPath(NavigationPath.CodableRepresentation(jsonData: Data(json.utf8)))
    #expect(decoded == path)
    #expect(decoded.element(at: 0, as: String.self) == "hello")
    #expect(decoded.element(at: 2, as: Bool.self) == true)
  }

  /// SwiftUI encodes each element with a plain `JSONEncoder()`: keys in declaration order and
  /// `/` escaped. These are its bytes for the same values.
  @Test(arguments: [
    (NavigationPath([Balloon(emoji: "🎈", count: 99)]), #"{"emoji":"🎈","count":99}"#),
    (NavigationPath(["a/b"]), #""a\/b""#),
    (NavigationPath(["樱桃 café"]), #""樱桃 café""#),
    (
      NavigationPath([URL(string: "https://example.com/x") ?? URL(fileURLWithPath: "/")]),
      #""https:\/\/example.com\/x""#
    ),
  ])
  func encodesElementsWithSwiftUIsBytes(_ path: NavigationPath, _ element: String) throws {
    try expectSwiftUIsElementBytes(path, element)
  }

  /// The whole representation, to the last byte, as a `JSONEncoder` on Apple's systems writes
  /// the outer array: every `/` of every string escaped, those of an element's JSON too.
  @Test(arguments: [
    (
      NavigationPath([URL(string: "https://example.com/a") ?? URL(fileURLWithPath: "/")]),
      #"["Foundation.URL","\"https:\\\/\\\/example.com\\\/a\""]"#
    ),
    (NavigationPath(["a/b"]), #"["Swift.String","\"a\\\/b\""]"#),
    (NavigationPath([42]), #"["Swift.Int","42"]"#),
    (NavigationPath([true]), #"["Swift.Bool","true"]"#),
    (NavigationPath([2.5]), #"["Swift.Double","2.5"]"#),
    (NavigationPath(["樱桃 \\ \""]), #"["Swift.String","\"樱桃 \\\\ \\\"\""]"#),
    (
      NavigationPath([Balloon(emoji: "🎈", count: 99)]),
      #"["tests.Balloon","{\"emoji\":\"🎈\",\"count\":99}"]"#
    ),
  ])
  func encodesTheWholeRepresentationWithSwiftUIsBytes(_ path: NavigationPath, _ bytes: String)
    throws
  {
    var registry = NavigationTypeRegistry()
    try registry.register(Balloon.self, as: "tests.Balloon")
    let data = try path.codableRepresentation(using: registry).jsonData
    #expect(String(decoding: data, as: UTF8.self) == bytes)
    #expect(
      NavigationPath(NavigationPath.CodableRepresentation(jsonData: data, registry: registry))
        == path)
  }

  private func expectSwiftUIsElementBytes(_ path: NavigationPath, _ element: String) throws {
    var registry = NavigationTypeRegistry()
    try registry.register(Balloon.self, as: "tests.Balloon")
    try registry.register(Trip.self, as: "tests.Trip")
    let data = try path.codableRepresentation(using: registry).jsonData
    let strings = try JSONDecoder().decode([String].self, from: data)
    #expect(strings.count == 2)
    #expect(strings.last == element)
    // And it reads back as the same path.
    let decoded = NavigationPath(
      NavigationPath.CodableRepresentation(jsonData: data, registry: registry))
    #expect(decoded == path)
  }

  /// `jsonData` and a string element are written by hand, as `JSONEncoder` writes them (which
  /// SwiftUI uses): every control character, quotes, backslashes, `/`, text beyond ASCII.
  @Test func writesTheBytesJSONEncoderWrites() throws {
    let strings =
      (0..<0xA0).map { String(UnicodeScalar(UInt8($0))) } + [
        #"a/b\c"d"#, "樱桃 café 😀", "\u{2028}\u{2029}\u{202E}", "", "tab\tend\n",
      ]
    for text in strings {
      let scalars = text.unicodeScalars.map(\.value)
      var path = NavigationPath([text])
      path.append(7)
      path.append(Self.identifier)
      let representation = try path.codableRepresentation()
      let data = representation.jsonData
      #expect(data == (try JSONEncoder().encode(representation)), "\(scalars)")
      let written = try JSONDecoder().decode([String].self, from: data)
      #expect(
        written.last == String(decoding: try JSONEncoder().encode(text), as: UTF8.self),
        "\(scalars)")
    }
  }

  @Test func writesTheBuiltInNames() throws {
    let json = String(
      decoding: try #require(NavigationPath([Self.identifier]).codable).jsonData, as: UTF8.self)
    #expect(json == #"["Foundation.UUID","\"FA542E3D-4895-4A6D-AB1B-1D2E4E8A3F61\""]"#)
    let names = [
      NavigationTypeRegistry.builtIn.name(of: Double.self),
      NavigationTypeRegistry.builtIn.name(of: URL.self),
      NavigationTypeRegistry.builtIn.name(of: Date.self),
    ]
    #expect(names == ["Swift.Double", "Foundation.URL", "Foundation.Date"])
  }

  @Test func hasNoCodableRepresentationWithANonCodableElement() {
    var path = NavigationPath([1, 2])
    path.append(Opaque(value: 3))
    #expect(path.codable == nil)
    #expect(
      throws: StateRestorationError.notCodable(
        position: 3, typeName: "StateRestorationTests.Opaque")
    ) {
      try path.codableRepresentation()
    }
    path.removeLast()
    #expect(path.codable != nil)
  }

  /// As in SwiftUI, a program's own `Codable` type needs no registration: it is written under
  /// its qualified name, and found by it when read — nested types, enums and classes too.
  @Test func aProgramsOwnTypesRoundTripWithoutRegistration() throws {
    var path = NavigationPath([Unregistered(value: 1)])
    path.append(Screen.Tab.photo)
    path.append(Screen(tab: .detail))
    path.append(7)
    let representation = try path.codableRepresentation()
    let data = representation.jsonData
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.contains("StateRestorationTests.Unregistered"), "\(text)")
    #expect(text.contains("StateRestorationTests.Screen.Tab"), "\(text)")
    let decoded = try JSONDecoder().decode(NavigationPath.CodableRepresentation.self, from: data)
    #expect(decoded.decodingError == nil, "\(String(describing: decoded.decodingError))")
    #expect(NavigationPath(decoded) == path)
    #expect(NavigationPath(decoded).element(at: 0, as: Unregistered.self) == Unregistered(value: 1))
  }

  @Test func aTypeThisProgramDoesNotHaveIsNamedWhenRead() {
    let data = Data(#"["Elsewhere.Point","{\"x\":1}","Swift.Int","2"]"#.utf8)
    let decoded = NavigationPath.CodableRepresentation(jsonData: data)
    #expect(NavigationPath(decoded).count == 1)
    #expect(decoded.decodingError == .unknownTypeName("Elsewhere.Point", position: 2))
  }

  @Test func refusesConflictingRegistrations() throws {
    var registry = NavigationTypeRegistry()
    try registry.register(Recipe.self, as: "tests.Recipe")
    try registry.register(Recipe.self, as: "tests.Recipe")
    #expect(throws: StateRestorationError.registrationConflict(name: "tests.Other")) {
      try registry.register(Recipe.self, as: "tests.Other")
    }
    #expect(throws: StateRestorationError.registrationConflict(name: "Swift.Int")) {
      try registry.register(Unregistered.self, as: "Swift.Int")
    }
  }

  @Test func editsLikeAStack() {
    var path = NavigationPath()
    #expect(path.isEmpty)
    path.append(1)
    path.append("two")
    path.append(3)
    #expect(path.count == 3)
    path.removeLast(2)
    #expect(path == NavigationPath([1]))
    #expect(path != NavigationPath(["1"]))
    path.removeLast()
    #expect(path.isEmpty)
  }

  static let junk: [(String, String, expectedCount: Int, StateRestorationError?, dropped: Int)] = [
    ("not JSON", "Swift.Int 1", 0, .notJSON(reason: ""), 0),
    ("not an array", #"{"Swift.Int":"1"}"#, 0, .notAnArray, 0),
    ("a bare string", #""Swift.Int""#, 0, .notAnArray, 0),
    ("empty", "[]", 0, nil, 0),
    ("odd count", #"["Swift.Int","Swift.Int","2","Swift.Int","1"]"#, 2, .oddCount(5), 1),
    (
      "unknown type in the middle",
      #"["Swift.Int","3","App.Renamed","{}","Swift.Int","1"]"#, 1,
      .unknownTypeName("App.Renamed", position: 2), 2
    ),
    (
      "value that does not decode",
      #"["Swift.Int","1","Foundation.UUID","\"not-a-uuid\""]"#, 0,
      .undecodableValue(typeName: "Foundation.UUID", position: 1, reason: ""), 2
    ),
    ("a number among the strings", #"["Swift.Int","3",7,"1"]"#, 0, .notAString(index: 3), 2),
    ("nested arrays", #"["Swift.Int","2",["Swift.Int"],"1"]"#, 0, .notAString(index: 3), 2),
  ]

  @Test(arguments: junk)
  func decodesTheLongestValidPrefixOfJunk(
    name: String, json: String, expectedCount: Int, error: StateRestorationError?, dropped: Int
  ) {
    let representation = NavigationPath.CodableRepresentation(jsonData: Data(json.utf8))
    let path = NavigationPath(representation)
    #expect(path.count == expectedCount)
    #expect(path == NavigationPath(1...max(1, expectedCount)).prefix(expectedCount))
    #expect(representation.droppedElementCount == dropped)
    #expect(representation.decodingError.map(Self.withoutReason) == error.map(Self.withoutReason))
    #expect(representation.decodingError?.localizedDescription.contains("\n") != true)
  }

  /// The error with the decoder's wording taken out, which is not ours to pin down.
  static func withoutReason(_ error: StateRestorationError) -> StateRestorationError {
    switch error {
    case .notJSON: .notJSON(reason: "")
    case .undecodableValue(let typeName, let position, _):
      .undecodableValue(typeName: typeName, position: position, reason: "")
    default: error
    }
  }

  @Test func survivesDeepNestingAndHugeStrings() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let nested = NavigationPath.CodableRepresentation(jsonData: Data(deep.utf8))
    #expect(NavigationPath(nested).isEmpty)
    #expect(nested.decodingError != nil)

    let deepValue =
      #"["Swift.Int",""# + String(repeating: "[", count: 100_000) + #"","Swift.Int","1"]"#
    let inner = NavigationPath.CodableRepresentation(jsonData: Data(deepValue.utf8))
    #expect(NavigationPath(inner) == NavigationPath([1]))

    let huge = String(repeating: "x", count: 4_000_000)
    let hugeName = NavigationPath.CodableRepresentation(
      jsonData: Data(#"["\#(huge)","1","Swift.Int","1"]"#.utf8))
    #expect(NavigationPath(hugeName) == NavigationPath([1]))
    let message = hugeName.decodingError?.localizedDescription ?? ""
    #expect(message.count < 200)

    let hugeString = NavigationPath([huge])
    let decoded = NavigationPath.CodableRepresentation(
      jsonData: hugeString.codable?.jsonData ?? Data())
    #expect(NavigationPath(decoded) == hugeString)
  }
}

extension NavigationPath {
  /// The first elements, for comparing prefixes in tests.
  fileprivate func prefix(_ count: Int) -> NavigationPath {
    var path = self
    path.removeLast(self.count - count)
    return path
  }
}
