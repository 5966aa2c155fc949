import Foundation

/// A directory under /tmp, removed when the value is destroyed.
final class TemporaryDirectory {
  let path: String

  init() {
    path = NSTemporaryDirectory() + "state-restoration-tests-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: path)
  }
}
