import Foundation
import SystemSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What went wrong with a query or an index file: the library's one error type. A file in any
/// of its states is never used: build the index again and write it over the file.
public enum SearchIndexError: Error, Sendable, Hashable {
  /// The query has no words to search for.
  case emptyQuery
  /// The query is longer than the limit, in bytes.
  case queryTooLong(bytes: Int, limit: Int)
  /// The query has more terms than the limit.
  case tooManyTerms(count: Int, limit: Int)
  /// The file does not exist.
  case missing(path: String)
  /// The file cannot be read or mapped.
  case cannotRead(path: String, reason: String)
  /// The file does not start as a search index does.
  case notAnIndex(path: String)
  /// The file is shorter than its header says, or empty.
  case truncated(path: String, size: Int, expected: Int)
  /// The file is in a format version this program does not read.
  case unsupportedVersion(path: String, found: Int, supported: Int)
  /// A checksum does not match, or the contents contradict themselves.
  case damaged(path: String, reason: String)
  /// The file cannot be written; the file that was there, if any, is unchanged.
  case cannotWrite(path: String, reason: String)
}

extension SearchIndexError: CustomStringConvertible, LocalizedError {
  /// Whether the error is the query's (empty, too long, too many terms), not the index's:
  /// building the index again changes nothing.
  public var isAboutTheQuery: Bool {
    switch self {
    case .emptyQuery, .queryTooLong, .tooManyTerms: true
    default: false
    }
  }

  /// What is wrong, in a line.
  public var errorDescription: String? { description }

  /// What is wrong, in a line.
  public var description: String {
    switch self {
    case .emptyQuery:
      "the query has no words to search for; type a word, such as 'cherries'"
    case .queryTooLong(let bytes, let limit):
      "the query is too long (\(bytes) bytes; the limit is \(limit)); search for fewer words"
    case .tooManyTerms(let count, let limit):
      "the query has \(count) terms; the limit is \(limit)"
    case .missing(let path): "the search index '\(path)' does not exist"
    case .cannotRead(let path, let reason): "cannot read the search index '\(path)': \(reason)"
    case .notAnIndex(let path): "'\(path)' is not a search index"
    case .truncated(let path, let size, let expected):
      size == 0
        ? "the search index '\(path)' is empty"
        : "the search index '\(path)' is truncated (\(size) bytes of \(expected))"
    case .unsupportedVersion(let path, let found, let supported):
      "the search index '\(path)' is in format \(found); this program reads format \(supported)"
    case .damaged(let path, let reason): "the search index '\(path)' is damaged: \(reason)"
    case .cannotWrite(let path, let reason): "cannot write the search index '\(path)': \(reason)"
    }
  }
}

extension SearchIndex {
  /// What an index file was built from: the identity of its source (a catalog, say) and the
  /// source's generation then. Whoever opens the file compares it with the source now.
  public struct Origin: Sendable, Hashable {
    /// A number that identifies the source, such as a random one made with it.
    public var source: UInt64
    /// The source's generation, a number that grows with every change.
    public var generation: UInt64

    /// Creates an origin.
    public init(source: UInt64, generation: UInt64) {
      self.source = source
      self.generation = generation
    }
  }

  /// The current file format version: 3 since the header's checksum covers its fixed part
  /// alone (the block checksums after it are checked with their blocks), so that opening a
  /// large file does not read all of them; 2 since text is case folded (`ß` is `ss`), which a
  /// file of version 1 did not do for its stored text.
  public static let fileFormatVersion = 3

  /// The earliest version this program reads: a file of version 2 differs only in what its
  /// header's checksum covers.
  static let earliestReadableVersion = 2

  /// Where the index was read from, if it was: the file's origin.
  public var origin: Origin? { storage.file?.header.origin }

  /// Whether the file the index was read from was changed in place since (written to, cut
  /// short): it must then be opened again before it is searched, as a read past a new end would
  /// kill the process and blocks already checked would not be checked again. False for an index
  /// built in memory. Costs one `fstat`.
  public var fileHasChanged: Bool { storage.file?.hasChanged ?? false }

