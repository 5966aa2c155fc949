import CatalogModel
import Foundation
import StateRestoration
import TestSupport
import Testing

@testable import CatalogCore
@testable import LineEditing

/// A fake terminal: bytes in, the line session's drawing out.
struct FakeTerminal {
  var session: LineSession
  var output = ""
  var result: LineReader.Result?

  init(
    history: [String] = [], columns: Int = 80,
    state: AppState = AppState(
      catalog: bundledCatalog, scenes: [Scene(name: .main)], activeSceneName: .main)
  ) {
    session = LineSession(
      prompt: "main › ", plainPrompt: "main › ", history: history, columns: columns,
      complete: { Completion.complete($0, cursor: $1, state: state) })
    output = session.start()
  }

  /// Types bytes; `\u{1B}` sequences are keys.
  mutating func type(_ text: String) {
    let (drawn, result) = session.feed(Array(text.utf8))
    output += drawn
    if let result { self.result = result }
  }

  var text: String { session.editorState.text }
  var cursor: Int { session.editorState.cursor }

  /// The column the last drawing left the cursor in, from its final `\r` and `ESC[nC`.
  var cursorColumn: Int {
    guard let lastReturn = output.lastIndex(of: "\r") else { return 0 }
    let tail = output[output.index(after: lastReturn)...]
    guard tail.hasPrefix("\u{1B}["), let end = tail.firstIndex(of: "C") else { return 0 }
    return Int(tail[tail.index(tail.startIndex, offsetBy: 2)..<end]) ?? 0
  }
}

let left = "\u{1B}[D"
let right = "\u{1B}[C"
let up = "\u{1B}[A"
let down = "\u{1B}[B"

@Suite struct LineEditorTests {
  @Test func editsInTheMiddleOfMixedText() {
    var terminal = FakeTerminal()
    terminal.type("select Cheries 樱桃")
    #expect(terminal.cursorColumn == 7 + 15 + 4)
    terminal.type("\u{01}\u{1B}f\u{1B}f" + left + left + left + "r")
    #expect(terminal.text == "select Cherries 樱桃")
    #expect(terminal.cursor == 12)
    #expect(terminal.cursorColumn == 7 + 12)
    terminal.type("\u{05}")  // Ctrl-E
    #expect(terminal.cursorColumn == 7 + 16 + 4)
    terminal.type(left)  // onto 桃: one character, two columns, back
    #expect(terminal.cursorColumn == 7 + 16 + 2)
    terminal.type("\u{7F}\u{7F}")  // Backspace over 樱 and the space
    #expect(terminal.text == "select Cherries桃")
    terminal.type("\r")
    #expect(terminal.result == .line("select Cherries桃"))
  }

  @Test(arguments: [
    ("樱桃", 4), ("e\u{301}", 1), ("Glaïeul", 7), ("🍒x", 3), ("ｃｈｅｒｒｙ", 12), ("a\u{300}\u{301}b", 2),
  ])
  func placesTheCursorByDisplayWidth(typed: String, columns: Int) {
    var terminal = FakeTerminal()
    terminal.type(typed)
    #expect(terminal.cursorColumn == 7 + columns)
  }

  @Test func combiningMarksJoinTheCharacterBefore() {
    var terminal = FakeTerminal()
    terminal.type("e\u{301}")
    #expect(terminal.session.editorState.buffer.count == 1)
    terminal.type("\u{7F}")
    #expect(terminal.text.isEmpty)
  }

  @Test func movesByWords() {
    var terminal = FakeTerminal()
    terminal.type("scene new side red rose")
    terminal.type("\u{1B}b\u{1B}b")  // Alt-B twice
    #expect(terminal.cursor == 15)
    terminal.type("\u{1B}[1;5D")  // Ctrl-Left
    #expect(terminal.cursor == 10)
    terminal.type("\u{1B}[1;5C\u{1B}f")  // Ctrl-Right, Alt-F
    #expect(terminal.cursor == 18)
    terminal.type("\u{1B}[H")
    #expect(terminal.cursor == 0)
    terminal.type("\u{1B}[F")
    #expect(terminal.cursor == 23)
    terminal.type("\u{02}\u{02}\u{06}")  // Ctrl-B, Ctrl-B, Ctrl-F
    #expect(terminal.cursor == 22)
  }

