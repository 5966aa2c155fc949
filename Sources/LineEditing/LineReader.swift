import Foundation

/// Reads lines from a file descriptor, with a length limit and UTF-8 validation, so that no
/// input can exhaust memory or reach the parser as garbled text.
package final class LineReader {
  /// What reading a line gave.
  package enum Result: Equatable {
    /// A complete line, without its newline.
    case line(String)
    /// A line that cannot be used; the error says why. Its bytes were consumed.
    case invalid(LineReaderError)
    /// The end of the input.
    case end
    /// Reading was interrupted by a signal.
    case interrupted
  }

  /// The longest line accepted, in bytes.
  package static let lineLimit = 65_536

  private let descriptor: Int32
  private let wakeOverride: Int32?
  private var buffer: [UInt8] = []
  private var start = 0
  private var isAtEnd = false
  /// How many times the reader took input from its descriptor: a line returned while the count
  /// is what it was at some moment was there at that moment. Text in memory is there from the
  /// start.
  package private(set) var reads = 0
  /// Bytes of the current over-long line dropped so far; kept across an interruption, so that
  /// the rest of that line is reported as too long instead of being run as a command.
  private var discarded = 0

  /// Reads from a file descriptor (standard input by default).
  ///
  /// - Parameters:
  ///   - descriptor: The descriptor to read.
  ///   - wakeDescriptor: A descriptor whose readability interrupts a wait; by default the
  ///     self-pipe of ``Signals``.
  package init(descriptor: Int32 = 0, wakeDescriptor: Int32? = nil) {
    self.descriptor = descriptor
    wakeOverride = wakeDescriptor
  }

  /// Reads lines from text in memory: a command given on the command line.
  ///
  /// - Parameter text: The lines, separated by newlines.
  package init(text: String) {
    descriptor = -1
    wakeOverride = nil
    buffer = Array(text.utf8)
    isAtEnd = true
  }

  /// Whether a whole next line has been read already: ``next()`` then returns it without
  /// waiting for the input. A script's lines arrive together; a person's, one at a time.
  package var hasBufferedLine: Bool {
    buffer[start...].contains(UInt8(ascii: "\n")) || (isAtEnd && start < buffer.count)
  }

  /// Whether ``next()`` would wait for the input now: no whole line has been read already,
  /// the input has not ended, and nothing more is there to read. A script whose lines are all
  /// there never waits; a person at a terminal, or a program that writes lines as it goes, does.
  package var wouldWait: Bool {
    guard descriptor >= 0, !isAtEnd, !hasBufferedLine else { return false }
    return !canRead
  }

  /// Whether a read of the descriptor would return at once: input, its end, or an error.
  private var canRead: Bool {
    var input = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&input, 1, 0) > 0
  }

  /// Takes what the input holds now, once, without waiting: the lines it holds were sent
  /// before whatever the caller does next (a script's lines, before the catalog is read).
  /// Nothing happens when nothing is there, and a failed read is left for ``next()`` to meet.
  package func readAvailable() {
    guard descriptor >= 0, !isAtEnd, canRead else { return }
    if fill().count == 0 { isAtEnd = true }
  }

  /// The whole lines read already and not yet returned, up to a number, as text: what
  /// ``next()`` will return without reading. A line that is not UTF-8 or too long is left out.
  ///
  /// - Parameter limit: The most lines to give.
  /// - Returns: The lines, in order, without their newlines.
  package func bufferedLines(limit: Int) -> [String] {
    var lines: [String] = []
    var from = start
    while lines.count < limit, let newline = buffer[from...].firstIndex(of: UInt8(ascii: "\n")) {
      if newline - from <= Self.lineLimit, case .line(let text) = validate(buffer[from..<newline]) {
        lines.append(text)
      }
      from = newline + 1
    }
    return lines
  }

  /// Reads the next line.
  ///
  /// - Returns: The line, an invalid line's error, the end of the input, or an interruption.
  package func next() -> Result {
    while true {
      if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
        let bytes = buffer[start..<newline]
        start = newline + 1
        compact()
        return finish(bytes, terminatorLength: 1)
      }
      if buffer.count - start > Self.lineLimit {
        discarded += buffer.count - start
        buffer.removeAll(keepingCapacity: true)
        start = 0
      }
      if isAtEnd {
        guard start < buffer.count || discarded > 0 else { return .end }
        let bytes = buffer[start...]
        buffer.removeAll()
        start = 0
        return finish(bytes, terminatorLength: 0)
      }
      if !waitForInput() { return .interrupted }
      let (count, error) = fill()
      if count < 0 {
        if error == EINTR { return .interrupted }
        isAtEnd = true
      } else if count == 0 {
        isAtEnd = true
      }
    }
  }

  /// Reads once from the descriptor, adding what came to the buffer.
  ///
  /// - Returns: How many bytes came, 0 at the end of the input, -1 on an error; and the
  ///   error (`errno`, taken as the read returned, before freeing its buffer could change it).
  private func fill() -> (count: Int, error: Int32) {
    var chunk = [UInt8](repeating: 0, count: 16_384)
    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    let error = count < 0 ? errno : 0
    if count > 0 {
      buffer += chunk[..<count]
      reads += 1
    }
    return (count, error)
  }

  /// Waits until the input is readable; false when a signal arrived first (see ``Signals``).
  private func waitForInput() -> Bool {
    let wake = wakeOverride ?? Signals.wakeDescriptor
    var descriptors = [
      pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
    ]
    while true {
      let count = poll(&descriptors, wake >= 0 ? 2 : 1, -1)
      let woken = count < 0 ? errno == EINTR : wake >= 0 && descriptors[1].revents != 0
      if count < 0 && !woken { return true }  // let read(2) report the error
      if woken {
        // A window resize only concerns the line editor; keep waiting.
        if wakeOverride == nil, Signals.pending == nil, Signals.takeWindowChange() { continue }
        if wakeOverride == nil { _ = Signals.takeWake() }
        return false
      }
      if descriptors[0].revents != 0 { return true }
    }
  }

  /// The result for a complete line: too long if part of it was dropped, else the text.
  private func finish(_ bytes: ArraySlice<UInt8>, terminatorLength: Int) -> Result {
    defer { discarded = 0 }
    // A line that arrived whole, newline included, is held to the same limit.
    guard discarded == 0, bytes.count <= Self.lineLimit else {
      return .invalid(
        .lineTooLong(bytes: discarded + bytes.count + terminatorLength, limit: Self.lineLimit))
    }
    return validate(bytes)
  }

  private func validate(_ bytes: ArraySlice<UInt8>) -> Result {
    var line = bytes
    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
    guard let text = String(validating: line, as: UTF8.self) else { return .invalid(.invalidUTF8) }
    return .line(text)
  }

  private func compact() {
    if start > 65_536 || start == buffer.count {
      buffer.removeFirst(start)
      start = 0
    }
  }
}
