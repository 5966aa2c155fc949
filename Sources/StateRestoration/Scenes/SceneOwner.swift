package import SystemSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Who has a scene open: a running process, the terminal it reads from, and whether the scene
/// is the one in front there — what a process reads to show the scenes of every window, as an
/// app switcher does.
///
/// An owner records itself in the scene's lock file (``FileLock/record(note:)`` with
/// ``note``); ``init(lockFile:)`` reads it back without touching the lock.
package struct SceneOwner: Sendable, Hashable {
  /// The process.
  package var process: ProcessIdentity
  /// The terminal the process reads from, such as `/dev/pts/3`; nil when it reads a file or
  /// a pipe.
  package var terminal: String?
  /// Whether the scene takes that process's commands.
  package var isFront: Bool

  /// Creates an owner.
  ///
  /// - Parameters:
  ///   - process: The process.
  ///   - terminal: Its terminal, if it has one.
  ///   - isFront: Whether the scene is in front there.
  package init(process: ProcessIdentity, terminal: String?, isFront: Bool) {
    self.process = process
    self.terminal = terminal
    self.isFront = isFront
  }

  /// Reads the owner a scene's lock file names, if that process is still running.
  ///
  /// - Parameter lockFile: The scene's lock file.
  package init?(lockFile: String) {
    guard let holder = FileLock.holder(of: lockFile) else { return nil }
    let words = holder.note?.split(separator: " ", maxSplits: 1) ?? []
    self.init(
      process: holder.process,
      terminal: words.count > 1 && words[1] != "-" ? String(words[1]) : nil,
      isFront: words.first == "front")
  }

  /// The note that records this owner in a lock file: `front TERMINAL` or `back TERMINAL`, `-`
  /// for no terminal.
  package var note: String {
    (isFront ? "front " : "back ") + (terminal ?? "-")
  }

  /// Whether the owner is this process.
  package var isThisProcess: Bool { process.pid == getpid() }

  /// Where the owner lives, for people: `pid 14739, /dev/pts/3`.
  package var place: String {
    "pid \(process.pid)" + (terminal.map { ", \($0)" } ?? "")
  }

  /// The terminal this process reads from, if standard input is one.
  package static let currentTerminal: String? = {
    guard isatty(0) == 1, let name = ttyname(0) else { return nil }
    return String(cString: name)
  }()
}
