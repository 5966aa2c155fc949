// The `catalog` executable: everything else lives in CatalogApp and CatalogCore, where tests
// reach it.
import CatalogApp

#if canImport(Glibc)
  import Glibc
#endif

/// The environment, read from `environ`: Foundation's `ProcessInfo` builds more than this needs,
/// and a search from the shell is mostly start-up. Each name and value is made from its bytes
/// once, into a dictionary sized for them all.
func environment() -> [String: String] {
  var count = 0
  while environ[count] != nil { count += 1 }
  var variables: [String: String] = [:]
  variables.reserveCapacity(count)
  for index in 0..<count {
    guard let pointer = environ[index] else { continue }
    let length = strlen(pointer)
    pointer.withMemoryRebound(to: UInt8.self, capacity: length) { start in
      let text = UnsafeBufferPointer(start: start, count: length)
      guard let equals = text.firstIndex(of: UInt8(ascii: "=")) else { return }
      let name = UnsafeBufferPointer(rebasing: text[..<equals])
      let value = UnsafeBufferPointer(rebasing: text[(equals + 1)...])
      variables[String(decoding: name, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
    }
  }
  return variables
}

let arguments = Array(CommandLine.arguments.dropFirst())
CommandLineSecrets.hidePasswords(count: CommandLine.argc, in: CommandLine.unsafeArgv)
exit(CatalogMain.run(arguments: arguments, environment: environment()))
