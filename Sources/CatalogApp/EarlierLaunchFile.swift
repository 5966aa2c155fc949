import StateRestoration
import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// `launch.json` of the catalog's earlier versions: the launches that had not reached their
/// prompt, by process; read once and turned into the markers ``LaunchTracker`` counts.
///
/// A launch added its process and removed it at the prompt; an entry whose process is gone is a
/// launch that crashed.
struct EarlierLaunchFile: VersionedFormat, Hashable {
  static let currentFormatVersion = 2
  var formatVersion = currentFormatVersion
  /// The processes that started and have not reached their prompt, oldest first.
  var launches: [ProcessIdentity]

  static let path = "launch.json"

  init(launches: [ProcessIdentity]) {
    self.launches = launches
  }

  private enum CodingKeys: String, CodingKey {
    case formatVersion, launches, unfinishedLaunches
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let version = try container.decode(Int.self, forKey: .formatVersion)
    if version == 1 {
      // Version 1 counted unfinished launches; each stands for a process that is gone.
      let count = try container.decode(Int.self, forKey: .unfinishedLaunches)
      launches = Array(
        repeating: ProcessIdentity(pid: 0, startTime: nil), count: min(max(count, 0), 16))
    } else {
      launches = try container.decode([ProcessIdentity].self, forKey: .launches)
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(formatVersion, forKey: .formatVersion)
    try container.encode(launches, forKey: .launches)
  }

  /// Turns the file, if the state directory has one, into launch markers and removes it, under
  /// the launch lock; an unreadable one is set aside.
  ///
  /// - Parameter directory: The state directory.
  /// - Returns: Warnings for the user: the file set aside, or what could not be done.
  static func importIfPresent(in directory: StateDirectory) -> [String] {
    guard directory.contains(path) else { return [] }
    // Without the lock or the folder, the launch that follows reports why and starts no further.
    guard let lock = try? directory.lockWaiting(LockFiles.launch),
      (try? DurableFile.createPrivateSubdirectory(directory.path(of: LaunchTracker.folder)))
        != nil
    else { return [] }
    defer { withExtendedLifetime(lock) {} }
    do {
      let launches = try directory.load(Self.self, from: path)?.launches ?? []
      // Entries without a process (version 1 counted launches) become markers of pid 0, which
      // is never running: each counts as a crash, as it did.
      for (index, identity) in launches.suffix(64).enumerated() {
        let name = identity.pid > 0 ? LaunchTracker.name(of: identity) : "0.\(index + 1)"
        let descriptor = open(
          directory.path(of: LaunchTracker.folder + "/" + name),
          O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor >= 0 { close(descriptor) }
      }
      try directory.remove(path)
      return []
    } catch {
      let reason = SystemError.describing(error)
      // A file that is fine but cannot be used now (a read-only directory) is left as it is.
      guard let error = error as? SystemError, error.isDamage || error.isNewerVersion else {
        return ["\(reason); the count of crashed launches starts at 0"]
      }
      if let destination = try? directory.quarantine(path) {
        return [
          "\(reason); moved it to '\(destination)', and the count of crashed launches starts at 0"
        ]
      }
      return ["\(reason); the count of crashed launches starts at 0"]
    }
  }
}
