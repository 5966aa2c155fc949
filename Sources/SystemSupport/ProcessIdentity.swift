#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A process, told apart from a later one that reuses its identifier: its pid and the time it
/// started (clock ticks since boot, from `/proc/PID/stat`).
///
/// State files that name a process (who is launching, who owns a scene) record its identity,
/// so that a process that died is recognised as dead even when its pid has been given again.
package struct ProcessIdentity: Sendable, Hashable, Codable {
  /// The process identifier.
  package var pid: Int32
  /// When the process started, in clock ticks since boot; nil where `/proc` is not readable.
  package var startTime: UInt64?

  /// Creates an identity.
  ///
  /// - Parameters:
  ///   - pid: The process identifier.
  ///   - startTime: When it started, in clock ticks since boot.
  package init(pid: Int32, startTime: UInt64?) {
    self.pid = pid
    self.startTime = startTime
  }

  /// This process.
  package static let current = ProcessIdentity(pid: getpid(), startTime: startTime(of: getpid()))

  /// Whether this process is still running: its pid exists and, where known, started at the
  /// same time.
  package var isRunning: Bool {
    guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
    guard let startTime, let actual = Self.startTime(of: pid) else { return true }
    return actual == startTime
  }

  /// Field 22 of `/proc/PID/stat`, counted after the command name, which may hold spaces and
  /// parentheses.
  static func startTime(of pid: Int32) -> UInt64? {
    // `/proc` files report a size of 0, so this reads until the end rather than by size.
    let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 1024)
    let count = buffer.withUnsafeMutableBytes { bytes -> Int in
      guard let base = bytes.baseAddress else { return 0 }
      return retryingOnInterrupt { systemRead(descriptor, base, bytes.count) }
    }
    guard count > 0 else { return nil }
    let data = buffer[..<count]
    guard let nameEnd = data.lastIndex(of: UInt8(ascii: ")")) else { return nil }
    let fields = data[(nameEnd + 1)...].split(separator: UInt8(ascii: " "))
    // After the name: state (field 3) … starttime (field 22).
    guard fields.count > 19 else { return nil }
    return UInt64(String(decoding: fields[19], as: UTF8.self))
  }
}
