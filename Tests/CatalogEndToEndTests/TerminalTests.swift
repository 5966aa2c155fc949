import Foundation
import Testing

/// A pseudo-terminal: the test holds the controlling side, `catalog` gets the terminal side.
final class PseudoTerminal {
  let controller: Int32
  let terminal: Int32
  /// What the program drew after the text the last read waited for.
  private var unread = Data()

  init() throws {
    // posix_openpt and friends are not visible from Swift's Glibc module; these are what they
    // do on Linux: open the multiplexer, unlock the terminal side (TIOCSPTLCK), get its number
    // (TIOCGPTN).
    controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard controller >= 0, ioctl(controller, 0x4004_5431, &unlock) == 0,
      ioctl(controller, 0x8004_5430, &number) == 0
    else {
      throw POSIXError(.ENODEV)
    }
    terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
    guard terminal >= 0 else { throw POSIXError(.ENODEV) }
    var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(controller, UInt(TIOCSWINSZ), &size)
  }

  deinit {
    close(controller)
    close(terminal)
  }

  /// The terminal's settings now.
  var settings: termios {
    var settings = termios()
    tcgetattr(terminal, &settings)
    return settings
  }

  /// Types bytes, as keys on a keyboard.
  func type(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
  }

  /// Reads what the program drew, up to and including `text`; what came after it is read by
  /// the next call (a prompt drawn in the same write as a product's last line is not lost).
  @discardableResult
  func read(
    until text: String, timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation
  ) -> String {
    guard
      CatalogEndToEndTests.read(controller, into: &unread, until: text, timeout: timeout),
      let found = unread.range(of: Data(text.utf8))
    else {
      let drawn = String(decoding: unread, as: UTF8.self)
      unread = Data()
      Issue.record(
        "no '\(text)' in the output: \(drawn.debugDescription)", sourceLocation: sourceLocation)
      return drawn
    }
    let drawn = String(decoding: unread[..<found.upperBound], as: UTF8.self)
    unread = Data(unread[found.upperBound...])
    return drawn
  }

  /// Quits with Ctrl-D, as a person would, and waits for the exit.
  ///
  /// - Returns: The exit status.
  func quit(_ process: Process, sourceLocation: SourceLocation = #_sourceLocation) -> Int32 {
    type("\u{04}")
    // Never hang the suite: a process that does not end in 20 s is killed, and the test fails.
    let deadline = Date().addingTimeInterval(20)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
      Issue.record("catalog did not quit on Ctrl-D", sourceLocation: sourceLocation)
      kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Starts `catalog` on the terminal.
  func start(
    _ sandbox: CatalogSandbox, environment extra: [String: String] = [:],
    arguments: [String] = []
  ) throws -> Process {
    let process = Process()
    process.executableURL = CatalogSandbox.executable
    process.arguments =
      ["--state-dir", sandbox.stateDirectory, "--data-dir", sandbox.dataDirectory] + arguments
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = "xterm-256color"
    environment["NO_COLOR"] = nil
    environment["COLORTERM"] = nil
    environment.merge(extra) { _, new in new }
    process.environment = environment
    let handle = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
    process.standardInput = handle
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    return process
  }
}

func sameSettings(_ a: termios, _ b: termios) -> Bool {
  var a = a
  var b = b
  return a.c_iflag == b.c_iflag && a.c_oflag == b.c_oflag && a.c_cflag == b.c_cflag
    && a.c_lflag == b.c_lflag
    && withUnsafeBytes(of: &a.c_cc) { Array($0) } == withUnsafeBytes(of: &b.c_cc) { Array($0) }
}

@Suite(.serialized) struct TerminalTests {
  @Test func editsWithArrowKeysAndLeavesTheTerminalAsItWas() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    let before = pty.settings
    let process = try pty.start(sandbox)
    pty.read(until: "main")
    #expect(!sameSettings(pty.settings, before), "the prompt reads in raw mode")
    // "select mngo", then back three characters and put the missing "a" in.
    pty.type("select mngo\u{1B}[D\u{1B}[D\u{1B}[Da\r")
    let shown = pty.read(until: "Keywords")
    #expect(shown.contains("Mango"))
    #expect(pty.quit(process) == 0)
    #expect(sameSettings(pty.settings, before))
    #expect(try TerminalTests.lineHistory(sandbox) == ["select mango"])
  }

