import CZlib
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What an index reads: its six arrays, in memory after a build or mapped from a file.
///
/// A mapped index is read through its checksums: each block of the file is checked against the
/// block's CRC-32 the first time any of it is read, and every offset read is checked against
/// its section's bounds, so a damaged file gives ``SearchIndexError/damaged(path:reason:)`` and
/// never a wrong answer or a crash.
final class IndexStorage: @unchecked Sendable {
  // Immutable after `init`; the verified-blocks bitmap is atomic.

  /// The number of documents.
  let documentCount: Int
  let termBytes: Section<UInt8>
  let termOffsets: Section<UInt32>
  let postings: Section<UInt32>
  let postingOffsets: Section<UInt32>
  let textBytes: Section<UInt8>
  let textOffsets: Section<UInt32>
  /// The file checked, or nil for an index built in memory, which is trusted.
  let file: MappedIndexFile?
  /// Memory allocated for a built index, freed with it, and its size.
  private let allocation: UnsafeMutableRawPointer?
  private let allocationSize: Int

  /// An index's arrays copied into one allocation, laid out as in a file.
  init(
    documentCount: Int, termBytes: [UInt8], termOffsets: [UInt32], postings: [UInt32],
    postingOffsets: [UInt32], textBytes: [UInt8], textOffsets: [UInt32]
  ) {
    let layout = SectionLayout(
      lengths: [
        termBytes.count, 4 * termOffsets.count, 4 * postings.count, 4 * postingOffsets.count,
        textBytes.count, 4 * textOffsets.count,
      ], start: 0)
    let memory = UnsafeMutableRawPointer.allocate(byteCount: max(layout.end, 8), alignment: 8)
    memory.initializeMemory(as: UInt8.self, repeating: 0, count: max(layout.end, 8))
    func copy<T>(_ array: [T], _ section: Int) {
      array.withUnsafeBytes { bytes in
        UnsafeMutableRawBufferPointer(
          start: memory + layout.ranges[section].lowerBound, count: bytes.count
        ).copyMemory(from: bytes)
      }
    }
    copy(termBytes, 0)
    copy(termOffsets, 1)
    copy(postings, 2)
    copy(postingOffsets, 3)
    copy(textBytes, 4)
    copy(textOffsets, 5)
    allocation = memory
    allocationSize = max(layout.end, 8)
    file = nil
    self.documentCount = documentCount
    let base = UnsafeRawPointer(memory)
    self.termBytes = Section(base, layout.ranges[0], fileOffset: 0)
    self.termOffsets = Section(base, layout.ranges[1], fileOffset: 0)
    self.postings = Section(base, layout.ranges[2], fileOffset: 0)
    self.postingOffsets = Section(base, layout.ranges[3], fileOffset: 0)
    self.textBytes = Section(base, layout.ranges[4], fileOffset: 0)
    self.textOffsets = Section(base, layout.ranges[5], fileOffset: 0)
  }

  /// A mapped file's sections; the file's header has been checked.
  init(file: MappedIndexFile) {
    self.file = file
    allocation = nil
    allocationSize = 0
    documentCount = file.header.documentCount
    let ranges = file.header.sections
    let bytes = file.address
    termBytes = Section(bytes, ranges[0], fileOffset: ranges[0].lowerBound)
    termOffsets = Section(bytes, ranges[1], fileOffset: ranges[1].lowerBound)
    postings = Section(bytes, ranges[2], fileOffset: ranges[2].lowerBound)
    postingOffsets = Section(bytes, ranges[3], fileOffset: ranges[3].lowerBound)
    textBytes = Section(bytes, ranges[4], fileOffset: ranges[4].lowerBound)
    textOffsets = Section(bytes, ranges[5], fileOffset: ranges[5].lowerBound)
  }

  deinit {
    allocation?.deallocate()
  }

  /// The sections in file order, as raw bytes.
  var sections: [UnsafeRawBufferPointer] {
    [
      termBytes.raw, termOffsets.raw, postings.raw, postingOffsets.raw, textBytes.raw,
      textOffsets.raw,
    ]
  }

  /// The bytes the index holds in memory: all of them when built, none when mapped (the page
  /// cache holds those).
  var allocatedBytes: Int { allocationSize }

  /// Checks that elements of a section may be read: their blocks' checksums, once each.
  @inline(__always)
  func check<T>(_ section: Section<T>, _ range: Range<Int>) throws(SearchIndexError) {
    guard let file, !range.isEmpty else { return }
    try file.verify(
      bytes: (section.fileOffset + range.lowerBound * MemoryLayout<T>.stride)..<(section.fileOffset
        + range.upperBound * MemoryLayout<T>.stride))
  }

