import Foundation

/// A directory under the temporary folder, removed when the value is destroyed.
package final class TemporaryDirectory {
  /// The directory's path.
  package let path: String

  /// Creates a new, empty directory.
  package init() {
    path = NSTemporaryDirectory() + "catalog-tests-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: path)
  }
}

/// The identifier of a process that has ended, for state files that name dead processes.
package func deadProcessIdentifier() -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/true")
  try? process.run()
  process.waitUntilExit()
  return process.processIdentifier
}
