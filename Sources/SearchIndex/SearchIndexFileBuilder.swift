import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Builds an index file in bounded memory, whatever the number of documents: documents are
/// indexed a slice at a time, each slice written to a temporary file of its own, and the slices
/// merged into the index file section by section — terms in byte order, each term's documents
/// one slice after another (the slices being in document order, the lists stay sorted), the
/// documents' text one slice after another.
///
/// The file is the same, byte for byte, as ``SearchIndex/write(to:origin:)`` writes for an index
/// built of the same documents in memory.
public struct SearchIndexFileBuilder {
  /// Where the slices' files go: beside the index file, say, rather than in `/tmp`.
  public let temporaryDirectory: String
  /// How many documents a slice holds: what bounds the memory a build takes.
  public let sliceSize: Int
  private var pending: [SearchDocument] = []
  private var slices: [String] = []
  private var documentCount = 0

  /// Creates a builder.
  ///
  /// - Parameters:
  ///   - temporaryDirectory: Where the slices' files go; they are removed when the build ends.
  ///   - sliceSize: How many documents are indexed in memory at a time (at least 1).
  public init(temporaryDirectory: String, sliceSize: Int = 500_000) {
    self.temporaryDirectory = temporaryDirectory
    self.sliceSize = max(1, sliceSize)
    pending.reserveCapacity(min(self.sliceSize, 1 << 16))
    Self.removeAbandonedSlices(in: temporaryDirectory)
  }

  /// Removes the slices a build left when its process was killed: those of processes that no
  /// longer run, by the number in their names.
  private static func removeAbandonedSlices(in directory: String) {
    let prefix = ".search-slice."
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      return
    }
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
      guard let process = name.dropFirst(prefix.count).split(separator: ".").first,
        let pid = pid_t(process), pid > 0, pid != getpid(),
        kill(pid, 0) != 0 && errno == ESRCH
      else { continue }
      unlink(directory + "/" + name)
    }
  }

  /// The number of documents added.
  public var count: Int { documentCount }

  /// Adds the next document, numbered from 0 in the order added.
  ///
  /// - Throws: ``SearchIndexError/cannotWrite(path:reason:)`` when a slice cannot be written.
  public mutating func add(_ document: SearchDocument) throws(SearchIndexError) {
    pending.append(document)
    documentCount += 1
    if pending.count >= sliceSize { try writeSlice() }
  }

  /// Writes the index file, atomically and durably, and removes the slices' files.
  ///
  /// - Parameters:
  ///   - path: The index file.
  ///   - origin: What the documents came from, kept in the file's header.
  /// - Throws: ``SearchIndexError``; the file that was there, if any, is then unchanged.
  public mutating func write(to path: String, origin: SearchIndex.Origin) throws(SearchIndexError) {
    defer { removeSlices() }
    if slices.isEmpty {
      // One slice: built in memory and written, as a small index always was.
      try SearchIndex(pending).write(to: path, origin: origin)
      pending = []
      return
    }
    if !pending.isEmpty { try writeSlice() }
    var parts: [SearchIndex] = []
    for slice in slices { parts.append(try SearchIndex(contentsOf: slice)) }
    try SearchIndex.merge(parts, to: path, origin: origin)
  }

  /// Removes the slices' files: for a build given up before ``write(to:origin:)``.
  public mutating func removeSlices() {
    for slice in slices { unlink(slice) }
    slices = []
  }

  private mutating func writeSlice() throws(SearchIndexError) {
    let path =
      "\(temporaryDirectory)/.search-slice.\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    try SearchIndex(pending).write(to: path, origin: SearchIndex.Origin(source: 0, generation: 0))
    slices.append(path)
    pending.removeAll(keepingCapacity: true)
  }
}

