import Foundation

/// `catalog-bench order-file [--output FILE]`: writes the list of the `catalog` functions that
/// everyday commands run, for the linker to place side by side (`--symbol-ordering-file`).
///
/// The executable is 16 MB of code, and a command runs a few thousand functions scattered
/// through it: each page of them is read in by a page fault, about 120 of them in a saved edit.
/// Placed together, the same functions fill about a tenth of the pages. The list is found by
/// running, under Valgrind's `callgrind`, a launch restoring three scenes with editors open and
/// the commands a person runs most from the shell, on the bundled catalog; each function is
/// named once, with the first command that runs it. A function the list does not name (renamed
/// since, or run by no command here) is placed as before, so a list gone stale costs speed,
/// never correctness. Needs `valgrind` and `objcopy` (binutils); run it from the package
/// directory on a release build, then link `catalog` again (the list is not an input SwiftPM
/// tracks: remove the binary first).
func orderFileCommand() throws {
  // A debug build's `catalog` (SwiftPM's `debug` folder) runs unspecialized functions the
  // release build does not have.
  guard Programs.folder.lastPathComponent != "debug" else {
    throw CatalogBenchError(
      "order-file profiles the release build: swift run -c release catalog-bench order-file")
  }
  let output = stringOption("--output") ?? "Sources/catalog/startup.order"
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }
  let directories = ["--state-dir", root + "/state", "--data-dir", root + "/data"]
  let scene = directories + ["--scene", "edits"]

  // Valgrind 3.19 cannot read the toolchain's debugging information; the symbols stay.
  let binary = root + "/catalog"
  try run("objcopy", ["--strip-debug", Programs.catalog.path, binary])
  _ = try measure(
    Programs.catalog, directories,
    input: threeScenesWithEditors)
  let commands: [(String, [String])] = [
    ("launch restoring three scenes", directories),
    ("select", scene + ["select", "2"]),
    ("edit", scene + ["edit"]),
    ("price", scene + ["price", "9.99"]),
    ("done", scene + ["done"]),
    ("list", scene + ["list"]),
    ("search", directories + ["search", "cherry"]),
  ]
  var functions: [String] = []
  var named: Set<String> = []
  for (index, (label, arguments)) in commands.enumerated() {
    FileHandle.standardError.write(Data("catalog-bench order-file: \(label)…\n".utf8))
    let profile = root + "/callgrind.\(index)"
    try run(
      "valgrind",
      ["--tool=callgrind", "--demangle=no", "--callgrind-out-file=" + profile, binary]
        + arguments)
    let text = try String(contentsOfFile: profile, encoding: .utf8)
    // Each command's functions after those of the commands before it; sorted by name within
    // it, as callgrind's own order changes from run to run and the file is kept in git.
    functions += profiledFunctions(text, object: binary).filter { named.insert($0).inserted }
      .sorted()
  }
  let header = """
    # The functions of `catalog` that a launch and everyday commands run, for the linker to
    # place together (see Package.swift). Written by `catalog-bench order-file`; names no
    # longer in the binary are passed over.

    """
  try Data((header + functions.joined(separator: "\n") + "\n").utf8).write(
    to: URL(fileURLWithPath: output), options: .atomic)
  // SwiftPM does not know the list is an input of the link: a build links again only when
  // something else changed.
  print(
    "\(functions.count) functions written to \(output); link again with "
      + "`rm \(Programs.catalog.path) && swift build -c release`")
}

/// The functions of one object file that a callgrind profile saw run, in the profile's order.
///
/// Callgrind names an object (`ob=`, `cob=`) or a function (`fn=`, `cfn=`) in full the first
/// time, as `(ID) NAME`, and by `(ID)` alone after that; a function belongs to the object named
/// by the last `ob=` line. A name Valgrind could not resolve is an address (`0x…`), and one
/// seen again deeper in a recursion carries a `'2`-style suffix.
func profiledFunctions(_ profile: String, object: String) -> [String] {
  var objects: [Substring: Substring] = [:]
  var names: [Substring: Substring] = [:]
  var inObject = false
  var result: [String] = []
  for line in profile.split(separator: "\n") {
    guard let equals = line.firstIndex(of: "="), line[line.index(after: equals)...].first == "("
    else { continue }
    let key = line[..<equals]
    let rest = line[line.index(after: equals)...]
    guard let close = rest.firstIndex(of: ")") else { continue }
    let id = rest[rest.index(after: rest.startIndex)..<close]
    let name = rest[rest.index(after: close)...].drop { $0 == " " }
    switch key {
    case "ob", "cob":
      if !name.isEmpty { objects[id] = name }
      if key == "ob" { inObject = objects[id] == object[...] }
    case "fn", "cfn":
      if !name.isEmpty { names[id] = name }
      guard key == "fn", inObject, let function = names[id], !function.hasPrefix("0x") else {
        continue
      }
      result.append(String(function.split(separator: "'").first ?? function))
    default: continue
    }
  }
  return result
}

/// Runs a program found on the `PATH` to completion, its output discarded; fails with what it
/// printed on standard error when it fails.
private func run(_ program: String, _ arguments: [String]) throws {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [program] + arguments
  process.standardInput = FileHandle.nullDevice
  process.standardOutput = FileHandle.nullDevice
  let errors = Pipe()
  process.standardError = errors
  try process.run()
  let message = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    let reason = String(decoding: message, as: UTF8.self).split(separator: "\n").last ?? ""
    throw CatalogBenchError(
      "\(program) failed (status \(process.terminationStatus)): \(reason)"
        + (process.terminationStatus == 127 ? " — is \(program) installed?" : ""))
  }
}
