import PostgreSQL

#if canImport(Glibc)
  import Glibc
#endif

/// Passwords given on the command line, which every user of the machine can read (`ps`,
/// `/proc/PID/cmdline`) for as long as the process runs.
package enum CommandLineSecrets {
  /// Overwrites, in the process's own argument strings, each password of a `--catalog-url`
  /// with `x`, as `mysql` does: what `ps` shows from then on names the server, not the
  /// password. Call it once the arguments have been copied (`CommandLine.arguments`).
  ///
  /// - Parameters:
  ///   - count: The number of arguments (`CommandLine.argc`).
  ///   - arguments: The argument strings (`CommandLine.unsafeArgv`).
  /// - Returns: Whether a password was hidden.
  @discardableResult
  package static func hidePasswords(
    count: Int32, in arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  ) -> Bool {
    var hidden = false
    var index = 1
    while index < Int(count) {
      defer { index += 1 }
      guard let argument = arguments[index] else { continue }
      let text = String(cString: argument)
      let url: (pointer: UnsafeMutablePointer<CChar>, offset: Int)
      if text == "--catalog-url", index + 1 < Int(count), let next = arguments[index + 1] {
        url = (next, 0)
        index += 1
      } else if text.hasPrefix("--catalog-url=") {
        url = (argument, "--catalog-url=".utf8.count)
      } else {
        continue
      }
      let value = String(cString: url.pointer + url.offset)
      for range in PostgresAddress.passwordRanges(in: value) {
        let start = value.utf8.distance(from: value.startIndex, to: range.lowerBound)
        let length = value.utf8.distance(from: range.lowerBound, to: range.upperBound)
        for byte in 0..<length { url.pointer[url.offset + start + byte] = CChar(UInt8(ascii: "x")) }
        hidden = true
      }
    }
    return hidden
  }

  /// The warning for a password given on the command line.
  ///
  /// - Parameter catalogURL: The `--catalog-url` given.
  /// - Returns: The warning; nil when the command line holds no password.
  package static func warning(catalogURL: String?) -> String? {
    guard let catalogURL, !PostgresAddress.passwordRanges(in: catalogURL).isEmpty else {
      return nil
    }
    return
      "a password on the command line can be read by other users of this machine; keep it in ~/.pgpass or PGPASSWORD instead (see 'Sharing a catalog' in the README)"
  }
}
