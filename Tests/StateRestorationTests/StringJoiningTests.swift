import Testing

@testable import SystemSupport

@Suite struct StringJoiningTests {
  /// The package's `joined(separator:)` for `[String]` must answer exactly as the standard
  /// library's, which an `ArraySlice` still calls.
  @Test(arguments: [
    [], [""], ["", ""], ["a"], ["a", "b"], ["", "b", ""], ["café", "芒果", "🌹"],
    Array(repeating: "word", count: 100),
  ])
  func joiningAnArrayOfStringsAnswersAsTheStandardLibrary(_ strings: [String]) {
    for separator in ["", " ", ", ", "—", "\n"] {
      #expect(strings.joined(separator: separator) == strings[...].joined(separator: separator))
    }
    #expect(strings.joined() == strings[...].joined())
  }
}
