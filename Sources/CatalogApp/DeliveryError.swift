#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What can go wrong delivering a link or an activity to a running process.
package enum DeliveryError: Error, Sendable, Hashable, LocalizedError,
  CustomStringConvertible
{
  /// No process listens at the socket (it quit, or died and left the file).
  case notListening(pid: Int32)
  /// The receiver closed the connection, or did not answer in time, before confirming.
  case ended(pid: Int32)
  /// The message is larger than ``DeliveryChannel/maximumMessageSize``.
  case messageTooLarge
  /// The process listening is not the one named, or did not greet with the state directory's
  /// key: not a program of this state directory. Nothing was sent to it.
  case notOfThisDirectory(pid: Int32)
  /// The process did not greet in time (it is stopped or hung) or went away first; nothing was
  /// sent to it.
  case noAnswer(pid: Int32)

  /// The message shown to the user: what went wrong, with the process involved.
  package var errorDescription: String? {
    switch self {
    case .notListening(let pid): "the process \(pid) is not listening"
    case .ended(let pid):
      "the process \(pid) ended the delivery before confirming it; it may or may not have been applied there"
    case .messageTooLarge: "the message is too large to deliver"
    case .noAnswer(let pid):
      "the process \(pid) did not answer; nothing was sent to it"
    case .notOfThisDirectory(let pid):
      "the process \(pid) that answered is not a program of this state directory; nothing was sent to it"
    }
  }

  /// The message, as ``errorDescription`` says it.
  package var description: String { errorDescription ?? "" }
}
