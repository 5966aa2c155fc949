import Foundation

/// Questions a program asks its terminal, answered on its input: what it can draw.
package enum TerminalQuery {
  /// The terminal's primary device attributes (`CSI c`, answered `CSI ? 62 ; 4 ; … c`), read
  /// within a short time; nil when standard input or output is not a terminal, or nothing
  /// answers in time. Attribute 4 means sixel graphics.
  ///
  /// The terminal is in raw mode only while waiting; bytes that are not the answer (keys typed
  /// meanwhile) are lost, so this is asked once, at start.
  ///
  /// - Parameters:
  ///   - input: The terminal to read the answer from.
  ///   - output: The terminal to ask.
  ///   - milliseconds: How long to wait.
  /// - Returns: The attributes.
  package static func deviceAttributes(
    input: Int32 = 0, output: Int32 = 1, milliseconds: Int32 = 150
  ) -> [Int]? {
    guard isatty(input) == 1, isatty(output) == 1 else { return nil }
    var saved = termios()
    guard tcgetattr(input, &saved) == 0 else { return nil }
    var raw = saved
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
    guard tcsetattr(input, TCSANOW, &raw) == 0 else { return nil }
    defer { _ = tcsetattr(input, TCSANOW, &saved) }
    let question = Array("\u{1B}[c".utf8)
    guard question.withUnsafeBytes({ write(output, $0.baseAddress, $0.count) }) == 3 else {
      return nil
    }
    var answer: [UInt8] = []
    var remaining = milliseconds
    let start = DispatchTime.now()
    while remaining > 0 {
      var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, remaining) > 0 else { break }
      var byte: UInt8 = 0
      guard read(input, &byte, 1) == 1 else { break }
      answer.append(byte)
      if byte == UInt8(ascii: "c"), answer.count > 3 { break }
      let elapsed = Int32(
        (DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)
      remaining = milliseconds - elapsed
    }
    return parseAttributes(answer)
  }

  /// The attributes of an answer `ESC [ ? 62 ; 4 ; 22 c`, wherever it starts in the bytes.
  package static func parseAttributes(_ bytes: [UInt8]) -> [Int]? {
    guard
      let start = bytes.indices.first(where: {
        bytes[$0] == 0x1B && $0 + 2 < bytes.count && bytes[$0 + 1] == UInt8(ascii: "[")
          && bytes[$0 + 2] == UInt8(ascii: "?")
      }), let end = bytes[start...].firstIndex(of: UInt8(ascii: "c"))
    else { return nil }
    let body = String(decoding: bytes[(start + 3)..<end], as: UTF8.self)
    let numbers = body.split(separator: ";").compactMap { Int($0) }
    return numbers.isEmpty ? nil : numbers
  }
}
