import Foundation
import StateRestoration
import SystemSupport
import TestSupport
import Testing

@Suite struct JSONValueTests {
  // MARK: Parsing

  @Test func parsesWhatJSONSerializationParses() throws {
    let documents = [
      #"{"a": [1, -0, 2.5, -1.5e-3, 1E+2, true, false, null], "b": {"c": "d"}}"#,
      #""\u0041\u00e9\u4e2d\ud83d\ude00 \/ \\ \" \b\f\n\r\t""#,
      " \n\t[ ] ",
      #"{"":{},"x":[[[]]]}"#,
      #""Morello 樱桃 \u001b[31m""#,
    ]
    for document in documents {
      let parsed = try JSONValue(parsing: Array(document.utf8))
      func canonical(_ data: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        let sorted = try JSONSerialization.data(
          withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: sorted, as: UTF8.self)
      }
      #expect(
        try canonical(Data(parsed.serialized())) == canonical(Data(document.utf8)),
        "\(document) → \(String(decoding: parsed.serialized(), as: UTF8.self))")
    }
    #expect(try JSONValue(parsing: Array(#""\ud83d\ude00""#.utf8)) == .string("😀"))
    #expect(try JSONValue(parsing: Array(#"{"a":1,"a":2}"#.utf8))["a"] == .number("2"))
  }

  @Test(arguments: [
    ("", 1, 1), ("{", 1, 2), ("[1,]", 1, 4), (#"{"a" 1}"#, 1, 6), ("01", 1, 2), ("1.", 1, 3),
    ("-", 1, 2), (#""\x""#, 1, 4), (#""\ud800""#, 1, 8), ("\"a\u{1}\"", 1, 3), ("nul", 1, 1),
    ("[1] x", 1, 5), ("[\n  1\n  2]", 3, 3), (#"{"a":}"#, 1, 6), ("\"open", 1, 6),
  ])
  func refusesWhatIsNotJSONAndSaysWhere(_ document: String, line: Int, column: Int) {
    #expect {
      try JSONValue(parsing: Array(document.utf8))
    } throws: { error in
      guard let error = error as? JSONSyntaxError else { return false }
      return error.line == line && error.column == column
    }
  }

  /// Bytes in contiguous storage are read in place; any other collection, copied first, reads
  /// alike: the same value, or the same error at the same place.
  @Test func readsBytesThatAreNotContiguousAlike() throws {
    let document = #"{"a":[1,"b"]}"#
    let scattered = document.utf8.lazy.map { $0 }
    #expect(scattered.withContiguousStorageIfAvailable { _ in true } == nil)
    #expect(try JSONValue(parsing: scattered) == JSONValue(parsing: Data(document.utf8)))
    #expect {
      try JSONValue(parsing: "[1,]".utf8.lazy.map { $0 })
    } throws: { error in
      (error as? JSONSyntaxError).map { $0.line == 1 && $0.column == 4 } ?? false
    }
  }

  @Test func refusesTextThatIsNotUTF8() {
    #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: [0x22, 0xFF, 0x22]) }
    #expect(throws: JSONSyntaxError.self) {
      try JSONValue(parsing: [0x22, 0xED, 0xA0, 0x80, 0x22])
    }
  }

  @Test func nestingIsBoundedWithoutExhaustingTheStack() throws {
    let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    _ = try JSONValue(parsing: Array(deepest.utf8))
    for depth in [513, 1_000_000] {
      #expect(throws: JSONSyntaxError.self) {
        try JSONValue(parsing: Array(String(repeating: "[", count: depth).utf8))
      }
    }
  }

  @Test func integersAreReadExactly() throws {
    #expect(try JSONValue.number("9223372036854775807").intValue() == .max)
    #expect(try JSONValue.number("-9223372036854775808").intValue() == .min)
    #expect(try JSONValue.number("1e3").intValue() == 1000)
    #expect(try JSONValue.number("2.0").intValue() == 2)
    for text in ["9223372036854775808", "1.5", "1e400"] {
      #expect(throws: JSONReadError.self) { try JSONValue.number(text).intValue() }
    }
    #expect(throws: JSONReadError.self) { try JSONValue.number("1e400").doubleValue() }
  }

  // MARK: Writing

  @Test func writesDoublesAsJSONEncoderDoes() throws {
    let values: [Double] = [
      280.84, 1991, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e21, 0.1,
      123_456_789.5,
    ]
    for value in values {
      let written = String(decoding: JSONValue.double(value).serialized(), as: UTF8.self)
      let reference = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
      #expect(written == reference)
      #expect(
        try JSONValue(parsing: Array(written.utf8)).doubleValue().bitPattern == value.bitPattern)
    }
    for value in [Double.nan, .infinity, -.infinity] {
      let read = try JSONValue.double(value).doubleValue()
      #expect(read.bitPattern == value.bitPattern || (read.isNaN && value.isNaN))
    }
  }

  @Test func writtenTextIsInertOnATerminal() throws {
    let hostile = "a\u{1B}[2Jb\u{7}c\u{85}d\u{2028}e\u{202E}f\u{0}g\"h\\i/j"
    let written = JSONValue.object([(hostile, .string(hostile))]).serialized(pretty: true)
    #expect(!written.contains { $0 < 0x20 && $0 != 0x0A })
    let text = String(decoding: written, as: UTF8.self)
    #expect(!text.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" })
    #expect(text.contains(#"\u001b[2Jb\u0007c\u0085d\u2028e\u202ef\u0000g\"h\\i/j"#))
    #expect(try JSONValue(parsing: written)[hostile] == .string(hostile))
  }

  /// Each character a terminal could act on is escaped also alone in plain text, beside text
  /// written as it is (ASCII, accents, CJK, emoji).
  @Test(arguments: [
    ("\u{85}", #"\u0085"#), ("\u{9B}", #"\u009b"#), ("\u{7F}", #"\u007f"#),
    ("\u{2028}", #"\u2028"#), ("\u{2029}", #"\u2029"#), ("\u{202E}", #"\u202e"#),
    ("\u{2066}", #"\u2066"#), ("\u{1B}", #"\u001b"#), ("\"", #"\""#), ("\\", #"\\"#),
    ("é", "é"), ("€", "€"), ("樱", "樱"), ("😀", "😀"), ("\u{2010}", "\u{2010}"),
  ])
  func escapesWhatATerminalActsOnAloneInPlainText(_ character: String, _ written: String) {
    let text = "plain " + character + " text"
    let serialized = String(decoding: JSONValue.string(text).serialized(), as: UTF8.self)
    #expect(serialized == "\"plain " + written + " text\"")
  }

  @Test func keepsOrderOrSortsKeys() {
    let object = JSONValue.object([
      ("b", .int(1)), ("a", .array([.null, .bool(true)])), ("c", .object([])),
    ])
    #expect(
      String(decoding: object.serialized(), as: UTF8.self) == #"{"b":1,"a":[null,true],"c":{}}"#)
    #expect(
      String(decoding: object.serialized(sortingKeys: true), as: UTF8.self)
        == #"{"a":[null,true],"b":1,"c":{}}"#)
    #expect(
      object.rendered == "{\n  \"b\": 1,\n  \"a\": [\n    null,\n    true\n  ],\n  \"c\": {}\n}")
  }

  // MARK: State files, both ways with Codable

  @Test func stateFilesReadAndWriteTheSameJSONAsCodable() throws {
    var random = SeededGenerator(seed: 24)
    for _ in 0..<200 {
      var file = SceneFile(
        name: SceneName("s\(Int.random(in: 0..<99, using: &random))")!,
        storage: randomStorage(using: &random),
        activity: Bool.random(using: &random) ? randomActivity(using: &random) : nil)
      if Bool.random(using: &random) {
        file.activatedAt = Date(
          timeIntervalSinceReferenceDate: .random(in: 0..<1e9, using: &random))
      }
      // Written by hand, read by JSONDecoder.
      let byHand = try file.encoded()
      #expect(try JSONDecoder().decode(SceneFile.self, from: byHand) == file)
      // Written by JSONEncoder, read by hand.
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      #expect(try SceneFile.decoded(from: encoder.encode(file), path: "f") == file)
      #expect(try SceneFile.decoded(from: byHand, path: "f") == file)
    }
    for activatedAt in [nil, Date(timeIntervalSinceReferenceDate: 817_628_265.599_529_5)] {
      let session = SessionFile(
        SessionState(
          scenes: [.main, SceneName("two")], activeScene: .main, activatedAt: activatedAt))
      #expect(try JSONDecoder().decode(SessionFile.self, from: session.encoded()) == session)
      #expect(try SessionFile.decoded(from: JSONEncoder().encode(session), path: "f") == session)
    }
  }

  @Test(arguments: [
    (#"{"formatVersion":1,"storage":{}}"#, "missing 'name'"),
    (
      #"{"formatVersion":1,"name":"main","storage":{"n":{"type":"int","value":"3"}}}"#,
      "expected Int at 'storage.n.value'"
    ),
    (
      #"{"formatVersion":1,"name":"main","storage":{"n":{"type":"tuple","value":1}}}"#,
      "unknown value type 'tuple' at 'storage.n.type'"
    ),
    (
      #"{"formatVersion":1,"name":"../x","storage":{}}"#,
      "'../x' is not a valid scene name at 'name'"
    ),
    (#"{"name":"main","storage":{}}"#, "missing 'formatVersion'"),
    ("{\"formatVersion\":1,\n\"name\":}", "not valid JSON at line 2, column 8: expected a value"),
    (#"{"formatVersion":0,"name":"main","storage":{}}"#, "format version 0 is not valid"),
  ])
  func aDamagedFileSaysWhatAndWhere(_ document: String, detail: String) {
    #expect {
      try SceneFile.decoded(from: Data(document.utf8), path: "p")
    } throws: { error in
      guard case .malformed("p", let found) = error as? SystemError else { return false }
      return found == detail
    }
  }

  @Test func aNewerFileIsToldFromADamagedOne() {
    #expect {
      try SceneFile.decoded(from: Data(#"{"formatVersion":7,"name":42}"#.utf8), path: "p")
    } throws: { error in
      guard case .newerFormatVersion("p", 7, 1) = error as? SystemError else {
        return false
      }
      return true
    }
  }

  private func randomStorage(using random: inout SeededGenerator) -> SceneStorageValues {
    var entries: [String: StoredValue] = [:]
    for index in 0..<Int.random(in: 0..<8, using: &random) {
      let text = randomText(using: &random)
      entries["k\(index)\(text)"] =
        switch Int.random(in: 0..<8, using: &random) {
        case 0: .bool(Bool.random(using: &random))
        case 1: .int(Int.random(in: .min ... .max, using: &random))
        case 2:
          .double(
            [
              Double.greatestFiniteMagnitude, .infinity, -0.0,
              Double.random(in: -1e9...1e9, using: &random),
            ][
              Int.random(in: 0..<4, using: &random)])
        case 3: .string(text)
        case 4: .url(URL(string: "https://example.com/\(index)?q=a%20b") ?? URL(filePath: "/"))
        case 5: .data(Data(text.utf8))
        case 6:
          .date(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &random)))
        default: .codable(Data(#"{"title":"\#(index)","tags":["a"]}"#.utf8))
        }
    }
    return SceneStorageValues(entries)
  }

  private func randomActivity(using random: inout SeededGenerator) -> UserActivityRecord {
    var activity = UserActivityRecord(activityType: "com.example.\(randomText(using: &random))")
    activity.title = Bool.random(using: &random) ? randomText(using: &random) : nil
    activity.keywords = Set((0..<Int.random(in: 0..<4, using: &random)).map { "w\($0)" })
    activity.requiredUserInfoKeys = ["id"]
    activity.userInfo = [
      "id": .string(randomText(using: &random)), "n": .int(Int.random(in: -9...9, using: &random)),
      "list": .array([.bool(true), .double(2.5), .data(Data([0, 255]))]),
      "nested": .dictionary(["when": .date(Date(timeIntervalSinceReferenceDate: 1.5))]),
    ]
    activity.isEligibleForSearch = Bool.random(using: &random)
    activity.targetContentIdentifier = Bool.random(using: &random) ? "target" : nil
    activity.webpageURL = Bool.random(using: &random) ? URL(string: "https://example.com/p") : nil
    activity.expirationDate =
      Bool.random(using: &random) ? Date(timeIntervalSinceReferenceDate: 9) : nil
    activity.lastActiveDate = Date(timeIntervalSinceReferenceDate: 785_000_000.25)
    return activity
  }

  private func randomText(using random: inout SeededGenerator) -> String {
    let pieces = ["a", "é", "樱", "😀", "\"", "\\", "/", "\n", "\u{1B}", " ", "\u{2028}"]
    return (0..<Int.random(in: 1..<6, using: &random)).map { _ in
      pieces[Int.random(in: 0..<pieces.count, using: &random)]
    }.joined()
  }
}
