import Foundation
import TestSupport
import Testing

@testable import SearchIndex

/// An index built a slice at a time and merged is the same file, byte for byte, as the index of
/// the same documents built in memory, for any slice size.
@Suite struct SearchIndexFileBuilderTests {
  static let origin = SearchIndex.Origin(source: 42, generation: 7)

  private func inMemoryFile(_ documents: [SearchDocument], in directory: String) throws -> Data {
    let path = directory + "/memory.index"
    try SearchIndex(documents).write(to: path, origin: Self.origin)
    return try Data(contentsOf: URL(fileURLWithPath: path))
  }

  private func slicedFile(_ documents: [SearchDocument], sliceSize: Int, in directory: String)
    throws -> Data
  {
    let path = directory + "/sliced.index"
    var builder = SearchIndexFileBuilder(temporaryDirectory: directory, sliceSize: sliceSize)
    for document in documents { try builder.add(document) }
    try builder.write(to: path, origin: Self.origin)
    return try Data(contentsOf: URL(fileURLWithPath: path))
  }

  @Test(arguments: 0..<40)
  func aSlicedBuildIsTheInMemoryBuild(seed: Int) throws {
    var generator = Generator(state: UInt64(seed) &* 7919 &+ 1)
    let count = Int.random(in: 0...400, using: &generator)
    var documents = (0..<count).map { _ in SearchIndexPropertyTests.document(&generator) }
    // Documents that match nothing keep their numbers, as a left-out product's does.
    for index in documents.indices where Int.random(in: 0..<10, using: &generator) == 0 {
      documents[index] = SearchDocument(title: "", keywords: [])
    }
    let sliceSize = Int.random(in: 1...60, using: &generator)
    let temporary = TemporaryDirectory()
    let expected = try inMemoryFile(documents, in: temporary.path)
    let sliced = try slicedFile(documents, sliceSize: sliceSize, in: temporary.path)
    #expect(sliced == expected, "\(count) documents in slices of \(sliceSize)")
    // The slices' files are gone.
    let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted()
    #expect(left == ["memory.index", "sliced.index"])
  }

  @Test func theMergedIndexAnswersAsTheInMemoryOne() throws {
    var generator = Generator(state: 99)
    let documents = (0..<500).map { _ in SearchIndexPropertyTests.document(&generator) }
    let temporary = TemporaryDirectory()
    _ = try slicedFile(documents, sliceSize: 37, in: temporary.path)
    let merged = try SearchIndex(contentsOf: temporary.path + "/sliced.index")
    let memory = SearchIndex(documents)
    for query in ["rose", "ros", "樱桃", "k1", "golden cherries", "\"red rose\"", "mlon"] {
      let parsed = try SearchQuery(query)
      #expect(try merged.search(parsed, limit: 20) == memory.search(parsed, limit: 20), "\(query)")
    }
  }

  /// Slices a killed build left are removed by the next one; a running build's are not.
  @Test func slicesOfAKilledBuildAreRemovedByTheNext() throws {
    let temporary = TemporaryDirectory()
    let ended = Process()
    ended.executableURL = URL(fileURLWithPath: "/bin/true")
    try ended.run()
    ended.waitUntilExit()
    let abandoned = temporary.path + "/.search-slice.\(ended.processIdentifier).7.tmp"
    let running = temporary.path + "/.search-slice.\(getpid()).8.tmp"
    for path in [abandoned, running] { try Data([1]).write(to: URL(fileURLWithPath: path)) }
    _ = SearchIndexFileBuilder(temporaryDirectory: temporary.path)
    #expect(!FileManager.default.fileExists(atPath: abandoned))
    #expect(FileManager.default.fileExists(atPath: running))
  }
}