  @Test func killsAndYanks() {
    var terminal = FakeTerminal()
    terminal.type("select red rose")
    terminal.type("\u{17}")  // Ctrl-W
    #expect(terminal.text == "select red ")
    terminal.type("\u{01}\u{19}")  // Ctrl-A, Ctrl-Y
    #expect(terminal.text == "roseselect red ")
    terminal.type("\u{0B}")  // Ctrl-K
    #expect(terminal.text == "rose")
    terminal.type("\u{05}\u{19}")
    #expect(terminal.text == "roseselect red ")
    terminal.type("\u{15}")  // Ctrl-U
    #expect(terminal.text.isEmpty)
    terminal.type("push mango")
    terminal.type("\u{1B}\u{7F}")  // Alt-Backspace
    #expect(terminal.text == "push ")
    terminal.type("x\u{1B}[3~")  // Delete at the end does nothing
    terminal.type(left + "\u{1B}[3~")
    #expect(terminal.text == "push ")
    terminal.type("\u{08}")  // Ctrl-H
    #expect(terminal.text == "push")
  }

  @Test func walksTheHistory() {
    var terminal = FakeTerminal(history: ["list", "select cher"])
    terminal.type("draft")
    terminal.type(up)
    #expect(terminal.text == "select cher")
    terminal.type(up + up)
    #expect(terminal.text == "list")
    terminal.type(down)
    #expect(terminal.text == "select cher")
    terminal.type(down)
    #expect(terminal.text == "draft")
    terminal.type("\u{10}")  // Ctrl-P
    #expect(terminal.text == "select cher")
  }

  @Test func searchesTheHistoryBackwards() {
    var terminal = FakeTerminal(history: ["select cherries", "tab photo", "select mango", "list"])
    terminal.type("\u{12}sel")
    #expect(terminal.output.contains("(reverse-i-search)`sel': select mango"))
    #expect(terminal.text == "select mango")
    terminal.type("\u{12}")
    #expect(terminal.text == "select cherries")
    terminal.type("\u{12}")  // no older match: stays
    #expect(terminal.text == "select cherries")
    let before = terminal.output.count
    terminal.type("\r")
    #expect(terminal.result == .line("select cherries"))
    // What stays on the screen is the prompt and the accepted line, not the search.
    let accepted = String(terminal.output.dropFirst(before))
    #expect(accepted.contains("main › select cherries"), "\(accepted.debugDescription)")
    #expect(!accepted.contains("reverse-i-search"))

    var cancelled = FakeTerminal(history: ["tab photo"])
    cancelled.type("draft\u{12}tab\u{07}")  // Ctrl-G cancels
    #expect(cancelled.text == "draft")
    var missing = FakeTerminal(history: ["tab photo"])
    missing.type("\u{12}zz")
    #expect(missing.output.contains("(reverse-i-search)`zz' (no match): "))
    var edited = FakeTerminal(history: ["tab photo"])
    edited.type("\u{12}pho" + right + "s")  // another key takes the match and goes on
    // The match's cursor is at "pho"; Right moves past its "p", then "s" goes in.
    #expect(edited.text == "tab pshoto")
  }

  @Test func completesCommandsAndProducts() {
    var terminal = FakeTerminal()
    terminal.type("sel\t")
    #expect(terminal.text == "select ")
    terminal.type("che\t")
    #expect(terminal.text == "select Cherries ")
  }

  @Test func aSecondTabListsCandidatesInColumns() {
    var terminal = FakeTerminal()
    terminal.type("s\t")
    #expect(terminal.text == "s")
    #expect(terminal.output.hasSuffix("\u{07}"))
    terminal.type("\t")
    #expect(terminal.output.contains("select  search  scenes  scene   state"))
    #expect(terminal.text == "s")
  }

