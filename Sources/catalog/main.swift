// The `catalog` executable: everything else lives in CatalogApp and CatalogCore, where tests
// reach it.
import CatalogApp

#if canImport(Glibc)
  import Glibc
#endif

/// The environment, read from `environ`: Foundation's `ProcessInfo` builds more than this needs,
/// and a search from the shell is mostly start-up.
func environment() -> [String: String] {
  var variables: [String: String] = [:]
  var entry = environ
  while let pointer = entry.pointee {
    let text = String(cString: pointer)
    if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
      variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    entry += 1
  }
  return variables
}

let arguments = Array(CommandLine.arguments.dropFirst())
CommandLineSecrets.hidePasswords(count: CommandLine.argc, in: CommandLine.unsafeArgv)
exit(CatalogMain.run(arguments: arguments, environment: environment()))
