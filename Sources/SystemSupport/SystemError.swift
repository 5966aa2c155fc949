#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What can go wrong in the file and process layer: reading, writing and locking files in a
/// state directory.
package enum SystemError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
  /// A file could not be read; the reason says why (missing permission, an I/O error).
  case cannotRead(path: String, reason: String)
  /// A file could not be written; the reason says why. The old file, if any, is intact.
  case cannotWrite(path: String, reason: String)
  /// A file is larger than the limit for its kind, and was not read.
  case tooLarge(path: String, size: Int, limit: Int)
  /// A file is not valid for its format: not JSON, or values of the wrong types.
  case malformed(path: String, detail: String)
  /// A file was written by a newer version of the program.
  case newerFormatVersion(path: String, found: Int, supported: Int)
  /// Another live process holds the lock; `owner` is its process identifier when known.
  case locked(path: String, owner: Int32?)
  /// A file that is fine cannot be used now: the disk is full, the directory read-only, an
  /// I/O error. Nothing is wrong with the file, which is kept as it is.
  case unavailable(path: String, reason: String)
  /// A file that could not be read could not be moved to quarantine either, so it was left
  /// unread and nothing was written over it.
  case cannotSetAside(problem: String, reason: String)

  /// Whether the error says the file itself is bad (not valid, too large, not a regular file
  /// or a link), rather than that it cannot be used now or belongs to a newer version.
  package var isDamage: Bool {
    switch self {
    case .malformed, .tooLarge, .cannotRead: true
    default: false
    }
  }

  /// Whether the error says the file belongs to a newer version of the program.
  package var isNewerVersion: Bool {
    if case .newerFormatVersion = self { true } else { false }
  }

  /// The message shown to the user: what went wrong, with the values involved in quotes.
  package var errorDescription: String? {
    switch self {
    case .cannotRead(let path, let reason):
      "cannot read '\(path)': \(reason)"
    case .cannotWrite(let path, let reason):
      "cannot write '\(path)': \(reason)"
    case .tooLarge(let path, let size, let limit):
      "'\(path)' is too large (\(size) bytes; the limit is \(limit))"
    case .malformed(let path, let detail):
      "'\(path)' is not valid: \(detail)"
    case .newerFormatVersion(let path, let found, let supported):
      "'\(path)' has format version \(found), newer than this program's \(supported)"
    case .locked(let path, let owner):
      "'\(path)' is locked by another process" + (owner.map { " (pid \($0))" } ?? "")
    case .unavailable(let path, let reason):
      "cannot use '\(path)' now: \(reason)"
    case .cannotSetAside(let problem, let reason):
      "\(problem), and it cannot be moved to quarantine (\(reason)); it was left as it is: move it away and try again"
    }
  }

  /// The message, as ``errorDescription`` says it.
  package var description: String { errorDescription ?? "" }

  /// A one-line account of any error: its description when it has one.
  ///
  /// - Parameter error: The error.
  /// - Returns: The message.
  package static func describing(_ error: any Error) -> String {
    (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
  }
}
