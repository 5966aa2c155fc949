import Foundation
import TestSupport
import Testing

@testable import SearchIndex

/// An index file is trusted only when all of it is as it was written.
@Suite struct SearchIndexFileTests {
  static let origin = SearchIndex.Origin(source: 0xC0FFEE, generation: 42)

  /// A directory with a written index of 2,000 documents in it, kept while the test runs.
  let directory = TemporaryDirectory()

  /// The index file and its bytes.
  func writtenIndex() throws -> (directory: TemporaryDirectory, path: String, bytes: [UInt8]) {
    var generator = Generator(state: 11)
    let documents = (0..<2000).map { _ in SearchIndexPropertyTests.document(&generator) }
    let path = directory.path + "/search.index"
    try SearchIndex(documents).write(to: path, origin: Self.origin)
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    return (directory, path, bytes)
  }

  /// A large index is mapped to be read a page at a time where a search touches it (the
  /// kernel shows `rr` among the mapping's flags); a small one is left to the read-ahead window.
  @Test func onlyALargeIndexIsMappedForRandomReads() throws {
    let (_, path, _) = try writtenIndex()
    func flags(of file: MappedIndexFile) throws -> [Substring] {
      let start = String(UInt(bitPattern: file.address), radix: 16) + "-"
      // Read to its end: the kernel makes the file as it is read, and gives its size as 0.
      let reader = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
      let smaps = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        .split(separator: "\n")
      let mapping = try #require(smaps.firstIndex { $0.hasPrefix(start) })
      let line = try #require(smaps[mapping...].first { $0.hasPrefix("VmFlags:") })
      return line.split(separator: " ").dropFirst().map { $0 }
    }
    let small = try MappedIndexFile(path: path)
    #expect(try !flags(of: small).contains("rr"))
    let large = try MappedIndexFile(path: path, readingAroundUpTo: 0)
    #expect(try flags(of: large).contains("rr"))
  }