  /// Asks the system to read ahead the pages of several ranges of a section, all at once,
  /// before any is touched; nothing for an index in memory.
  func prefetch<T>(_ section: Section<T>, _ ranges: [Range<Int>]) {
    guard let file else { return }
    let stride = MemoryLayout<T>.stride
    for range in ranges where !range.isEmpty && range.upperBound <= section.count {
      file.prefetch(
        bytes: (section.fileOffset + range.lowerBound * stride)..<(section.fileOffset
          + range.upperBound * stride))
    }
  }

  /// Asks the system to read ahead the pages of a range of a section when the block of its
  /// first element was never checked here (so perhaps never read); nothing otherwise, and
  /// nothing for an index in memory.
  func readAhead<T>(_ section: Section<T>, _ range: Range<Int>) {
    guard let file, !range.isEmpty, range.upperBound <= section.count else { return }
    let stride = MemoryLayout<T>.stride
    file.readAhead(
      bytes: (section.fileOffset + range.lowerBound * stride)..<(section.fileOffset
        + range.upperBound * stride))
  }

  /// An offset read from an offsets section, checked to lie within the section it points into.
  @inline(__always)
  func offset(
    _ offsets: Section<UInt32>, _ index: Int, within limit: Int
  ) throws(SearchIndexError) -> Int {
    guard index >= 0, index < offsets.count else { throw damage("an offset is out of range") }
    try check(offsets, index..<(index + 1))
    let value = Int(offsets.pointer[index])
    guard value <= limit else { throw damage("an offset points past its section") }
    return value
  }

  /// A range of a section from two consecutive offsets, checked.
  @inline(__always)
  func range(
    _ offsets: Section<UInt32>, _ index: Int, within limit: Int
  ) throws(SearchIndexError) -> Range<Int> {
    let start = try offset(offsets, index, within: limit)
    let end = try offset(offsets, index + 1, within: limit)
    guard start <= end else { throw damage("its offsets are out of order") }
    return start..<end
  }

  /// The error for a file whose contents contradict themselves.
  func damage(_ reason: String) -> SearchIndexError {
    .damaged(path: file?.path ?? "", reason: reason)
  }
}

/// One array of an index: elements at an aligned place in memory.
struct Section<Element>: @unchecked Sendable {
  let pointer: UnsafePointer<Element>
  let count: Int
  /// Where the section starts in its file.
  let fileOffset: Int

  init(_ base: UnsafeRawPointer, _ range: Range<Int>, fileOffset: Int) {
    pointer = (base + range.lowerBound).assumingMemoryBound(to: Element.self)
    count = range.count / MemoryLayout<Element>.stride
    self.fileOffset = fileOffset
  }

  var buffer: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: pointer, count: count) }

  var raw: UnsafeRawBufferPointer { UnsafeRawBufferPointer(buffer) }
}

/// Where sections of given lengths go: one after another, each at a multiple of 8.
struct SectionLayout {
  var ranges: [Range<Int>] = []
  var end: Int

  init(lengths: [Int], start: Int) {
    var position = start
    for length in lengths {
      position = (position + 7) & ~7
      ranges.append(position..<(position + length))
      position += length
    }
    end = position
  }
}

/// Which blocks of a mapped file have been checked, one bit each, set atomically: blocks are
/// checked once, by whichever thread reads them first.
final class VerifiedBlocks: @unchecked Sendable {
  private let words: UnsafeMutablePointer<Atomic<UInt64>>
  private let wordCount: Int

  init(blocks: Int) {
    wordCount = (blocks + 63) / 64
    words = .allocate(capacity: max(wordCount, 1))
    for index in 0..<max(wordCount, 1) { (words + index).initialize(to: Atomic(0)) }
  }

  deinit {
    words.deinitialize(count: max(wordCount, 1))
    words.deallocate()
  }

  @inline(__always)
  func contains(_ block: Int) -> Bool {
    words[block >> 6].load(ordering: .relaxed) & (1 << UInt64(block & 63)) != 0
  }

  func insert(_ block: Int) {
    words[block >> 6].bitwiseOr(1 << UInt64(block & 63), ordering: .relaxed)
  }
}

/// CRC-32 (zlib's) of some bytes, continuing from an earlier value.
func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
  guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
  var value = UInt(crc)
  var remaining = bytes.count
  var pointer = base.assumingMemoryBound(to: UInt8.self)
  // zlib takes lengths as a C unsigned int.
  while remaining > 0 {
    let length = min(remaining, 1 << 30)
    value = UInt(crc32(uLong(value), pointer, uInt(length)))
    pointer += length
    remaining -= length
  }
  return UInt32(truncatingIfNeeded: value)
}
