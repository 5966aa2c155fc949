import StateRestoration

/// Notices a crash at launch, as Apple's state restoration does: when launches died before
/// their prompt twice in a row, the next one sets the saved state aside and starts fresh.
///
/// Every change to `launch.json` is made under a lock, and only launches whose process is gone
/// count: other terminals starting at the same time are not crashes.
package enum LaunchTracker {
  /// How many launches in a row may die before the prompt before state is set aside.
  package static let failureLimit = 2

  /// Records that this process is launching.
  ///
  /// After too many launches that died before their prompt, moves the session and the scene
  /// files no live process owns to quarantine, so that this launch starts fresh.
  ///
  /// - Parameters:
  ///   - directory: The state directory.
  ///   - warnings: Where one-line warnings go.
  /// - Returns: Whether the saved state was set aside.
  /// - Throws: A `StateRestorationError` when the lock cannot be taken.
  package static func begin(in directory: StateDirectory, warnings: inout [String]) throws -> Bool {
    let lock = try directory.lockWaiting(LockFiles.launch)
    defer { withExtendedLifetime(lock) {} }
    var launches = read(in: directory, warnings: &warnings)
    let crashed = launches.filter { !$0.isRunning }.count
    var restarting = false
    if crashed >= failureLimit {
      restarting = true
      launches.removeAll { !$0.isRunning }
      var moved = 0
      for path in [SessionFile.path] + unownedSceneFiles(in: directory)
      where directory.contains(path) {
        if (try? directory.quarantine(path)) != nil { moved += 1 }
      }
      warnings.append(
        "catalog did not reach its prompt the last \(crashed) times it started; "
          + "its saved state (\(moved) files) was moved to '\(directory.path(of: StateDirectory.quarantineFolder))' and it starts fresh"
      )
    }
    launches.append(.current)
    write(launches, in: directory, warnings: &warnings)
    return restarting
  }

  /// Records that this process's launch ended: it reached its prompt, which forgives the
  /// crashes before it, or it was refused with a message, which is no crash.
  ///
  /// - Parameters:
  ///   - directory: The state directory.
  ///   - reachedPrompt: Whether the launch reached its prompt.
  /// - Returns: A one-line warning when `launch.json` could not be updated.
  @discardableResult
  package static func end(in directory: StateDirectory, reachedPrompt: Bool) -> [String] {
    var warnings: [String] = []
    do {
      let lock = try directory.lockWaiting(LockFiles.launch)
      defer { withExtendedLifetime(lock) {} }
      var launches = read(in: directory, warnings: &warnings)
      launches.removeAll { $0 == .current || (reachedPrompt && !$0.isRunning) }
      write(launches, in: directory, warnings: &warnings)
    } catch {
      warnings.append("cannot record the launch: \(error.localizedDescription)")
    }
    return warnings
  }

  /// The launches recorded; an unreadable file is set aside with a warning.
  private static func read(in directory: StateDirectory, warnings: inout [String])
    -> [ProcessIdentity]
  {
    do {
      return try directory.load(LaunchFile.self, from: LaunchFile.path)?.launches ?? []
    } catch {
      let reason = error.localizedDescription
      if let destination = try? directory.quarantine(LaunchFile.path) {
        warnings.append(
          "\(reason); moved it to '\(destination)', and the count of crashed launches starts at 0"
        )
      } else {
        warnings.append("\(reason); the count of crashed launches starts at 0")
      }
      return []
    }
  }

  /// Writes the launches; a file that cannot be written costs only the crash count.
  private static func write(
    _ launches: [ProcessIdentity], in directory: StateDirectory, warnings: inout [String]
  ) {
    do {
      // A process that dies and a pid that is reused leave at most a few stale entries.
      try directory.save(LaunchFile(launches: Array(launches.suffix(64))), to: LaunchFile.path)
    } catch {
      warnings.append("cannot record the launch: \(error.localizedDescription)")
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
