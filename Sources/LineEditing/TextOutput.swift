import Foundation

/// Unbuffered output to a file descriptor: what a command prints is out before the next
/// command runs, even if the process is then killed.
package struct TextOutput: Sendable {
  /// Standard output.
  package static let standardOutput = TextOutput(descriptor: 1)
  /// Standard error.
  package static let standardError = TextOutput(descriptor: 2)

  private let descriptor: Int32

  package init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  /// Writes text as is.
  ///
  /// - Parameter text: The text.
  package func write(_ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return Foundation.write(descriptor, base + offset, buffer.count - offset)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return }
      offset += count
    }
  }

  /// Writes text followed by a newline, unless it is empty.
  ///
  /// - Parameter text: The text.
  package func line(_ text: String) {
    if !text.isEmpty { write(text + "\n") }
  }
}
