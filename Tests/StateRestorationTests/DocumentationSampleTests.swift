import Foundation
import Testing

/// Every Swift sample of the README and the DocC catalog is compiled: it is in
/// `DocumentationSamples.swift`, line for line.
@Suite struct DocumentationSampleTests {
  static let package = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  static let documents = [
    "README.md",
    "Sources/StateRestoration/StateRestoration.docc/GettingStarted.md",
    "Sources/StateRestoration/StateRestoration.docc/StateRestoration.md",
    "Sources/ActivityIndex/ActivityIndex.docc/ActivityIndex.md",
    "Sources/SearchIndex/SearchIndex.docc/SearchIndex.md",
  ]

  /// The ```swift blocks of a document, with the line each starts on. A manifest fragment
  /// (`.product(name:…)`) belongs in a Package.swift, not in a program, and is left out.
  static func samples(in document: String) throws -> [(line: Int, code: [String])] {
    let lines = try String(contentsOf: package.appending(path: document), encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var samples: [(line: Int, code: [String])] = []
    var current: (line: Int, code: [String])?
    for (index, line) in lines.enumerated() {
      if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
        current = (index + 2, [])
      } else if let sample = current, line.trimmingCharacters(in: .whitespaces) == "```" {
        if !sample.code.contains(where: { $0.contains(".product(name:") }) {
          samples.append(sample)
        }
        current = nil
      } else if current != nil {
        current?.code.append(line)
      }
    }
    return samples
  }

  /// A line as compared: without its indentation, runs of spaces as one.
  static func normalized(_ lines: [String]) -> [String] {
    lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
      .filter { !$0.isEmpty }
  }

  @Test(arguments: documents)
  func everySampleIsCompiled(_ document: String) throws {
    let compiled = try String(
      contentsOf: Self.package.appending(
        path: "Tests/StateRestorationTests/DocumentationSamples.swift"),
      encoding: .utf8
    ).split(separator: "\n").map(String.init)
    let imports = Set(Self.normalized(compiled).filter { $0.hasPrefix("import ") })
    let body = Self.normalized(compiled).filter { !$0.hasPrefix("import ") }
    let samples = try Self.samples(in: document)
    #expect(!samples.isEmpty, "\(document) has no Swift sample")
    for sample in samples {
      let code = Self.normalized(sample.code)
      for line in code where line.hasPrefix("import ") {
        #expect(imports.contains(line), "\(document):\(sample.line): '\(line)' is not imported")
      }
      let statements = code.filter { !$0.hasPrefix("import ") }
      let found = (0...max(body.count - statements.count, 0)).contains { start in
        body.count >= statements.count
          && Array(body[start..<start + statements.count]) == statements
      }
      #expect(found, "\(document):\(sample.line): the sample is not in DocumentationSamples.swift")
    }
  }
}
