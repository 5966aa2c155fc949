import Synchronization
package import SystemSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Notices a crash at launch, as Apple's state restoration does: when launches died before
/// their prompt twice in a row, the next one sets the saved state aside and starts fresh.
///
/// Each launching process leaves an empty marker file named after its identity in
/// `launching/` (`PID.STARTTIME`) and removes it at its prompt; a marker whose process is gone
/// is a launch that crashed. Other terminals starting at the same time are not crashes. Markers
/// are made and counted under a lock; creating or removing one is a single directory entry,
/// not synced: a marker must outlive a process that crashed, which the system's cache does, and
/// one lost with the machine only forgets a launch. Start-up pays no file rewrite and no
/// `fsync`.
///
/// A process that exits on its own before it is ready — `exit` with any status, a refused
/// launch — removes its marker as it exits: only a launch killed by a signal or a crash counts.
package enum LaunchTracker {
  /// How many launches in a row may die before the prompt before state is set aside.
  static let failureLimit = 2
  /// The folder of markers, in the state directory.
  package static let folder = "launching"

  /// Records that this process is launching.
  ///
  /// After too many launches that died before their prompt, moves the session and the scene
  /// files no live process owns to quarantine, so that this launch starts fresh.
  ///
  /// - Parameter directory: The state directory.
  /// - Returns: What the launches before this one left: crashes, files set aside, warnings.
  /// - Throws: A `StateRestorationError` when the lock cannot be taken or the folder is not
  ///   a folder.
  static func begin(in directory: StateDirectory) throws -> LaunchCheck {
    let lock = try directory.lockWaiting(LockFiles.launch)
    defer { withExtendedLifetime(lock) {} }
    try DurableFile.createPrivateSubdirectory(directory.path(of: folder))
    var check = LaunchCheck()
    let crashed = markers(in: directory).filter { !$0.identity.isRunning }
    if crashed.count >= failureLimit {
      check.crashedLaunches = crashed.count
      for path in [SessionFile.path] + unownedSceneFiles(in: directory)
      where directory.contains(path) {
        if (try? directory.quarantine(path)) != nil { check.filesSetAside += 1 }
      }
      var problems: [String] = []
      remove(crashed.map(\.name), in: directory, warnings: &problems)
      check.warnings += problems.map { .launchNotRecorded(detail: $0) }
    }
    let marker = directory.path(of: folder + "/" + name(of: .current))
    let descriptor = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    if descriptor >= 0 {
      close(descriptor)
      removedAtExit(marker)
    } else {
      check.warnings.append(
        .launchNotRecorded(
          detail: "cannot record the launch in '\(marker)': \(String(cString: strerror(errno)))"))
    }
    return check
  }

  /// Records that this process's launch ended: it reached its prompt, which forgives the
  /// crashes before it, or it was refused with a message, which is no crash.
  ///
  /// - Parameters:
  ///   - directory: The state directory.
  ///   - reachedPrompt: Whether the launch reached its prompt.
  /// - Returns: A one-line warning when the launch could not be recorded.
  @discardableResult
  static func end(in directory: StateDirectory, reachedPrompt: Bool) -> [String] {
    var warnings: [String] = []
    pendingMarker.withLock { $0 = nil }
    do {
      let lock = try directory.lockWaiting(LockFiles.launch)
      defer { withExtendedLifetime(lock) {} }
      var names = [name(of: .current)]
      if reachedPrompt {
        names += markers(in: directory).filter { !$0.identity.isRunning }.map(\.name)
      }
      remove(names, in: directory, warnings: &warnings)
    } catch {
      warnings.append("cannot record the launch: \(StateRestorationError.describing(error))")
    }
    return warnings
  }

  /// The marker of this process's launch under way, removed if the process exits before
  /// ``end(in:reachedPrompt:)``.
  private static let pendingMarker = Mutex<String?>(nil)
  private static let exitHandlerInstalled = Atomic<Bool>(false)

  /// Removes a marker when the process exits on its own before its launch ends.
  private static func removedAtExit(_ marker: String) {
    pendingMarker.withLock { $0 = marker }
    guard !exitHandlerInstalled.exchange(true, ordering: .relaxed) else { return }
    atexit {
      if let marker = LaunchTracker.pendingMarker.withLock({ $0.take() }) { unlink(marker) }
    }
  }

  /// A marker's name: `PID.STARTTIME`, 0 where the start time is unknown.
  package static func name(of identity: ProcessIdentity) -> String {
    "\(identity.pid).\(identity.startTime ?? 0)"
  }

  /// The markers in the folder, with the processes they name; other names are ignored.
  private static func markers(in directory: StateDirectory) -> [(
    name: String, identity: ProcessIdentity
  )] {
    let entries =
      DurableFile.entries(in: directory.path(of: folder))
    return entries.compactMap { entry in
      let parts = entry.split(separator: ".", omittingEmptySubsequences: false)
      guard parts.count == 2, let pid = Int32(parts[0]), let start = UInt64(parts[1]) else {
        return nil
      }
      guard entry != name(of: .current) else { return nil }
      return (entry, ProcessIdentity(pid: pid, startTime: start == 0 ? nil : start))
    }
  }

  private static func remove(
    _ names: [String], in directory: StateDirectory, warnings: inout [String]
  ) {
    for name in names {
      let path = directory.path(of: folder + "/" + name)
      if unlink(path) != 0 && errno != ENOENT {
        warnings.append(
          "cannot record the launch in '\(path)': \(String(cString: strerror(errno)))")
      }
    }
  }

  /// The scene files whose scene no live process owns.
  private static func unownedSceneFiles(in directory: StateDirectory) -> [String] {
    SessionFile.sceneNamesOnDisk(in: directory).compactMap { name in
      // A scene whose lock is free has no owner; the lock is released again at once.
      guard (try? directory.lock(LockFiles.scene(name))) != nil else { return nil }
      return SceneFile.path(for: name)
    }
  }
}