  /// A one-line paste is text to edit: it does not run, and its control characters go.
  @Test func aOneLinePasteDoesNotRunAndKeepsItsText() {
    var terminal = FakeTerminal()
    terminal.type("\u{1B}[200~select mango\ttab\u{1B}[201~")
    #expect(terminal.result == nil)
    #expect(terminal.text == "select mangotab")
  }

  @Test func endsLinesOnControlKeys() {
    var empty = FakeTerminal()
    empty.type("\u{04}")
    #expect(empty.result == .end)
    var deleting = FakeTerminal()
    deleting.type("ab" + left + "\u{04}")
    #expect(deleting.text == "a" && deleting.result == nil)
    var interrupted = FakeTerminal()
    interrupted.type("select" + left + left + "\u{03}")
    #expect(interrupted.result == .interrupted)
    // The abandoned line is shown whole, the cursor after it, then ^C.
    #expect(interrupted.output.hasSuffix("main › select\r\u{1B}[13C^C\r\n"))
    var cleared = FakeTerminal()
    cleared.type("list\u{0C}")
    #expect(cleared.output.contains("\u{1B}[H\u{1B}[2J"))
    #expect(cleared.text == "list")
  }

  @Test func decodesSequencesSplitAcrossReads() {
    var decoder = KeyDecoder()
    #expect(decoder.feed([0x1B]).isEmpty)
    #expect(decoder.feed(Array("[1;5".utf8)).isEmpty)
    #expect(decoder.feed(Array("C".utf8)) == [.wordRight])
    #expect(decoder.feed([0xE6, 0xA8]).isEmpty)
    #expect(decoder.feed([0xB1]) == [.text("樱")])
    #expect(decoder.feed([0x1B]).isEmpty)
    #expect(decoder.flush() == [.escape])
    #expect(decoder.feed(Array("\u{1B}[200~a\u{1B}[2".utf8)).isEmpty)
    #expect(decoder.feed(Array("01~".utf8)) == [.paste("a")])
    #expect(decoder.feed([0xFF]) == [.text("\u{FFFD}")])
  }

  @Test func keysTypedAheadGoToTheNextLine() {
    var terminal = FakeTerminal()
    terminal.type("select cher\rtab ph")
    #expect(terminal.result == .line("select cher"))
    var next = LineSession(
      prompt: "main › ", plainPrompt: "main › ", history: [], columns: 80,
      complete: { _, _ in Completion.Result(start: 0, candidates: []) })
    let (_, result) = next.start(after: terminal.session.carry)
    #expect(result == nil)
    #expect(next.editorState.text == "tab ph")
    _ = next.feed(Array("oto\r".utf8))
    #expect(next.editorState.text == "tab photo")
  }

  @Test func redrawsForANewWidth() {
    var terminal = FakeTerminal(columns: 80)
    terminal.type("select 樱桃樱桃")
    #expect(terminal.cursorColumn == 7 + 15)
    terminal.output = terminal.session.resize(columns: 10)
    #expect(terminal.cursorColumn == 2)
  }

  @Test func wrapsLongLinesAndKeepsTheCursorRight() {
    var terminal = FakeTerminal(columns: 10)
    // "main › sel" fills row 0; "ect 樱桃樱" fills row 1; 桃 does not fit in row 1's last
    // column, so it starts row 2 whole.
    terminal.type("select 樱桃樱桃")
    #expect(terminal.cursorColumn == 2)
    terminal.type(left)
    #expect(terminal.cursorColumn == 0)
    terminal.type(left)
    #expect(terminal.cursorColumn == 8)
    #expect(terminal.output.hasSuffix("\u{1B}[1A\r\u{1B}[8C"))
    // Exactly full: the cursor goes to the next row, not past the margin.
    var full = FakeTerminal(columns: 10)
    full.type("abc")
    #expect(full.output.hasSuffix("\r\n\r"))
  }
}

@Suite struct CompletionTests {
  static let state = AppState(
    catalog: bundledCatalog,
    scenes: [Scene(name: .main), Scene(name: SceneName("side") ?? .main)],
    activeSceneName: .main)