  @Test func restoresTheTerminalOnSIGTERM() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    let before = pty.settings
    let process = try pty.start(sandbox)
    pty.read(until: " › ")
    pty.type("sel")
    pty.read(until: "sel")
    kill(process.processIdentifier, SIGTERM)
    process.waitUntilExit()
    #expect(process.terminationStatus == 128 + SIGTERM)
    #expect(sameSettings(pty.settings, before))
  }

  /// An earlier version's history (JSON) comes back, and is written as lines from then on.
  @Test func historyComesBackInTheNextSession() throws {
    let sandbox = CatalogSandbox()
    try sandbox.createStateDirectory()
    try sandbox.write(#"{"formatVersion": 1, "lines": ["select ginger", "list"]}"#, to: "history")
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox)
    pty.read(until: " › ")
    pty.type("\u{1B}[A\u{1B}[A\r")
    pty.read(until: "Keywords")
    #expect(pty.quit(process) == 0)
    #expect(try TerminalTests.lineHistory(sandbox) == ["select ginger", "list", "select ginger"])
    #expect(try sandbox.stateJSON().description.contains("Ginger"))
  }
}

extension TerminalTests {
  @Test func colourFollowsTheOptionAndNoColour() throws {
    let sandbox = CatalogSandbox()
    let always = try sandbox.run(["--color", "always"], input: "bogus\n")
    #expect(always.errors.hasPrefix("\u{1B}[1;31merror:\u{1B}[0m unknown command 'bogus'"))
    let plain = try sandbox.run(input: "bogus\n")
    #expect(plain.errors.hasPrefix("error: unknown command 'bogus'"))
    // On a terminal, NO_COLOR turns colour off and the photo tab describes the picture.
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, environment: ["NO_COLOR": "1"])
    pty.read(until: " › ")
    pty.type("select cher\rtab photo\r")
    let shown = pty.read(until: "64×64 pixels")
    #expect(!shown.contains("\u{1B}[1;36m"))
    #expect(pty.quit(process) == 0)
    // With colour, it draws the picture: 20 rows of half blocks in 24-bit colour.
    let drawing = try PseudoTerminal()
    let drawer = try drawing.start(sandbox, environment: ["COLORTERM": "truecolor"])
    drawing.read(until: " › ")
    drawing.type("tab photo\r")
    let picture = drawing.read(until: "Tabs")
    #expect(picture.components(separatedBy: "▀").count > 20 * 20)
    #expect(picture.contains("\u{1B}[38;2;"))
    #expect(drawing.quit(drawer) == 0)
  }
}

extension TerminalTests {
  @Test func redrawsWhenTheWindowNarrows() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox)
    pty.read(until: " › ")
    pty.type("select cherries")
    pty.read(until: "\r\u{1B}[22C")
    // 20 columns: "main › select cherri" fills a row, "es" wraps to the next.
    var size = winsize(ws_row: 24, ws_col: 20, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(pty.controller, UInt(TIOCSWINSZ), &size)
    kill(process.processIdentifier, SIGWINCH)
    pty.read(until: "select cherries\u{1B}[J\r\u{1B}[2C")
    pty.type("\r")
    pty.read(until: "Keywords")
    #expect(pty.quit(process) == 0)
  }
}

