internal import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What can go wrong while keeping state on disk.
/// The library's one error type: state files, scenes, user activities, navigation paths and
/// deliveries between processes.
public enum StateRestorationError: Error, Sendable, Hashable, LocalizedError,
  CustomStringConvertible
{
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
  /// A scene another running process has open: its process identifier and terminal, when
  /// known.
  case sceneOpenElsewhere(scene: String, pid: Int32?, terminal: String?)
  /// A file that could not be read could not be moved to quarantine either, so it was left
  /// unread and nothing was written over it.
  case cannotSetAside(problem: String, reason: String)

  // MARK: User activities: making one current, continuing it, reading its payload

  /// The activity was invalidated; it cannot become current again.
  case invalidated(activityType: String)
  /// The activity's type is not among the declared types, so it cannot be continued.
  case undeclaredType(String)
  /// No handler continues activities of the type.
  case noHandler(activityType: String)
  /// The activity's expiration date has passed.
  case expired(title: String)
  /// `userInfo` lacks keys listed in `requiredUserInfoKeys`.
  case missingRequiredKeys([String])
  /// The web page URL is not `http` or `https`.
  case unsupportedWebpageURL(String)
  /// A payload could not be encoded as property-list values with string keys.
  case payloadNotEncodable(reason: String)
  /// `userInfo` does not decode as the requested payload type.
  case payloadNotDecodable(type: String, reason: String)
  /// The activity could not be saved in the history.
  case notSaved(reason: String)

  // MARK: Navigation paths: encoding, decoding, registering an element type (positions count
  // path elements from the root, starting at 1)

  /// A type or a name is already registered the other way.
  case registrationConflict(name: String)
  /// The element at a position is not `Codable`, so the path has no codable representation.
  case notCodable(position: Int, typeName: String)
  /// The element at a position could not be encoded (a `Double` that is not finite, say).
  case encodingFailed(position: Int, typeName: String, reason: String)
  /// The representation is not JSON.
  case notJSON(reason: String)
  /// The representation is JSON, but not an array.
  case notAnArray
  /// An entry of the array, counted from its start at 1, is not a string.
  case notAString(index: Int)
  /// The array has an odd number of strings, so its first string has no partner.
  case oddCount(Int)
  /// The element at a position has a type name that is neither registered nor the name of a
  /// `Codable` type of the program (a type renamed since is registered under its old name).
  case unknownTypeName(String, position: Int)
  /// The element at a position has a value that does not decode as its type.
  case undecodableValue(typeName: String, position: Int, reason: String)

  /// Whether the error says the file itself is bad (not valid, too large, not a regular file
  /// or a link), rather than that it cannot be used now or belongs to a newer version.
  package var isDamage: Bool {
    switch self {
    case .malformed, .tooLarge, .cannotRead: true
    default: false
    }
  }

  /// The message shown to the user: what went wrong, with the values involved in quotes.
  public var errorDescription: String? {
    if let error = SystemError(self) { return error.description }
    return switch self {
    case .sceneOpenElsewhere(let scene, let pid, let terminal):
      "scene '\(scene)' is open in another process"
        + (pid.map { " (pid \($0)" + (terminal.map { ", \($0)" } ?? "") + ")" } ?? "")
        + "; quit it there first, or choose another scene"
    case .invalidated(let activityType):
      "the '\(activityType)' activity was invalidated; create a new one"
    case .undeclaredType(let type):
      "the activity type '\(type.abbreviated)' is not declared by this program"
    case .noHandler(let activityType):
      "nothing continues '\(activityType.abbreviated)' activities"
    case .expired(let title):
      "the activity '\(title.abbreviated)' has expired"
    case .missingRequiredKeys(let keys):
      "the activity's user info lacks the required keys \(keys.map { "'\($0)'" }.joined(separator: ", "))"
    case .unsupportedWebpageURL(let url):
      "the web page URL '\(url.abbreviated)' is not http or https"
    case .payloadNotEncodable(let reason):
      "the payload cannot be stored in user info: \(reason)"
    case .payloadNotDecodable(let type, let reason):
      "the activity's user info is not a valid '\(type)': \(reason)"
    case .notSaved(let reason):
      "the activity could not be saved: \(reason)"

    case .registrationConflict(let name):
      "'\(name)' or its type is already registered differently; register each type once, under one name"
    case .notCodable(let position, let typeName):
      "path element \(position) ('\(typeName)') is not Codable"
    case .encodingFailed(let position, let typeName, let reason):
      "path element \(position) ('\(typeName)') could not be encoded: \(reason)"
    case .notJSON(let reason):
      "the path is not JSON: \(reason)"
    case .notAnArray:
      "the path is not a JSON array"
    case .notAString(let index):
      "entry \(index) of the path is not a string"
    case .oddCount(let count):
      "the path has an odd number of strings (\(count)), so its last element is incomplete"
    case .unknownTypeName(let name, let position):
      "path element \(position) has the unknown type '\(name.abbreviated)'"
    case .undecodableValue(let typeName, let position, let reason):
      "path element \(position) is not a valid '\(typeName.abbreviated)': \(reason)"
    case .cannotRead, .cannotWrite, .tooLarge, .malformed, .newerFormatVersion, .locked,
      .unavailable, .cannotSetAside:
      ""

    }
  }

  /// The message, as ``errorDescription`` says it.
  public var description: String { errorDescription ?? "" }

  /// The error of the file layer, as the library reports it.
  ///
  /// - Parameter error: What the file layer threw.
  init(_ error: SystemError) {
    switch error {
    case .cannotRead(let path, let reason): self = .cannotRead(path: path, reason: reason)
    case .cannotWrite(let path, let reason): self = .cannotWrite(path: path, reason: reason)
    case .tooLarge(let path, let size, let limit):
      self = .tooLarge(path: path, size: size, limit: limit)
    case .malformed(let path, let detail): self = .malformed(path: path, detail: detail)
    case .newerFormatVersion(let path, let found, let supported):
      self = .newerFormatVersion(path: path, found: found, supported: supported)
    case .locked(let path, let owner): self = .locked(path: path, owner: owner)
    case .unavailable(let path, let reason): self = .unavailable(path: path, reason: reason)
    case .cannotSetAside(let problem, let reason):
      self = .cannotSetAside(problem: problem, reason: reason)
    }
  }

  /// A one-line account of any error: its description when it has one.
  ///
  /// - Parameter error: The error.
  /// - Returns: The message.
  static func describing(_ error: any Error) -> String {
    SystemError.describing(error)
  }

  /// Runs a body that uses the file layer, reporting what it throws as the library's error.
  ///
  /// - Parameter body: The work.
  /// - Returns: What `body` returns.
  /// - Throws: A ``StateRestorationError``, or what `body` throws that is neither.
  package static func translating<Result>(_ body: () throws -> Result) throws -> Result {
    do {
      return try body()
    } catch let error as SystemError {
      throw StateRestorationError(error)
    }
  }
}

extension SystemError {
  /// The file layer's account of one of the library's file errors, or `nil` for another.
  ///
  /// - Parameter error: The library's error.
  init?(_ error: StateRestorationError) {
    switch error {
    case .cannotRead(let path, let reason): self = .cannotRead(path: path, reason: reason)
    case .cannotWrite(let path, let reason): self = .cannotWrite(path: path, reason: reason)
    case .tooLarge(let path, let size, let limit):
      self = .tooLarge(path: path, size: size, limit: limit)
    case .malformed(let path, let detail): self = .malformed(path: path, detail: detail)
    case .newerFormatVersion(let path, let found, let supported):
      self = .newerFormatVersion(path: path, found: found, supported: supported)
    case .locked(let path, let owner): self = .locked(path: path, owner: owner)
    case .unavailable(let path, let reason): self = .unavailable(path: path, reason: reason)
    case .cannotSetAside(let problem, let reason):
      self = .cannotSetAside(problem: problem, reason: reason)
    default: return nil
    }
  }
}

extension String {
  /// The string cut to 60 characters, for messages that quote what a file held.
  var abbreviated: String {
    count <= 60 ? self : prefix(59) + "…"
  }
}