  /// Writes the index to a file, atomically and durably: into a temporary file beside it
  /// (`.NAME.PID.RANDOM.tmp`), which is synchronized, renamed over the file, and the directory
  /// synchronized. A failure leaves the file as it was.
  ///
  /// Documents changed since the index was built (``update(_:at:)``) are not written: write an
  /// index built anew.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - origin: What the index was built from, kept in the file's header.
  /// - Throws: ``SearchIndexError/cannotWrite(path:reason:)``.
  public func write(to path: String, origin: Origin) throws(SearchIndexError) {
    let sections = storage.sections
    try Self.writeFile(
      to: path, documentCount: baseCount, origin: origin, sectionLengths: sections.map(\.count)
    ) { (section, put) throws(SearchIndexError) in
      try put(sections[section])
    }
  }

  /// Writes an index file atomically and durably from its sections' bytes, produced in order
  /// a piece at a time, so that no section need be held whole: each block's checksum is made as
  /// its bytes go by, and the header, written last at the start, holds them.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - documentCount: The number of documents.
  ///   - origin: What the index was built from.
  ///   - sectionLengths: Each of the six sections' length in bytes.
  ///   - produce: Called for each section in order, with where to put its bytes; it must put
  ///     exactly the section's length.
  /// - Throws: ``SearchIndexError/cannotWrite(path:reason:)``, or what `produce` throws.
  static func writeFile(
    to path: String, documentCount: Int, origin: Origin, sectionLengths: [Int],
    produce: (
      _ section: Int, _ put: (UnsafeRawBufferPointer) throws(SearchIndexError) -> Void
    ) throws(SearchIndexError) -> Void
  ) throws(SearchIndexError) {
    func failure(_ what: String) -> SearchIndexError {
      .cannotWrite(path: path, reason: "\(what): \(String(cString: strerror(errno)))")
    }
    // Private like every other file of the app (the index holds every product's text), and
    // durable as every file of the package is written: streamed beside the old one, flushed,
    // renamed into place, its directory flushed.
    do {
      try DurableFile.prepare(for: path) { descriptor throws(SearchIndexError) in
        let header = IndexHeader(
          documentCount: documentCount, origin: origin, sectionLengths: sectionLengths)
        var crcs = [UInt32](repeating: 0, count: header.blockCount)
        // The data first, after room for the header, with each block's checksum.
        var position = header.dataStart
        var block = 0
        var blockFill = 0
        var crc: UInt32 = 0
        let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 8)
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        defer { zeros.deallocate() }
        func put(_ bytes: UnsafeRawBufferPointer) throws(SearchIndexError) {
          var rest = bytes
          while !rest.isEmpty {
            let count = min(rest.count, IndexHeader.blockSize - blockFill)
            let piece = UnsafeRawBufferPointer(rebasing: rest[..<count])
            crc = checksum(piece, continuing: crc)
            blockFill += count
            if blockFill == IndexHeader.blockSize {
              crcs[block] = crc
              (block, blockFill, crc) = (block + 1, 0, 0)
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
          }
          try writeAll(descriptor, bytes, at: position, failure)
          position += bytes.count
        }
        for (index, section) in header.sections.enumerated() {
          let padding = section.lowerBound - position
          if padding > 0 { try put(UnsafeRawBufferPointer(rebasing: zeros[..<padding])) }
          try produce(index, put)
          guard position == section.upperBound else {
            throw .cannotWrite(
              path: path,
              reason:
                "section \(index) came to \(position - section.lowerBound) bytes of \(section.count)"
            )
          }
        }
        if blockFill > 0 { crcs[block] = crc }
        let headerBytes = header.encoded(blockChecksums: crcs)
        let headerWritten = headerBytes.withUnsafeBytes { bytes in
          (try? writeAll(descriptor, bytes, at: 0, failure)) != nil
        }
        guard headerWritten else { throw failure("cannot write") }
        guard ftruncate(descriptor, off_t(header.fileLength)) == 0 else {
          throw failure("cannot size the file")
        }
      }.commit()
    } catch let error as SearchIndexError {
      throw error
    } catch let SystemError.cannotWrite(_, reason) {
      throw .cannotWrite(path: path, reason: reason)
    } catch {
      throw .cannotWrite(path: path, reason: "\(error)")
    }
  }

