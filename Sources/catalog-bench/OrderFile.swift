import Foundation

/// `catalog-bench order-file [--output FILE]`: writes the list of the `catalog` functions that
/// everyday commands run, and of the variables they touch, for the linker to place side by side
/// (`--symbol-ordering-file`).
///
/// The executable is 16 MB of code, and a command runs a few thousand functions scattered
/// through it: each page of them is read in by a page fault, about 120 of them in a saved edit.
/// Placed together, the same functions fill about a tenth of the pages. The same holds for the
/// runtime's, Foundation's and the program's variables (`.data`, `.bss`): a command touches a
/// thousand or so of the tens of thousands there, each page of them a page fault of its own
/// (zeroed or copied for the process). The functions are found by running, under Valgrind's
/// `callgrind`, a launch restoring three scenes with editors open and the commands a person runs
/// most from the shell, on the bundled catalog; the variables by running the same commands, on
/// a state of their own, under `lackey`, which traces every access to memory. Each symbol is
/// named once, with the first command that uses it. A symbol the list does not name (renamed
/// since, or used by no command here) is placed as before, so a list gone stale costs speed,
/// never correctness. Needs `valgrind`, `objcopy` and `nm` (binutils); run it from the package
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
  // Valgrind 3.19 cannot read the toolchain's debugging information; the symbols stay.
  let binary = root + "/catalog"
  try run("objcopy", ["--strip-debug", Programs.catalog.path, binary])
  // Each pass runs the commands on a state of its own, as the first pass changes it.
  func commands(in folder: String) throws -> [(String, [String])] {
    let directories = ["--state-dir", folder + "/state", "--data-dir", folder + "/data"]
    let scene = directories + ["--scene", "edits"]
    _ = try measure(Programs.catalog, directories, input: threeScenesWithEditors)
    return [
      ("launch restoring three scenes", directories),
      ("select", scene + ["select", "2"]),
      ("edit", scene + ["edit"]),
      ("price", scene + ["price", "9.99"]),
      ("done", scene + ["done"]),
      ("list", scene + ["list"]),
      ("search", directories + ["search", "cherry"]),
    ]
  }
  var functions: [String] = []
  var named: Set<String> = []
  for (index, (label, arguments)) in try commands(in: root + "/functions").enumerated() {
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
  let variables = try VariableMap(binary: binary)
  var touched: [String] = []
  for (index, (label, arguments)) in try commands(in: root + "/variables").enumerated() {
    FileHandle.standardError.write(
      Data("catalog-bench order-file: \(label), its variables…\n".utf8))
    let trace = root + "/lackey.\(index)"
    try run(
      "valgrind", ["--tool=lackey", "--trace-mem=yes", "--log-file=" + trace, binary] + arguments)
    touched += try variables.touched(in: Data(contentsOf: URL(fileURLWithPath: trace)))
      .filter { named.insert($0).inserted }.sorted()
    try? FileManager.default.removeItem(atPath: trace)
  }
  let header = """
    # The functions of `catalog` that a launch and everyday commands run, then the variables
    # they touch, for the linker to place together (see Package.swift). Written by
    # `catalog-bench order-file`; names no longer in the binary are passed over.

    """
  try Data((header + (functions + touched).joined(separator: "\n") + "\n").utf8).write(
    to: URL(fileURLWithPath: output), options: .atomic)
  // SwiftPM does not know the list is an input of the link: a build links again only when
  // something else changed.
  print(
    "\(functions.count) functions and \(touched.count) variables written to \(output); link "
      + "again with `rm \(Programs.catalog.path) && swift build -c release`")
}

/// Where each variable of a binary lies: the symbols `nm` lists in its data sections
/// (initialized and zeroed, local or not), by address.
struct VariableMap {
  private var starts: [UInt64] = []
  private var ends: [UInt64] = []
  private var names: [String] = []

  /// Lists the variables of a binary.
  ///
  /// - Parameter binary: The executable.
  /// - Throws: When `nm` cannot be run.
  init(binary: String) throws {
    let listing = try output(
      of: "nm", ["--defined-only", "--numeric-sort", "--print-size", binary])
    for line in listing.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count == 4, ["b", "B", "d", "D"].contains(fields[2]),
        let start = UInt64(fields[0], radix: 16), let size = UInt64(fields[1], radix: 16),
        size > 0, case (let end, false) = start.addingReportingOverflow(size)
      else { continue }
      starts.append(start)
      ends.append(end)
      names.append(String(fields[3]))
    }
  }

  /// The variables a `lackey --trace-mem=yes` log saw loaded, stored or modified, each once.
  ///
  /// - Parameter trace: The log: a line ` L 04a3b2c0,8` (or `S`, `M`) for each access.
  /// - Returns: The variables' names.
  func touched(in trace: Data) -> Set<String> {
    var found: Set<Int> = []
    trace.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
      var index = 0
      while index < bytes.count {
        // An access line: a space, its kind, a space, the address in hex.
        var cursor = index
        if bytes.count - cursor > 3, bytes[cursor] == UInt8(ascii: " "),
          [UInt8(ascii: "L"), UInt8(ascii: "S"), UInt8(ascii: "M")].contains(bytes[cursor + 1]),
          bytes[cursor + 2] == UInt8(ascii: " ")
        {
          cursor += 3
          var address: UInt64 = 0
          while cursor < bytes.count, let digit = hexDigit(bytes[cursor]) {
            address = address &<< 4 | UInt64(digit)
            cursor += 1
          }
          if let variable = variable(at: address) { found.insert(variable) }
        }
        while cursor < bytes.count, bytes[cursor] != UInt8(ascii: "\n") { cursor += 1 }
        index = cursor + 1
      }
    }
    return Set(found.map { names[$0] })
  }

  /// The index of the variable that holds an address, if any.
  private func variable(at address: UInt64) -> Int? {
    var (low, high) = (0, starts.count)
    while low < high {
      let middle = (low + high) / 2
      if starts[middle] <= address { low = middle + 1 } else { high = middle }
    }
    guard low > 0, address < ends[low - 1] else { return nil }
    return low - 1
  }

  private func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    default: nil
    }
  }
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