  @Test(arguments: [
    ("se", ["select", "search"]),
    ("sc", ["scenes", "scene"]),
    ("select red", ["Red Rose"]),
    ("select ", bundledProducts.map(\.name)),
    ("push gl", ["Gladiolus"]),
    ("push GLA", ["Gladiolus"]),
    ("scene ", ["new", "switch", "open", "close"]),
    ("scenes --a", ["--all"]),
    ("scene sw", ["switch"]),
    ("scene switch s", ["side"]),
    ("scene close ", ["main", "side"]),
    ("scene new side ma", ["Mango"]),
    ("handoff s", ["side"]),
    ("tab p", ["photo"]),
    ("help con", ["continue"]),
    ("path -", ["--codable"]),
    ("open catalog://pro", ["catalog://products", "catalog://product/"]),
    ("open catalog://product/red", ["catalog://product/Red%20Rose"]),
    ("open catalog://scene/", ["catalog://scene/main/", "catalog://scene/side/"]),
    (
      "open c",
      [
        "catalog://products", "catalog://product/", "catalog://year/", "catalog://search?q=",
        "catalog://scene/",
      ]
    ),
    ("list ", []),
  ])
  func completesByContext(line: String, expected: [String]) {
    let result = Completion.complete(Array(line), cursor: line.count, state: Self.state)
    #expect(result.candidates == expected)
  }