  /// Opens an index file by mapping it into memory: opening costs the same for any size.
  ///
  /// The header (a magic number, the format version, the ``origin``, the sections and a
  /// checksum of each 4 KiB block) is checked now, with its own checksum; small files are
  /// checked whole. In larger ones each block is checked the first time a search reads from it,
  /// and a search that meets a damaged block throws ``SearchIndexError/damaged(path:reason:)``;
  /// ``verify()`` checks them all. The file must not be changed in place while it is open;
  /// ``write(to:origin:)`` replaces it with a new file instead.
  ///
  /// - Parameter path: The file.
  /// - Throws: ``SearchIndexError``.
  public init(contentsOf path: String) throws(SearchIndexError) {
    try self.init(contentsOf: path, checkingWholeUpTo: MappedIndexFile.checkedWholeUpTo)
  }

  /// Opens an index file, checking it whole when it is no larger than a size, and leaving it
  /// to the system's read-ahead window when no larger than another.
  init(
    contentsOf path: String, checkingWholeUpTo limit: Int,
    readingAroundUpTo readAroundLimit: Int = MappedIndexFile.readAroundUpTo
  ) throws(SearchIndexError) {
    let file = try MappedIndexFile(path: path, readingAroundUpTo: readAroundLimit)
    if file.bytes.count <= limit {
      try file.verify(bytes: file.header.dataStart..<file.header.fileLength)
    }
    let storage = IndexStorage(file: file)
    try self.init(storage: storage)
  }

  /// Checks every block of a mapped index against its checksum; an index built in memory has
  /// nothing to check.
  ///
  /// - Throws: ``SearchIndexError/damaged(path:reason:)``.
  public func verify() throws(SearchIndexError) {
    guard let file = storage.file else { return }
    try file.verify(bytes: file.header.dataStart..<file.header.fileLength)
  }
}

/// Writes all of some bytes at an offset.
private func writeAll(
  _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int,
  _ failure: (String) -> SearchIndexError
) throws(SearchIndexError) {
  guard let base = bytes.baseAddress else { return }
  var done = 0
  while done < bytes.count {
    let count = pwrite(descriptor, base + done, bytes.count - done, off_t(offset + done))
    if count < 0 && errno == EINTR { continue }
    guard count > 0 else { throw failure("cannot write") }
    done += count
  }
}

/// An index file's header: the magic number, the format version, the origin, where the six
/// sections are, and a CRC-32 of every 4 KiB block after it, all little-endian; then a CRC-32
/// of the header's fixed part (version 2: of the whole header before it).
///
/// A block checksum needs no checksum of its own: one changed by damage no longer matches its
/// block, which is then refused as damaged when it is read.
struct IndexHeader {
  static let magic: [UInt8] = [0x89, 0x53, 0x49, 0x44, 0x58, 0x0D, 0x0A, 0x1A]  // \x89SIDX\r\n\x1A
  static let blockSize = 4096
  static let sectionCount = 6
  /// The fixed part, before the block checksums.
  static let fixedLength = 176

  var documentCount: Int
  var origin: SearchIndex.Origin
  var sections: [Range<Int>]
  var dataStart: Int
  var fileLength: Int
  /// Each block's CRC-32, when writing; a file read keeps them where they are, after the fixed
  /// part of its header.
  var blockChecksums: [UInt32] = []

  var blockCount: Int { (fileLength - dataStart + Self.blockSize - 1) / Self.blockSize }
  var length: Int { Self.fixedLength + 4 * blockCount + 4 }

  /// The header of a new file with sections of these lengths.
  init(documentCount: Int, origin: SearchIndex.Origin, sectionLengths: [Int]) {
    self.documentCount = documentCount
    self.origin = origin
    let dataLength = SectionLayout(lengths: sectionLengths, start: 0).end
    let blocks = (dataLength + Self.blockSize - 1) / Self.blockSize
    dataStart = (Self.fixedLength + 4 * blocks + 4 + Self.blockSize - 1) & ~(Self.blockSize - 1)
    let layout = SectionLayout(lengths: sectionLengths, start: dataStart)
    sections = layout.ranges
    fileLength = layout.end
  }