extension TerminalTests {
  /// Tab completes a name with quotes into a word the parser reads back: Enter selects it.
  @Test func completingANameWithQuotesMakesACommandThatWorks() throws {
    let sandbox = CatalogSandbox()
    let file = sandbox.root + "/odd.json"
    try Data(
      #"[{"name": "Fish \"n\" chips", "imageName": "", "year": 2020, "price": 4.5}, {"name": "O'Brien", "imageName": "", "year": 2021, "price": 2}]"#
        .utf8
    ).write(to: URL(fileURLWithPath: file))
    #expect(try sandbox.run(["import", file]).status == 0)
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, environment: ["NO_COLOR": "1"])
    pty.read(until: " › ")
    pty.type("select fish\t")
    pty.read(until: #""Fish \"n\" chips""#)
    pty.type("\r")
    pty.read(until: "Year   2020")
    pty.type("select o'b\t")
    pty.read(until: #""O'Brien""#)
    pty.type("\r")
    pty.read(until: "Year   2021")
    #expect(pty.quit(process) == 0)
  }

  /// Pages and pictures take the window's size when they are printed, not at launch.
  @Test func outputFitsTheWindowAfterAResize() throws {
    let sandbox = CatalogSandbox()
    // The sample catalog first: a first import into a new data directory adds no sample.
    _ = try sandbox.run(input: "list\n")
    let file = sandbox.root + "/many.json"
    try Data(CatalogDatabaseTests.productsJSON(90).utf8).write(to: URL(fileURLWithPath: file))
    #expect(try sandbox.run(["import", file]).status == 0)
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, environment: ["NO_COLOR": "1"])
    pty.read(until: " › ")
    pty.type("list\r")
    pty.read(until: "1–19 of 100 products (page 1 of 6)")
    var size = winsize(ws_row: 12, ws_col: 30, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(pty.controller, UInt(TIOCSWINSZ), &size)
    kill(process.processIdentifier, SIGWINCH)
    pty.type("list\r")
    pty.read(until: "1–7 of 100 products (page 1 of 15)")
    #expect(pty.quit(process) == 0)
  }

  @Test func sigintAbandonsTheLineAndTheTerminalComesBackAtTheEnd() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    let before = pty.settings
    let process = try pty.start(sandbox)
    pty.read(until: " › ")
    pty.type("select gin")
    pty.read(until: "select gin")
    kill(process.processIdentifier, SIGINT)
    // The line is dropped and a new prompt drawn; the session goes on.
    pty.read(until: "\r\n\r")
    pty.type("select mango\r")
    let shown = pty.read(until: "Keywords")
    #expect(shown.contains("Mango") && !shown.contains("Ginger"))
    #expect(pty.quit(process) == 0)
    #expect(sameSettings(pty.settings, before))
  }
}

extension TerminalTests {
  @Test func anUnreadableLineHistoryIsSetAside() throws {
    let sandbox = CatalogSandbox()
    try sandbox.createStateDirectory()
    try sandbox.write(Data([0x73, 0xFF, 0xFE, 0x0A]), to: "history")
    let result = try sandbox.run(input: "list\n")
    #expect(result.status == 0)
    #expect(result.errorLines.count == 1)
    #expect(result.errors.contains("the line history starts empty"))
    #expect(sandbox.quarantined().count == 1)
    #expect(!sandbox.exists("history"))
  }

  /// A line history that cannot be written is said once, and the session goes on.
  @Test func aLineHistoryThatCannotBeSavedIsSaidOnce() throws {
    let sandbox = CatalogSandbox()
    try sandbox.createStateDirectory()
    // Its lock cannot be taken: a directory stands where the lock file goes.
    try FileManager.default.createDirectory(
      atPath: sandbox.stateDirectory + "/locks/history.lock", withIntermediateDirectories: true)
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, environment: ["NO_COLOR": "1"])
    pty.read(until: " › ")
    pty.type("select cher\r")
    let first = pty.read(until: "› ", timeout: 20)
    pty.type("select mango\r")
    var second = pty.read(until: "Keywords")
    second += pty.read(until: "› ")
    let said = "warning: cannot save the line history"
    #expect((first + second).components(separatedBy: said).count == 2, "\(first + second)")
    #expect(pty.quit(process) == 0)
  }

  /// One command from the shell shows no prompt and reads no line history: the file is left
  /// for the next REPL to check.
  @Test func oneCommandFromTheShellLeavesTheLineHistoryUnread() throws {
    let sandbox = CatalogSandbox()
    try sandbox.createStateDirectory()
    try sandbox.write(Data([0x73, 0xFF, 0xFE, 0x0A]), to: "history")
    let result = try sandbox.run(["list"])
    #expect(result.status == 0)
    #expect(result.errors.isEmpty, "\(result.errors)")
    #expect(sandbox.quarantined().isEmpty)
    #expect(sandbox.exists("history"))
    #expect(try sandbox.run(input: "list\n").errors.contains("the line history starts empty"))
  }
}

