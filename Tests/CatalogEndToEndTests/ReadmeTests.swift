import Foundation
import Testing

/// The README's examples, run as written: every REPL command of its transcripts in a sandbox
/// (a `$ swift run catalog` line starts a session, `^D` ends it) and every `$ catalog …` shell
/// line; each succeeds, and each output line shown (but elisions and the picture) comes out.
@Suite(.serialized) struct ReadmeTests {
  static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../README.md").standardized.path

  struct Step {
    var command: String
    var expected: [String] = []
  }

  struct Example {
    var sessions: [[Step]] = [[]]
    var shell: [String] = []
  }

  /// The README's completion commands work on a fresh account, as written: run line by line
  /// in an empty home, with `catalog` on the PATH, each succeeds and leaves its script where
  /// the shell reads it.
  @Test func theCompletionCommandsWorkOnAFreshAccount() throws {
    let text = try String(contentsOfFile: Self.readme, encoding: .utf8)
    let blocks = text.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 1 }
      .map(\.element)
    let block = try #require(blocks.first { $0.contains("--generate-completion-script bash") })
    let home = TemporaryHome()
    let bin = CatalogSandbox.executable.deletingLastPathComponent().path
    for line in block.split(separator: "\n").map(String.init)
    where !line.hasPrefix("#") && !line.trimmingCharacters(in: .whitespaces).isEmpty {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/bash")
      process.arguments = ["-c", line]
      process.environment = ["HOME": home.path, "PATH": bin + ":/usr/bin:/bin"]
      process.standardError = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0, "\(line)")
    }
    for file in [
      ".local/share/catalog/completion.bash", ".zfunc/_catalog",
      ".config/fish/completions/catalog.fish",
    ] {
      let path = home.path + "/" + file
      #expect(
        (try? String(contentsOfFile: path, encoding: .utf8))?.contains("catalog") == true, "\(file)"
      )
    }
    #expect(
      try String(contentsOfFile: home.path + "/.bashrc", encoding: .utf8).contains(
        "completion.bash"))
  }

  /// The code blocks of the README that hold a REPL transcript.
  static func examples() throws -> [Example] {
    let text = try String(contentsOfFile: readme, encoding: .utf8)
    let blocks = text.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 1 }
      .map(\.element)
    return blocks.filter { $0.contains(" › ") }.map { block in
      var example = Example()
      for line in block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
        if line.hasPrefix("$ swift run catalog") {
          if !(example.sessions.last?.isEmpty ?? true) { example.sessions.append([]) }
        } else if line.hasPrefix("$ catalog ") {
          let command = line.dropFirst(2).components(separatedBy: "  #").first ?? ""
          example.shell.append(command.trimmingCharacters(in: .whitespaces))
        } else if let range = line.range(of: " › ", options: .backwards),
          line.first?.isLetter == true,
          line.prefix(while: { $0 != " " }).allSatisfy({
            $0.isLetter || $0.isNumber || "._-".contains($0)
          })
        {
          let command = String(line[range.upperBound...]).trimmingCharacters(in: .whitespaces)
          if command == "^D" {
            example.sessions.append([])
          } else {
            example.sessions[example.sessions.count - 1].append(Step(command: command))
          }
        } else if !example.sessions[example.sessions.count - 1].isEmpty {
          let last = example.sessions.count - 1
          example.sessions[last][example.sessions[last].count - 1].expected.append(line)
        }
      }
      example.sessions.removeAll { $0.isEmpty }
      return example
    }
  }

  static func normalized(_ line: String) -> String {
    line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }

  @Test func theREADMEsExamplesWorkAsShown() throws {
    let examples = try Self.examples()
    #expect(examples.count >= 2)
    for example in examples {
      let sandbox = CatalogSandbox()
      for session in example.sessions {
        let result = try sandbox.run(input: session.map { $0.command + "\n" }.joined())
        #expect(result.status == 0, "\(session.map(\.command)): \(result.errors)")
        #expect(result.errorLines.filter { $0.hasPrefix("error:") }.isEmpty, "\(result.errors)")
        let output = Set(result.output.split(separator: "\n").map { Self.normalized(String($0)) })
        for step in session {
          for line in step.expected
          where !line.contains("…") && !line.contains("▀") && !line.contains("half blocks")
            && !Self.normalized(line).isEmpty
          {
            #expect(
              output.contains(Self.normalized(line)),
              "'\(step.command)' should print '\(line)'; it printed:\n\(result.output)")
          }
        }
      }
      for command in example.shell {
        let arguments = try shellWords(String(command.dropFirst("catalog ".count)))
        let result = try sandbox.run(arguments)
        #expect(result.status == 0, "\(command): \(result.errors)")
      }
    }
  }

  /// Words of a shell command line: single quotes group, as the README's examples use them.
  private func shellWords(_ line: String) throws -> [String] {
    var words: [String] = []
    var word = ""
    var quoted = false
    for character in line {
      if character == "'" {
        quoted.toggle()
      } else if character == " " && !quoted {
        if !word.isEmpty { words.append(word) }
        word = ""
      } else {
        word.append(character)
      }
    }
    if !word.isEmpty { words.append(word) }
    return words
  }
}