  /// A completed name with quotes or a backslash is inserted quoted, as the parser reads it
  /// back: the command it makes selects that product.
  @Test(arguments: [
    ("select fish", #"Fish "n" chips"#, #""Fish \"n\" chips" "#),
    ("select o'", "O'Brien", #""O'Brien" "#),
    ("select \"o'b", "O'Brien", #""O'Brien" "#),
    ("select back", #"Back\slash"#, #""Back\\slash" "#),
  ])
  func completesANameWithQuotesAsAWordTheParserReadsBack(
    _ line: String, _ name: String, _ inserted: String
  ) throws {
    var products = bundledProducts
    products[0].name = name
    let state = AppState(
      catalog: Catalog(products), scenes: [Scene(name: .main)], activeSceneName: .main)
    let result = Completion.complete(Array(line), cursor: line.count, state: state)
    #expect(result.replacement == inserted, "\(result.candidates)")
    let completed = String(Array(line)[..<result.start]) + (result.replacement ?? "")
    #expect(try CommandParser.parse(completed) == .select(name))
  }

  /// A scene name in quotes is one word: `scene new "my scene"` is one (invalid) name, not a
  /// name and a product.
  @Test func sceneArgumentsFollowTheQuotingRule() {
    #expect(throws: CatalogCoreError.invalidSceneName("my scene")) {
      try CommandParser.parse(#"scene new "my scene""#)
    }
    #expect(
      (try? CommandParser.parse(#"scene new side "Red Rose""#))
        == .newScene(SceneName("side") ?? .main, product: "Red Rose"))
    #expect(
      (try? CommandParser.parse("scene close 'side' --discard"))
        == .closeScene("side", discard: true))
  }

  @Test func replacesTheWordWithTheCommonPrefix() {
    let roses = Completion.complete(Array("open catalog://pro"), cursor: 18, state: Self.state)
    #expect(roses.replacement == "catalog://product")
    let one = Completion.complete(Array("select mang"), cursor: 11, state: Self.state)
    #expect(one.start == 7 && one.replacement == "Mango ")
    let scene = Completion.complete(Array("open catalog://scene/si"), cursor: 23, state: Self.state)
    #expect(scene.replacement == "catalog://scene/side/")
  }
}

@Suite struct HistoryFileTests {
  @Test func addsWithoutBlanksOrRepeatsAndKeepsAThousand() {
    var lines: [String] = []
    for line in ["list", "list", "  ", "select cher  ", "list"] {
      lines = HistoryFile.adding(line, to: lines)
    }
    #expect(lines == ["list", "select cher", "list"])
    for number in 0..<1500 { lines = HistoryFile.adding("select \(number)", to: lines) }
    #expect(lines.count == 1000)
    #expect(lines.first == "select 500" && lines.last == "select 1499")
  }
}

@Suite struct PresentationTests {
  @Test(arguments: [
    (CommandLineOptions.ColorMode.auto, [String: String](), true, true),
    (.auto, ["NO_COLOR": "1"], true, false),
    (.auto, ["NO_COLOR": ""], true, true),
    (.auto, ["TERM": "dumb"], true, false),
    (.auto, [:], false, false),
    (.always, ["NO_COLOR": "1"], false, true),
    (.never, [:], true, false),
  ])
  func decidesColour(
    mode: CommandLineOptions.ColorMode, environment: [String: String], terminal: Bool, colors: Bool
  ) {
    let presentation = Presentation.resolve(
      mode, environment: environment, outputIsTerminal: terminal, errorsIsTerminal: terminal,
      columns: 100)
    #expect(presentation.colorsOutput == colors)
    #expect((presentation.pictureDepth != nil) == (colors && terminal))
  }

  @Test func picksTheColourDepthAndWidth() {
    let true24 = Presentation.resolve(
      .auto, environment: ["COLORTERM": "truecolor"], outputIsTerminal: true,
      errorsIsTerminal: true, columns: 30)
    #expect(true24.pictureDepth == .trueColor && true24.pictureColumns == 30)
    let palette = Presentation.resolve(
      .auto, environment: [:], outputIsTerminal: true, errorsIsTerminal: true, columns: 200)
    #expect(palette.pictureDepth == .palette256 && palette.pictureColumns == 40)
  }

  /// `--pictures`: kitty graphics in kitty, none in a script unless asked for, and what is
  /// asked for otherwise.
  @Test(arguments: [
    (
      CommandLineOptions.PictureMode.auto, ["TERM": "xterm-kitty"], true,
      Presentation.PictureKind?.some(.kitty)
    ),
    (.auto, ["KITTY_WINDOW_ID": "3"], true, .kitty),
    (.auto, [:], true, .blocks),
    (.auto, ["TERM": "xterm-kitty"], false, nil),
    (.none, [:], true, nil),
    (.sixel, [:], true, .sixel),
    (.kitty, [:], false, .kitty),
    (.blocks, [:], true, .blocks),
  ])
  func decidesHowPicturesAreDrawn(
    mode: CommandLineOptions.PictureMode, environment: [String: String], terminal: Bool,
    kind: Presentation.PictureKind?
  ) {
    let presentation = Presentation.resolve(
      .auto, pictures: mode, environment: environment, outputIsTerminal: terminal,
      errorsIsTerminal: terminal, columns: 100)
    #expect(presentation.pictureDepth.map { _ in presentation.pictureKind } == kind)
  }

  @Test func drawsThePhotoTabWhenPicturesAreOn() throws {
    let environment = FakeEnvironment()
    environment.drawsPictures = true
    let output = try run(["select cher", "tab photo"], environment: environment).output
    #expect(output == "Cherries\n  <Cherries picture>\n  Tabs  detail [photo]")
    environment.drawsPictures = false
    let described = try run(["select cher", "tab photo"], environment: environment).output
    #expect(described.contains("Photo  Images/Cherries.png, 64×64 pixels"))
  }
}

extension HistoryFileTests {
  /// Two writers at once (two processes' worth of locks: flock locks each open file) lose no
  /// line.
  @Test func twoWritersLoseNothing() async throws {
    let directory = TemporaryDirectory()
    let state = try StateDirectory(creating: directory.path)
    await withTaskGroup(of: Void.self) { group in
      for writer in 0..<2 {
        group.addTask {
          for number in 0..<40 { _ = try? HistoryFile.add("select \(writer)-\(number)", in: state) }
        }
      }
    }
    let lines = HistoryFile.lines(in: state)
    #expect(lines.count == 80)
    #expect(Set(lines).count == 80)
  }
}

extension CompletionTests {
  @Test func mistypedScenesGetASuggestion() throws {
    let state = try run(["scene new side"]).state
    let error = #expect(throws: CatalogCoreError.self) {
      try run(["scene switch sidd"], from: state)
    }
    #expect(error?.localizedDescription == "no open scene named 'sidd'; did you mean 'side'?")
    let far = #expect(throws: CatalogCoreError.self) {
      try run(["scene switch elsewhere"], from: state)
    }
    #expect(far?.localizedDescription == "no open scene named 'elsewhere'; open scenes: main, side")
  }
}

@Suite struct LineEditorKeyTests {
  /// Alt-D deletes the word after the cursor; Alt with an unbound key does nothing.
  @Test func altKeysAreBoundOrIgnored() {
    var terminal = FakeTerminal()
    terminal.type("select cherries now\u{01}\u{1B}f")  // Ctrl-A, then a word forward
    terminal.type("\u{1B}d")
    #expect(terminal.text == "select now")
    terminal.type("\u{1B}u\u{1B}.\u{1B}x")
    #expect(terminal.text == "select now")
  }

  @Test func ctrlTTransposesAndCtrlUnderscoreUndoes() {
    var terminal = FakeTerminal()
    terminal.type("slect")
    terminal.type("\u{01}\u{06}\u{06}")  // after "sl"
    terminal.type("\u{14}")  // Ctrl-T: swap 'l' and 'e'
    #expect(terminal.text == "selct")
    terminal.type("\u{05}\u{14}")  // at the end: swap the last two
    #expect(terminal.text == "seltc")
    terminal.type("\u{1F}\u{1F}")  // Ctrl-_ twice
    #expect(terminal.text == "slect")
    terminal.type("\u{1F}\u{1F}\u{1F}\u{1F}\u{1F}\u{1F}")
    #expect(terminal.text == "")
    terminal.type("\u{1F}")  // nothing left to undo
    #expect(terminal.text == "")
  }
}

@Suite struct PasteTests {
  /// A paste of several lines waits in the editor, its breaks marked, until Enter; then its
  /// lines run one by one — nothing pasted runs by itself (as in fish, zsh and Python).
  @Test func pastedLinesWaitForEnterThenRunOneByOne() {
    var terminal = FakeTerminal()
    terminal.type("\u{1B}[200~select mango\r\nlist\ntab ph\u{1B}[201~")
    #expect(terminal.result == nil)
    #expect(terminal.text == "select mango↵list↵tab ph")
    terminal.type("oto\r")
    #expect(terminal.result == .line("select mango"))
    var next = LineSession(
      prompt: "main › ", plainPrompt: "main › ", history: [], columns: 80,
      complete: { _, _ in Completion.Result(start: 0, candidates: []) })
    let (_, second) = next.start(after: terminal.session.carry)
    #expect(second == .line("list"))
    var last = LineSession(
      prompt: "main › ", plainPrompt: "main › ", history: [], columns: 80,
      complete: { _, _ in Completion.Result(start: 0, candidates: []) })
    let (_, third) = last.start(after: next.carry)
    #expect(third == .line("tab photo"))
  }

  /// A paste that ends with a line break still waits for Enter.
  @Test func aPasteEndingWithABreakWaits() {
    var terminal = FakeTerminal()
    terminal.type("\u{1B}[200~select mango\n\u{1B}[201~")
    #expect(terminal.result == nil)
    #expect(terminal.text == "select mango")
  }
}

@Suite struct SuspendTests {
  /// Ctrl-Z asks to suspend; the keys typed after it wait, and the line comes back whole when
  /// the program continues.
  @Test func ctrlZSuspendsAndTheLineComesBack() {
    var terminal = FakeTerminal()
    terminal.type("select ch\u{1A}er")
    #expect(terminal.session.wantsSuspend)
    #expect(terminal.text == "select ch")
    _ = terminal.session.suspend()
    #expect(!terminal.session.wantsSuspend)
    let (drawn, result) = terminal.session.resume()
    #expect(result == nil)
    #expect(drawn.contains("main › select ch"))
    #expect(terminal.session.editorState.text == "select cher")
  }
}