extension TerminalTests {
  /// With `TERM=dumb` there is no line editor; a resize must not disturb the plain prompt.
  @Test func aResizeLeavesAPlainPromptAlone() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, environment: ["TERM": "dumb"])
    pty.read(until: "main › ")
    kill(process.processIdentifier, SIGWINCH)
    pty.type("list\n")
    let shown = pty.read(until: "Artichoke")
    let beforeList = shown.components(separatedBy: "Artichoke")[0]
    #expect(
      !beforeList.contains("main › "), "the prompt was drawn again: \(shown.debugDescription)")
    #expect(pty.quit(process) == 0)
  }
}

/// The line editor's keys on a real pseudo-terminal: a paste of several lines, Alt-D,
/// Ctrl-T and Ctrl-_, Ctrl-Z and SIGCONT.
@Suite(.serialized) struct TerminalKeyTests {
  /// A first launch on a terminal, with nothing restored, says how to get help; a launch
  /// that restored a scene does not.
  @Test func aFirstLaunchOnATerminalHintsAtHelp() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox)
    pty.read(until: "Type 'help' for commands.")
    pty.type("select cher\r")
    pty.read(until: "Keywords")
    #expect(pty.quit(process) == 0)
    // A terminal of its own, so that nothing the first process drew is read as the second's.
    let second = try PseudoTerminal()
    let again = try second.start(sandbox)
    let shown = second.read(until: "Cherries")
    #expect(!shown.contains("Type 'help'"))
    #expect(second.quit(again) == 0)
  }

  /// A paste of several lines waits in the line until Enter, nothing of it run; then its
  /// lines run one by one.
  @Test func aPasteOfSeveralLinesWaitsForEnterThenRunsThemOneByOne() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox)
    pty.read(until: " › ")
    pty.type("\u{1B}[200~select mango\nselect cher\ntab ph\u{1B}[201~")
    let waiting = pty.read(until: "tab ph")
    #expect(waiting.contains("select mango↵select cher↵tab ph"), "\(waiting.debugDescription)")
    Thread.sleep(forTimeInterval: 0.3)
    pty.type("oto\r")
    let shown = pty.read(until: "[photo]")
    #expect(!waiting.contains("Keywords"), "a pasted line ran before Enter")
    #expect(shown.contains("Mango") && shown.contains("Cherries") && shown.contains("Tabs"))
    #expect(pty.quit(process) == 0)
    #expect(try TerminalTests.lineHistory(sandbox) == ["select mango", "select cher", "tab photo"])
  }

  @Test func editingKeysAndSuspend() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox)
    pty.read(until: " › ")
    // "select cherries now": Ctrl-A, Alt-F, Alt-D cuts " cherries"... then Ctrl-_ undoes it.
    pty.type("select cherries now\u{01}\u{1B}f\u{1B}d\u{1F}")
    // Alt-U does nothing; Ctrl-E, Ctrl-W cuts "now".
    pty.type("\u{1B}u\u{05}\u{17}")
    pty.type("\u{1A}")  // Ctrl-Z
    // Stopped (or, in an orphaned process group, carrying on): either way SIGCONT goes on.
    let deadline = Date().addingTimeInterval(2)
    while Date() < deadline {
      let stat =
        (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8))
        ?? ""
      if stat.split(separator: ")").last?.split(separator: " ").first == "T" { break }
      usleep(20_000)
    }
    kill(process.processIdentifier, SIGCONT)
    pty.read(until: "select cherries")
    pty.type("\r")
    let shown = pty.read(until: "Keywords")
    #expect(shown.contains("Cherries"))
    #expect(pty.quit(process) == 0)
    #expect(try TerminalTests.lineHistory(sandbox) == ["select cherries"])
  }
}