  func encoded(blockChecksums: [UInt32]) -> [UInt8] {
    var bytes = Self.magic
    func append<T: FixedWidthInteger>(_ value: T) {
      withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    append(UInt32(SearchIndex.fileFormatVersion))
    append(UInt32(Self.blockSize))
    append(UInt64(length))
    append(UInt64(fileLength))
    append(UInt64(documentCount))
    append(origin.source)
    append(origin.generation)
    append(UInt32(Self.sectionCount))
    append(UInt32(0))
    for section in sections {
      append(UInt64(section.lowerBound))
      append(UInt64(section.count))
    }
    append(UInt64(dataStart))
    append(UInt64(blockChecksums.count))
    let fixedPart = bytes.withUnsafeBytes { checksum($0) }
    for crc in blockChecksums { append(crc) }
    append(fixedPart)
    return bytes
  }

  /// Reads and checks a header from the start of a file of `size` bytes.
  init(_ bytes: UnsafeRawBufferPointer, size: Int, path: String) throws(SearchIndexError) {
    func integer<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
      T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }
    guard size >= Self.magic.count, bytes.prefix(Self.magic.count).elementsEqual(Self.magic)
    else {
      // A start of the magic number alone is a file cut short.
      if size < Self.magic.count, bytes.elementsEqual(Self.magic.prefix(size)) {
        throw .truncated(path: path, size: size, expected: Self.fixedLength)
      }
      throw .notAnIndex(path: path)
    }
    guard size >= 12 else { throw .truncated(path: path, size: size, expected: Self.fixedLength) }
    let version = Int(integer(8, UInt32.self))
    guard (SearchIndex.earliestReadableVersion...SearchIndex.fileFormatVersion).contains(version)
    else {
      throw .unsupportedVersion(
        path: path, found: version, supported: SearchIndex.fileFormatVersion)
    }
    guard size >= Self.fixedLength + 4 else {
      throw .truncated(path: path, size: size, expected: Self.fixedLength + 4)
    }
    func damaged(_ reason: String) -> SearchIndexError { .damaged(path: path, reason: reason) }
    let declaredLength = integer(16, UInt64.self)
    let declaredFileLength = integer(24, UInt64.self)
    let blockCount = integer(168, UInt64.self)
    // Every number is checked against a bound before arithmetic on it: a header can be made
    // with any bytes and a matching checksum, and arithmetic that overflows would trap.
    guard integer(12, UInt32.self) == UInt32(Self.blockSize),
      blockCount < UInt64(Int.max) / 8,
      declaredLength == UInt64(Self.fixedLength) + 4 * blockCount + 4,
      declaredFileLength < UInt64(Int.max) / 4, declaredLength <= declaredFileLength
    else { throw damaged("its header does not add up") }
    let length = Int(declaredLength)
    let fileLength = Int(declaredFileLength)
    self.fileLength = fileLength
    guard size >= length, size >= fileLength else {
      throw .truncated(path: path, size: size, expected: max(length, fileLength))
    }
    let stored = integer(length - 4, UInt32.self)
    let covered = version >= 3 ? Self.fixedLength : length - 4
    guard checksum(UnsafeRawBufferPointer(rebasing: bytes[..<covered])) == stored else {
      throw damaged("its header's checksum does not match")
    }
    guard size == fileLength else { throw damaged("it has bytes past its end") }
    // Offsets and counts past the file's length are damage; below it, no sum of two overflows.
    func bounded(_ offset: Int) throws(SearchIndexError) -> Int {
      let value = integer(offset, UInt64.self)
      guard value <= UInt64(fileLength) else { throw damaged("its section table does not add up") }
      return Int(value)
    }
    let documentCount = try bounded(32)
    self.documentCount = documentCount
    origin = SearchIndex.Origin(
      source: integer(40, UInt64.self), generation: integer(48, UInt64.self))
    let dataStart = try bounded(160)
    self.dataStart = dataStart
    var sections: [Range<Int>] = []
    for index in 0..<Self.sectionCount {
      let start = try bounded(64 + 16 * index)
      sections.append(start..<(start + (try bounded(72 + 16 * index))))
    }
    self.sections = sections
    // A checksum proves the header is as written; these prove it was written by this format.
    var previousEnd = dataStart
    for (index, section) in sections.enumerated() {
      let wordSized = index != 0 && index != 4
      guard section.lowerBound >= previousEnd, section.upperBound <= fileLength,
        section.lowerBound % 8 == 0, !wordSized || section.count % 4 == 0
      else { throw damaged("its section table does not add up") }
      previousEnd = section.upperBound
    }
    guard integer(56, UInt32.self) == UInt32(Self.sectionCount), dataStart >= length,
      dataStart % Self.blockSize == 0, blockCount == UInt64(self.blockCount),
      documentCount < fileLength / 4, sections[5].count == 4 * (documentCount + 1),
      sections[1].count >= 4, sections[1].count <= fileLength / 2,
      sections[3].count == 2 * sections[1].count - 4
    else { throw damaged("its section table does not add up") }
  }
}