  /// A search that first touches a block of a long posting list, where the system has not
  /// cached it, asks for the blocks after it together (`MADV_WILLNEED`): in an index mapped for
  /// random reads, each would otherwise wait for its own read when a seek reached it.
  @Test(.enabled(if: pagesLeaveTheCache(), "the temporary directory keeps files in memory"))
  func aSearchAsksForThePostingsAheadTogether() throws {
    // One word in every title: its postings, four bytes a document, fill 40 blocks.
    let documents = (0..<40_000).map { SearchDocument(title: "rose \($0)", keywords: []) }
    let path = directory.path + "/long.index"
    try SearchIndex(documents).write(to: path, origin: Self.origin)
    let index = try SearchIndex(contentsOf: path, checkingWholeUpTo: 0, readingAroundUpTo: 0)
    let file = try #require(index.storage.file)
    let term = try #require(try index.position(of: Array("rose".utf8)))
    let postings = try index.postingRange(term: term, field: .title, checkingPostings: false)
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let start = index.storage.postings.fileOffset + postings.lowerBound * 4
    let end = index.storage.postings.fileOffset + postings.upperBound * 4
    let pages = (start / page)..<((end + page - 1) / page)
    func residentPages() -> Int {
      var resident = [UInt8](repeating: 0, count: pages.count)
      let address = UnsafeMutableRawPointer(mutating: file.address + pages.lowerBound * page)
      guard mincore(address, pages.count * page, &resident) == 0 else { return -1 }
      return resident.filter { $0 & 1 != 0 }.count
    }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    try #require(descriptor >= 0)
    _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED))
    close(descriptor)
    // A page already mapped stays: eviction passes it by.
    let before = residentPages()
    try #require(pages.count >= 32 && before <= 4)

    #expect(try index.search(SearchQuery("rose"), limit: 10).count == 10)
    // Touched alone, a page or two would be read; asked for ahead, the pages after them arrive
    // without the search waiting for them.
    let deadline = ContinuousClock.now + .seconds(5)
    while residentPages() < before + 16 && ContinuousClock.now < deadline { usleep(10_000) }
    #expect(residentPages() >= before + 16)
  }

  static func replace(_ path: String, with bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  /// Whether the file is refused: when opened, or, opened with blocks checked as read, by a
  /// full check.
  static func isRefused(_ path: String) -> Bool {
    do {
      _ = try SearchIndex(contentsOf: path)
    } catch {
      return true
    }
    do {
      try SearchIndex(contentsOf: path, checkingWholeUpTo: 0).verify()
    } catch {
      return true
    }
    return false
  }

  @Test func aWrittenIndexReadsBackWithItsOrigin() throws {
    let (directory, path, bytes) = try writtenIndex()
    let index = try SearchIndex(contentsOf: path)
    #expect(index.origin == Self.origin)
    #expect(index.count == 2000)
    #expect(index.memoryFootprint == 0)
    try index.verify()
    // The file is replaced by a rename: no temporary file is left beside it.
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["search.index"])
    let header = try bytes.withUnsafeBytes { raw throws(SearchIndexError) in
      try IndexHeader(raw, size: bytes.count, path: path)
    }
    #expect(header.fileLength == bytes.count)
    #expect(header.dataStart % 4096 == 0)
  }

  @Test(arguments: [0, 1, 7, 8, 11, 100, 175, 179, 4096, 5000, -1])
  func aTruncatedFileIsRefused(length: Int) throws {
    let (_, path, bytes) = try writtenIndex()
    let kept = length < 0 ? bytes.count + length : length
    try Self.replace(path, with: Array(bytes.prefix(kept)))
    #expect(throws: SearchIndexError.self) { try SearchIndex(contentsOf: path) }
    if kept < 8 || kept > 180 {
      let error = try #require(throws: SearchIndexError.self) { try SearchIndex(contentsOf: path) }
      guard case .truncated = error else {
        Issue.record("\(error)")
        return
      }
    }
  }

  /// A flipped byte in the header, the block checksums, or any section is found.
  @Test func aFlippedByteAnywhereIsFound() throws {
    let (_, path, bytes) = try writtenIndex()
    let header = try bytes.withUnsafeBytes { raw throws(SearchIndexError) in
      try IndexHeader(raw, size: bytes.count, path: path)
    }
    var offsets = [20, 40, 48, 70, IndexHeader.fixedLength + 2, header.length - 2]
    for section in header.sections where !section.isEmpty {
      offsets += [
        section.lowerBound, section.lowerBound + section.count / 2, section.upperBound - 1,
      ]
    }
    for offset in offsets {
      var damaged = bytes
      damaged[offset] ^= 0x10
      try Self.replace(path, with: damaged)
      #expect(Self.isRefused(path), "a flipped byte at \(offset)")
    }
    try Self.replace(path, with: bytes)
    #expect(!Self.isRefused(path))
  }

  @Test func aSearchThatReadsADamagedBlockThrows() throws {
    let (_, path, bytes) = try writtenIndex()
    let header = try bytes.withUnsafeBytes { raw throws(SearchIndexError) in
      try IndexHeader(raw, size: bytes.count, path: path)
    }
    var damaged = bytes
    // The text of the first documents: a search reads it to check its results.
    damaged[header.sections[4].lowerBound + 3] ^= 0x01
    try Self.replace(path, with: damaged)
    let index = try SearchIndex(contentsOf: path, checkingWholeUpTo: 0)
    #expect(throws: SearchIndexError.self) {
      for word in SearchIndexPropertyTests.words {
        _ = try index.search(SearchQuery(word), limit: 2000)
      }
    }
  }

  /// A search checks the blocks of a posting list it reads, not the whole list: the best
  /// results of a common word come from the start of its list, and its end is read only by a
  /// search that needs it (which still finds the damage there).
  @Test func aSearchChecksOnlyThePostingsItReads() throws {
    let documents = (0..<20_000).map { number in
      SearchDocument(title: number == 19_999 ? "Rose Zinnia" : "Rose \(number)")
    }
    let path = directory.path + "/search.index"
    try SearchIndex(documents).write(to: path, origin: Self.origin)
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let written = try SearchIndex(contentsOf: path, checkingWholeUpTo: 0)
    let rose = try #require(try written.position(of: Array("rose".utf8)))
    let postings = try written.postingRange(term: rose, field: .title)
    #expect(postings.count == 20_000)
    var damaged = bytes
    let last = written.storage.postings.fileOffset + 4 * (postings.upperBound - 1)
    damaged[last] ^= 0x01
    try Self.replace(path, with: damaged)

    let index = try SearchIndex(contentsOf: path, checkingWholeUpTo: 0)
    let hits = try index.search(SearchQuery("rose"), limit: 10)
    #expect(hits.map(\.document) == Array(0..<10))
    #expect(throws: SearchIndexError.self) {
      _ = try index.search(SearchQuery("rose zinnia"), limit: 10)
    }
    #expect(throws: SearchIndexError.self) { try index.verify() }
  }

  /// Opening a file checks its header's fixed part, not the checksum of every block: a
  /// damaged block checksum is found when its block is read, as damage of the block would be.
  @Test func aDamagedBlockChecksumIsFoundWithItsBlock() throws {
    let (_, path, bytes) = try writtenIndex()
    let header = try bytes.withUnsafeBytes { raw throws(SearchIndexError) in
      try IndexHeader(raw, size: bytes.count, path: path)
    }
    var damaged = bytes
    damaged[IndexHeader.fixedLength + 4 * (header.blockCount - 1)] ^= 0x01
    try Self.replace(path, with: damaged)
    let index = try SearchIndex(contentsOf: path, checkingWholeUpTo: 0)
    #expect(throws: SearchIndexError.self) { try index.verify() }
    #expect(Self.isRefused(path))
  }

  /// A file of version 2, whose header checksum covers the block checksums too, is read.
  @Test func aVersionTwoFileIsRead() throws {
    let (_, path, bytes) = try writtenIndex()
    let current = try SearchIndex(contentsOf: path)
    let header = try bytes.withUnsafeBytes { raw throws(SearchIndexError) in
      try IndexHeader(raw, size: bytes.count, path: path)
    }
    var older = bytes
    older[8] = 2
    let length = header.length
    let crc = older[..<(length - 4)].withUnsafeBytes { checksum($0) }
    withUnsafeBytes(of: crc.littleEndian) { older.replaceSubrange((length - 4)..<length, with: $0) }
    try Self.replace(path, with: older)
    let index = try SearchIndex(contentsOf: path)
    try index.verify()
    for word in SearchIndexPropertyTests.words {
      let query = try SearchQuery(word)
      #expect(try index.search(query, limit: 20) == current.search(query, limit: 20))
    }
    // Its header checked as version 3's is not, nor the other way round.
    older[8] = 3
    try Self.replace(path, with: older)
    #expect(Self.isRefused(path))
  }

  @Test func otherFilesAreRefusedByName() throws {
    let (_, path, bytes) = try writtenIndex()
    try Self.replace(path, with: [])
    #expect(throws: SearchIndexError.truncated(path: path, size: 0, expected: 176)) {
      try SearchIndex(contentsOf: path)
    }
    try Self.replace(path, with: Array("SQLite format 3\u{0}".utf8) + bytes.dropFirst(16))
    #expect(throws: SearchIndexError.notAnIndex(path: path)) { try SearchIndex(contentsOf: path) }
    var older = bytes
    older[8] = 0
    try Self.replace(path, with: older)
    #expect(
      throws: SearchIndexError.unsupportedVersion(
        path: path, found: 0, supported: SearchIndex.fileFormatVersion)
    ) {
      try SearchIndex(contentsOf: path)
    }
    try FileManager.default.removeItem(atPath: path)
    #expect(throws: SearchIndexError.missing(path: path)) { try SearchIndex(contentsOf: path) }
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    #expect(throws: SearchIndexError.self) { try SearchIndex(contentsOf: path) }
  }

  /// A file whose checksums all match but whose contents are wrong (made on purpose, or by a
  /// bug) is never a crash: each search throws or answers.
  @Test func aConsistentButWrongFileNeverCrashes() throws {
    let (_, path, bytes) = try writtenIndex()
    var header = try bytes.withUnsafeBytes { raw throws(SearchIndexError) in
      try IndexHeader(raw, size: bytes.count, path: path)
    }
    var generator = Generator(state: 3)
    for round in 0..<40 {
      var damaged = bytes
      for _ in 0..<(1 + round % 4) {
        let section = header.sections[Int.random(in: 0..<6, using: &generator)]
        guard !section.isEmpty else { continue }
        let offset = Int.random(in: section, using: &generator)
        damaged[offset] = UInt8.random(in: 0...255, using: &generator)
      }
      // Checksums that match the damage.
      header.blockChecksums = (0..<header.blockCount).map { block in
        let start = header.dataStart + block * IndexHeader.blockSize
        let end = min(start + IndexHeader.blockSize, damaged.count)
        return damaged[start..<end].withUnsafeBytes { checksum($0) }
      }
      let encoded = header.encoded(blockChecksums: header.blockChecksums)
      damaged.replaceSubrange(0..<encoded.count, with: encoded)
      try Self.replace(path, with: damaged)
      guard let index = try? SearchIndex(contentsOf: path) else { continue }
      for _ in 0..<20 {
        guard let query = try? SearchQuery(SearchIndexPropertyTests.query(&generator)) else {
          continue
        }
        _ = try? index.search(query, limit: 10)
      }
    }
  }

  /// A header whose numbers are anything at all, its checksum made to match: the file is
  /// refused or opened and searched, and no arithmetic on a number it holds traps.
  @Test(arguments: [32, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160])
  func aHeaderNumberOfAnySizeNeverTraps(offset: Int) throws {
    let (_, path, bytes) = try writtenIndex()
    let header = try bytes.withUnsafeBytes { raw throws(SearchIndexError) in
      try IndexHeader(raw, size: bytes.count, path: path)
    }
    let length = header.length
    let values: [UInt64] = [
      .max, UInt64(Int.max), UInt64(Int.max) - 1, 1 << 62, 1 << 63, UInt64(bytes.count),
      UInt64(bytes.count) - 1,
    ]
    for value in values {
      var damaged = bytes
      withUnsafeBytes(of: value.littleEndian) {
        damaged.replaceSubrange(offset..<offset + 8, with: $0)
      }
      let crc = damaged[..<IndexHeader.fixedLength].withUnsafeBytes { checksum($0) }
      withUnsafeBytes(of: crc.littleEndian) {
        damaged.replaceSubrange((length - 4)..<length, with: $0)
      }
      try Self.replace(path, with: damaged)
      #expect(Self.isRefused(path), "offset \(offset) = \(value)")
    }
  }

  @Test func aFailedWriteLeavesTheFileAsItWas() throws {
    let (directory, path, bytes) = try writtenIndex()
    let index = SearchIndex([SearchDocument(title: "Quince")])
    // A directory where the file should go cannot be renamed over.
    let blocked = directory.path + "/blocked"
    try FileManager.default.createDirectory(
      atPath: blocked + "/inside", withIntermediateDirectories: true)
    #expect(throws: SearchIndexError.self) {
      try index.write(to: blocked, origin: Self.origin)
    }
    #expect(throws: SearchIndexError.self) {
      try index.write(to: directory.path + "/missing/search.index", origin: Self.origin)
    }
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        == ["blocked", "search.index"])
  }
}

/// Whether the temporary directory's files leave the page cache when asked to (not on a file
/// system kept in memory): a page written, flushed and let go is no longer there.
private func pagesLeaveTheCache() -> Bool {
  let path = NSTemporaryDirectory() + "catalog-tests-cache-" + UUID().uuidString
  let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
  guard descriptor >= 0 else { return false }
  defer {
    close(descriptor)
    unlink(path)
  }
  let page = Int(sysconf(Int32(_SC_PAGESIZE)))
  let bytes = [UInt8](repeating: 1, count: page)
  guard write(descriptor, bytes, page) == page, fsync(descriptor) == 0,
    posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED)) == 0,
    let address = mmap(nil, page, PROT_READ, MAP_SHARED, descriptor, 0), address != MAP_FAILED
  else { return false }
  defer { munmap(address, page) }
  var resident: UInt8 = 1
  return mincore(address, page, &resident) == 0 && resident & 1 == 0
}