extension SearchIndex {
  /// Writes the index of several indexes' documents, one after another, to a file: the
  /// dictionaries merged, each term's lists concatenated with the documents renumbered, and the
  /// text concatenated. Streams every section: memory stays small whatever the sizes.
  static func merge(_ parts: [SearchIndex], to path: String, origin: Origin)
    throws(SearchIndexError)
  {
    var bases: [Int] = []
    var documents = 0
    var postingCount = 0
    var textLength = 0
    for part in parts {
      bases.append(documents)
      documents += part.baseCount
      postingCount += part.storage.postings.count
      textLength += part.storage.textBytes.count
    }
    var terms = 0
    var termLength = 0
    try forEachMergedTerm(parts) { (term, _) throws(SearchIndexError) in
      terms += 1
      termLength += term.count
    }
    let lengths = [
      termLength, 4 * (terms + 1), 4 * postingCount, 4 * (2 * terms + 1), textLength,
      4 * (documents + 1),
    ]
    try writeFile(to: path, documentCount: documents, origin: origin, sectionLengths: lengths) {
      (section, put) throws(SearchIndexError) in
      // Bytes gathered into 64 KiB pieces before they are put; every 32 MiB, what was read of
      // the parts leaves this process (it stays in the page cache), so that merging a large
      // index does not hold all of it resident.
      var buffer: [UInt8] = []
      buffer.reserveCapacity(1 << 16)
      var sinceRelease = 0
      func flush() throws(SearchIndexError) {
        guard !buffer.isEmpty else { return }
        // `withUnsafeBytes` rethrows untyped: its error is put's own.
        do {
          try buffer.withUnsafeBytes { try put($0) }
        } catch let error as SearchIndexError {
          throw error
        } catch {
          throw .cannotWrite(path: path, reason: "\(error)")
        }
        sinceRelease += buffer.count
        buffer.removeAll(keepingCapacity: true)
        if sinceRelease >= 1 << 25 {
          for part in parts { part.storage.file?.releasePages() }
          sinceRelease = 0
        }
      }
      func append(_ value: UInt32) throws(SearchIndexError) {
        withUnsafeBytes(of: value) { buffer.append(contentsOf: $0) }
        if buffer.count >= 1 << 16 { try flush() }
      }
      func append(bytes: UnsafeRawBufferPointer) throws(SearchIndexError) {
        var rest = bytes
        while !rest.isEmpty {
          let count = min(rest.count, (1 << 16) - buffer.count)
          buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<count]))
          rest = UnsafeRawBufferPointer(rebasing: rest[count...])
          if buffer.count >= 1 << 16 { try flush() }
        }
      }
      switch section {
      case 0:
        try forEachMergedTerm(parts) { (term, _) throws(SearchIndexError) in
          try append(bytes: UnsafeRawBufferPointer(term))
        }
      case 1:
        var end: UInt32 = 0
        try append(end)
        try forEachMergedTerm(parts) { (term, _) throws(SearchIndexError) in
          end += UInt32(term.count)
          try append(end)
        }
      case 2:
        try forEachMergedTerm(parts) { (_, holders) throws(SearchIndexError) in
          for field in [SearchField.title, .keywords] {
            for (part, position) in holders {
              let postings = parts[part].storage.postings
              let range = try parts[part].postingRange(term: position, field: field)
              let base = UInt32(bases[part])
              for document in postings.buffer[range] { try append(document + base) }
            }
          }
        }
      case 3:
        var end: UInt32 = 0
        try append(end)
        try forEachMergedTerm(parts) { (_, holders) throws(SearchIndexError) in
          for field in [SearchField.title, .keywords] {
            for (part, position) in holders {
              end += UInt32(try parts[part].postingRange(term: position, field: field).count)
            }
            try append(end)
          }
        }
      case 4:
        for part in parts {
          let text = part.storage.textBytes
          try part.storage.check(text, 0..<text.count)
          try append(bytes: text.raw)
        }
      default:
        var base: UInt32 = 0
        try append(base)
        for part in parts {
          let offsets = part.storage.textOffsets
          try part.storage.check(offsets, 0..<offsets.count)
          for offset in offsets.buffer.dropFirst() { try append(offset + base) }
          base += UInt32(part.storage.textBytes.count)
        }
      }
      try flush()
      for part in parts { part.storage.file?.releasePages() }
    }
  }

  /// Calls a body with each term of several indexes' dictionaries once, in byte order, and the
  /// parts that have it with its position in each, in the parts' order.
  private static func forEachMergedTerm(
    _ parts: [SearchIndex],
    _ body: (UnsafeBufferPointer<UInt8>, [(part: Int, position: Int)]) throws(SearchIndexError) ->
      Void
  ) throws(SearchIndexError) {
    var positions = [Int](repeating: 0, count: parts.count)
    var holders: [(part: Int, position: Int)] = []
    while true {
      var smallest: UnsafeBufferPointer<UInt8>?
      holders.removeAll(keepingCapacity: true)
      for (part, index) in parts.enumerated() where positions[part] < index.termCount {
        let term = try index.term(at: positions[part])
        if let current = smallest, !term.lexicographicallyPrecedes(current) {
          if term.elementsEqual(current) { holders.append((part, positions[part])) }
        } else {
          smallest = term
          holders = [(part, positions[part])]
        }
      }
      guard let term = smallest else { return }
      try body(term, holders)
      for (part, _) in holders { positions[part] += 1 }
    }
  }
}