/// A file mapped read-only, with its header checked and its blocks checked as they are read.
final class MappedIndexFile: @unchecked Sendable {
  /// Files up to this size are checked whole when opened.
  static let checkedWholeUpTo = 1 << 20
  /// Files up to this size (an index of about two million products) are read a read-ahead
  /// window at a time; larger ones a page at a time, and what a search asks for ahead.
  static let readAroundUpTo = 128 << 20

  let path: String
  /// Where the file is mapped.
  let address: UnsafeRawPointer
  let bytes: UnsafeRawBufferPointer
  let header: IndexHeader
  private let verified: VerifiedBlocks
  /// The mapped file, kept open to tell whether it changed (``hasChanged``).
  private let descriptor: Int32
  /// The file's size and times when it was mapped.
  private let mappedStatus: FileStamp

  /// Maps a file and checks its header.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - readAroundLimit: The largest file left to the system's read-ahead window; a larger
  ///     one is read a page at a time where it is touched.
  /// - Throws: ``SearchIndexError`` when the file cannot be read or its header is not right.
  init(path: String, readingAroundUpTo readAroundLimit: Int = readAroundUpTo)
    throws(SearchIndexError)
  {
    self.path = path
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard descriptor >= 0 else {
      if errno == ENOENT { throw .missing(path: path) }
      throw .cannotRead(path: path, reason: String(cString: strerror(errno)))
    }
    var isOpen = false
    defer { if !isOpen { close(descriptor) } }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw .cannotRead(path: path, reason: String(cString: strerror(errno)))
    }
    guard (status.st_mode & S_IFMT) == S_IFREG else {
      throw .cannotRead(path: path, reason: "it is not a regular file")
    }
    let size = Int(status.st_size)
    guard size > 0 else { throw .truncated(path: path, size: 0, expected: IndexHeader.fixedLength) }
    guard let address = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0),
      address != MAP_FAILED
    else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
    // In a large file, a page touched reads that page, not the system's read-ahead window
    // around it (megabytes on some disks): a search reads a few pages here and there, and asks
    // ahead for the long runs it needs and for the postings after a block it first touches
    // (`prefetch(bytes:)`, `readAhead(bytes:)`). A smaller file is left to the window, whose
    // few reads bring in most of it for the searches that follow.
    if size > readAroundLimit { _ = madvise(address, size, MADV_RANDOM) }
    let bytes = UnsafeRawBufferPointer(start: address, count: size)
    do {
      header = try IndexHeader(bytes, size: size, path: path)
    } catch {
      munmap(address, size)
      throw error
    }
    self.address = UnsafeRawPointer(address)
    self.bytes = bytes
    verified = VerifiedBlocks(blocks: header.blockCount)
    self.descriptor = descriptor
    mappedStatus = FileStamp(status)
    isOpen = true
  }

  deinit {
    munmap(UnsafeMutableRawPointer(mutating: address), bytes.count)
    close(descriptor)
  }

  /// Lets the pages read so far leave this process's memory; they stay in the page cache, and
  /// a later read maps them again.
  func releasePages() {
    _ = madvise(UnsafeMutableRawPointer(mutating: address), bytes.count, MADV_DONTNEED)
  }

  /// Whether the mapped file was changed in place since it was mapped: written, cut short or
  /// grown. Reading a page past a new end would raise `SIGBUS`, and blocks already checked
  /// would not be checked again, so a changed file must be opened again before the next read.
  /// One `fstat`; the index's own writes replace the file (a new inode), never change it.
  var hasChanged: Bool {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return true }
    return FileStamp(status) != mappedStatus
  }

  /// Asks the system to read the blocks holding a range of the file's bytes ahead, in one
  /// request, rather than a page at a time as each is touched. A posting list of a common word
  /// at ten million documents is megabytes, which page faults alone read from a cold disk one
  /// page at a time; and the pages of several ranges asked for together are read
  /// together, where reading them one by one waits on the disk for each in turn.
  func prefetch(bytes range: Range<Int>) {
    guard !range.isEmpty, range.lowerBound >= header.dataStart else { return }
    let first = (range.lowerBound - header.dataStart) / IndexHeader.blockSize
    let last = (range.upperBound - 1 - header.dataStart) / IndexHeader.blockSize
    guard !verified.contains(first) || !verified.contains(last) else { return }
    willNeed(
      (header.dataStart + first * IndexHeader.blockSize)..<(header.dataStart + (last + 1)
        * IndexHeader.blockSize)
    )
    // And their checksums, which checking each block reads first.
    willNeed(
      (IndexHeader.fixedLength + 4 * first)..<(IndexHeader.fixedLength + 4 * (last + 1)))
  }

  /// Asks the system to read the blocks holding a range of the file's bytes ahead, as
  /// ``prefetch(bytes:)`` does, when the first of them was never checked: what was checked was
  /// read, and is likely still cached.
  func readAhead(bytes range: Range<Int>) {
    guard !range.isEmpty, range.lowerBound >= header.dataStart else { return }
    guard !verified.contains((range.lowerBound - header.dataStart) / IndexHeader.blockSize)
    else { return }
    prefetch(bytes: range)
  }

  /// Asks the system to read the pages of a range of the file ahead, without waiting.
  private func willNeed(_ range: Range<Int>) {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let start = range.lowerBound / page * page
    let end = min(range.upperBound, bytes.count)
    guard end > start else { return }
    _ = madvise(UnsafeMutableRawPointer(mutating: address + start), end - start, MADV_WILLNEED)
  }

  /// Checks the blocks holding a range of the file's bytes, each once.
  @inline(__always)
  func verify(bytes range: Range<Int>) throws(SearchIndexError) {
    let first = (range.lowerBound - header.dataStart) / IndexHeader.blockSize
    let last = (range.upperBound - 1 - header.dataStart) / IndexHeader.blockSize
    if last > first { prefetch(bytes: range) }
    for block in first...last where !verified.contains(block) {
      let start = header.dataStart + block * IndexHeader.blockSize
      let end = min(start + IndexHeader.blockSize, header.fileLength)
      let stored = UInt32(
        littleEndian: bytes.loadUnaligned(
          fromByteOffset: IndexHeader.fixedLength + 4 * block, as: UInt32.self))
      guard checksum(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) == stored else {
        throw .damaged(path: path, reason: "block \(block) does not match its checksum")
      }
      verified.insert(block)
    }
  }
}

/// What tells a file's contents changed: its size, and the times of its last write and of its
/// last change of any kind (which no program can set back).
struct FileStamp: Equatable {
  let size: Int
  let modified: timespec
  let changed: timespec

  init(_ status: stat) {
    size = Int(status.st_size)
    modified = status.st_mtim
    changed = status.st_ctim
  }

  static func == (lhs: FileStamp, rhs: FileStamp) -> Bool {
    lhs.size == rhs.size && lhs.modified.tv_sec == rhs.modified.tv_sec
      && lhs.modified.tv_nsec == rhs.modified.tv_nsec && lhs.changed.tv_sec == rhs.changed.tv_sec
      && lhs.changed.tv_nsec == rhs.changed.tv_nsec
  }
}