/// The binary travels alone: copied to an empty folder, with no build folder beside it, it
/// runs on its built-in catalog and pictures.
@Suite struct InstalledBinaryTests {
  @Test func aCopiedBinaryRunsOnItsBuiltInResources() throws {
    let sandbox = CatalogSandbox()
    let folder = sandbox.root + "/bin"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let copy = folder + "/catalog"
    try FileManager.default.copyItem(atPath: CatalogSandbox.executable.path, toPath: copy)
    let binary = try Data(contentsOf: URL(fileURLWithPath: copy))
    #expect(binary.range(of: Data(".resources".utf8)) == nil, "it looks for a resource bundle")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: copy)
    process.currentDirectoryURL = URL(fileURLWithPath: folder)
    process.arguments = [
      "--state-dir", sandbox.stateDirectory, "--data-dir", sandbox.dataDirectory,
    ]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    try? input.fileHandleForWriting.write(contentsOf: Data("list\nselect cher\ntab photo\n".utf8))
    try input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(text)")
    #expect(text.contains("10 products."))
    #expect(text.contains("Images/Cherries.png, 64×64 pixels"), "\(text)")
  }
}

/// `catalog --generate-completion-script bash`, sourced by bash, completes subcommands,
/// options, their values and the scene names of the state directory.
@Suite struct CompletionScriptTests {
  @Test func bashCompletesSubcommandsOptionsValuesAndScenes() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cher\nscene new side mango\n")
    let script = try sandbox.run(["--generate-completion-script", "bash"]).output
    let file = sandbox.root + "/completion.bash"
    try Data(script.utf8).write(to: URL(fileURLWithPath: file))
    func complete(_ words: [String]) throws -> [String] {
      let quoted = words.map { "'\($0)'" }.joined(separator: " ")
      return try Self.bash(
        "source '\(file)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _catalog; printf '%s\\n' \"${COMPREPLY[@]}\""
      )
    }
    // catalog's own commands, then the REPL's, which run as `catalog COMMAND …`.
    let words = try complete(["catalog", "s"])
    #expect(words == ["state", "search", "select", "scenes", "scene"], "\(words)")
    #expect(try complete(["catalog", "--co"]) == ["--color"])
    #expect(try complete(["catalog", "--color", "a"]) == ["auto", "always"])
    #expect(
      try complete(["catalog", "--state-dir", sandbox.stateDirectory, "--scene", ""]).sorted()
        == ["main", "side"])
    for shell in ["zsh", "fish"] {
      let result = try sandbox.run(["--generate-completion-script", shell])
      #expect(result.status == 0 && result.output.contains("catalog"))
    }
  }

  /// A REPL command's arguments complete on the command line as in the REPL, the program
  /// asked for them: products (spaces and all), tabs, scenes, links split at the colon as bash
  /// splits them, a command's flags.
  @Test func bashCompletesEachArgumentAsTheREPLDoes() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "scene new side mango\n")
    let file = sandbox.root + "/completion.bash"
    let script = try sandbox.run(["--generate-completion-script", "bash"]).output
    try Data(script.utf8).write(to: URL(fileURLWithPath: file))
    let program = CatalogSandbox.executable.path
    let options = "--state-dir \(sandbox.stateDirectory) --data-dir \(sandbox.dataDirectory)"
    /// What bash offers for a line typed after the options; `words` are bash's words of it.
    func complete(_ line: String, words: [String]) throws -> [String] {
      let typed = "\(program) \(options) \(line)"
      let all = [program] + options.split(separator: " ").map(String.init) + words
      return try Self.bash(
        """
        source '\(file)'; COMP_WORDS=(\(all.map { "'\($0)'" }.joined(separator: " ")))
        COMP_CWORD=\(all.count - 1); COMP_LINE='\(typed)'; COMP_POINT=${#COMP_LINE}
        _catalog; printf '%s\\n' "${COMPREPLY[@]}"
        """)
    }
    #expect(try complete("select che", words: ["select", "che"]) == ["Cherries"])
    // More names than are printed: what all share, then, once typed, how many more there are.
    let golden = sandbox.root + "/golden.json"
    let records = (1...150).map {
      #"{"name": "Golden Almond \#($0)", "imageName": "", "year": 2000, "price": 1}"#
    }
    try Data(("[" + records.joined(separator: ",") + "]").utf8).write(
      to: URL(fileURLWithPath: golden))
    #expect(try sandbox.run(["import", golden]).status == 0)
    let golds = try complete("select gol", words: ["select", "gol"])
    #expect(
      golds.allSatisfy { $0.hasPrefix("Golden Almond ") } && golds.contains("Golden Almond 2"),
      "\(golds)")
    let more = try complete("select Golden Almond ", words: ["select", "Golden", "Almond", ""])
    #expect(more.first == "(50 more)" && more.count == 101, "\(more)")
    #expect(try complete("select Red R", words: ["select", "Red", "R"]) == ["Rose"])
    #expect(try complete("select se", words: ["select", "se"]) == [])
    #expect(try complete("tab ", words: ["tab", ""]) == ["detail", "photo"])
    #expect(try complete("scene switch s", words: ["scene", "switch", "s"]) == ["side"])
    #expect(try complete("continue 1 --sc", words: ["continue", "1", "--sc"]) == ["--scene"])
    #expect(
      try complete("open catalog://pro", words: ["open", "catalog", ":", "//pro"])
        == ["//products", "//product/"])
    // Before a command, catalog's own commands.
    #expect(try complete("sel", words: ["sel"]) == ["select"])
  }

  /// What a bash script prints, a line each.
  private static func bash(_ script: String) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }
}

/// An empty home directory, removed afterwards.
final class TemporaryHome {
  let path = NSTemporaryDirectory() + "catalog-home-" + UUID().uuidString

  init() {
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: path)
  }
}