/// What the terminal receives when a person completes names in a large catalog, clears the
/// screen, and looks at a picture in a window that changes size.
extension TerminalTests {
  /// Tab inserts what every match shares (not what the first hundred do), a second Tab lists
  /// a screenful and how many more; after Ctrl-L no key erases the screen from its corner.
  @Test func completionInALargeCatalogAndRedrawsThatKeepTheScrollback() throws {
    let sandbox = CatalogSandbox()
    let names = (1...150).map { "Golden Almond \($0)" } + (1...100).map { "Golden Mango \($0)" }
    let records = names.map { #"{"name": "\#($0)", "imageName": "", "year": 2000, "price": 1}"# }
    let file = sandbox.root + "/golden.json"
    try Data(("[" + records.joined(separator: ",") + "]").utf8).write(
      to: URL(fileURLWithPath: file))
    #expect(try sandbox.run(["import", file]).status == 0)
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, environment: ["NO_COLOR": "1"])
    pty.read(until: " › ")
    pty.type("\u{0C}")
    pty.read(until: "\u{1B}[2J")
    pty.type("select gol\t")
    var drawn = pty.read(until: "select Golden ")
    pty.type("\t")
    drawn += pty.read(until: "more; type more to narrow them")
    #expect(!drawn.contains("select Golden Almond"), "inserted what only the first matches share")
    // 24 rows: 22 of names, four columns of them, then the count of the rest.
    let listed = drawn.components(separatedBy: "\r\n").filter { $0.hasPrefix("Golden") }
    #expect(listed.count == 22, "\(listed)")
    #expect(drawn.contains("… and 162 more; type more to narrow them"), "\(drawn)")
    #expect(
      !drawn.contains("\r\u{1B}[J") && !drawn.contains("\u{1B}[H"), "\(drawn.debugDescription)")
    pty.type("\u{15}")
    #expect(pty.quit(process) == 0)
  }

  /// A picture and its indent fit the window; resized, the window gets the picture again at
  /// its new width, and the prompt once.
  @Test func aPictureFitsTheWindowAndIsDrawnAgainWhenItIsResized() throws {
    let sandbox = CatalogSandbox()
    let pty = try PseudoTerminal()
    var size = winsize(ws_row: 40, ws_col: 30, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(pty.controller, UInt(TIOCSWINSZ), &size)
    let process = try pty.start(sandbox, environment: ["COLORTERM": "truecolor"])
    pty.read(until: " › ")
    pty.type("select cherries\r")
    pty.read(until: "Keywords")
    pty.type("tab photo\r")
    // The prompt, in colour, after the picture.
    let prompt = "Cherries [photo]\u{1B}[2m › "
    let narrow = Self.pictureRows(pty.read(until: prompt))
    #expect(!narrow.isEmpty && narrow.allSatisfy { $0.count <= 30 }, "\(narrow.map(\.count))")
    size.ws_col = 60
    _ = ioctl(pty.controller, UInt(TIOCSWINSZ), &size)
    kill(process.processIdentifier, SIGWINCH)
    var redrawn = pty.read(until: "Tabs")
    if !(redrawn.components(separatedBy: "Tabs").last ?? "").contains(prompt) {
      redrawn += pty.read(until: prompt)
    }
    let wide = Self.pictureRows(redrawn)
    #expect(
      wide.count > narrow.count && wide.allSatisfy { $0.count == 42 }, "\(wide.map(\.count))")
    // Below the picture drawn again, the prompt once.
    let below = redrawn.components(separatedBy: "Tabs").last ?? ""
    #expect(below.components(separatedBy: prompt).count == 2, "\(below.debugDescription)")
    #expect(pty.quit(process) == 0)
  }

  /// The rows of a half-block picture in what the terminal received, escape sequences left out.
  private static func pictureRows(_ text: String) -> [String] {
    let plain = text.replacingOccurrences(
      of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
    return plain.components(separatedBy: "\r\n").filter { $0.contains("▀") }
  }
}

extension TerminalTests {
  /// The line history's lines: a line of text each.
  static func lineHistory(_ sandbox: CatalogSandbox) throws -> [String] {
    String(decoding: try sandbox.contents(of: "history"), as: UTF8.self)
      .split(separator: "\n").map(String.init)
  }
}
