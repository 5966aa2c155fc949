/// One line being read: bytes from the terminal in, bytes to draw out. It decodes keys, edits
/// the line, completes words and draws, and never touches a descriptor, so tests drive it with
/// byte sequences as a fake terminal.
package struct LineSession {
  private var prompt: String
  private var plainPrompt: String
  private let complete: ([Character], Int) -> LineCompletion
  private var editor: LineEditor
  private var decoder = KeyDecoder()
  /// Keys that arrived after the line ended, for the next line.
  private var leftover: [Key] = []
  /// Whether Ctrl-Z asked to suspend; the keys after it wait in `leftover` for ``resume()``.
  package private(set) var wantsSuspend = false
  private var screen: EditorScreen
  private var lastWasTab = false

  /// The kill buffer, kept from line to line by the caller.
  package var kill: String {
    get { editor.killed }
    set { editor.killed = newValue }
  }

  /// Starts a line.
  ///
  /// - Parameters:
  ///   - prompt: The prompt as written, possibly with colour.
  ///   - plainPrompt: The prompt's visible text.
  ///   - history: Earlier lines, oldest first.
  ///   - columns: The terminal's width.
  ///   - rows: The terminal's height, when known.
  ///   - complete: The completions for a line and a cursor.
  package init(
    prompt: String, plainPrompt: String, history: [String], columns: Int, rows: Int? = nil,
    complete: @escaping ([Character], Int) -> LineCompletion
  ) {
    self.prompt = prompt
    self.plainPrompt = plainPrompt
    self.complete = complete
    editor = LineEditor(history: history)
    screen = EditorScreen(columns: columns, rows: rows)
  }

  /// The line so far.
  package var editorState: LineEditor { editor }

  /// Whether an Escape may start a sequence still arriving.
  package var hasPendingEscape: Bool { decoder.hasPending }

  /// What the next line must start from: keys typed ahead of its prompt, and a partial escape
  /// sequence.
  package struct Carry {
    fileprivate var decoder = KeyDecoder()
    fileprivate var keys: [Key] = []
    package init() {}
  }

  /// Keys typed after this line ended, to hand to the next one.
  package var carry: Carry {
    var carry = Carry()
    carry.decoder = decoder
    carry.keys = leftover
    return carry
  }

  /// The first drawing of the prompt.
  package mutating func start() -> String {
    redraw()
  }

  /// The first drawing, then the keys typed ahead of the prompt.
  ///
  /// - Parameter carry: What the previous line left.
  /// - Returns: What to draw, and the line's end when the typed-ahead keys ended it.
  package mutating func start(after carry: Carry) -> (String, LineReader.Result?) {
    decoder = carry.decoder
    let drawn = redraw()
    let (more, result) = apply(carry.keys)
    return (drawn + more, result)
  }

  /// Handles bytes from the terminal.
  ///
  /// - Parameter bytes: What the terminal sent.
  /// - Returns: What to draw, and the line's end when it ended.
  package mutating func feed(_ bytes: some Sequence<UInt8>) -> (String, LineReader.Result?) {
    apply(decoder.feed(bytes))
  }

  /// Ends a lone Escape after a pause.
  package mutating func flush() -> (String, LineReader.Result?) {
    apply(decoder.flush())
  }

  /// Redraws for a new terminal size.
  package mutating func resize(columns: Int, rows: Int? = nil) -> String {
    screen.resize(
      columns: columns, rows: rows, plainPrompt: currentPlainPrompt, buffer: editor.buffer,
      cursor: editor.cursor)
    return redraw()
  }

  /// Leaves the line as it is (end of input or a signal) and moves below it.
  /// Ends the drawing before the program stops (Ctrl-Z), leaving the line on the screen.
  ///
  /// - Returns: What to draw.
  package mutating func suspend() -> String {
    wantsSuspend = false
    return screen.finish(plainPrompt: currentPlainPrompt, buffer: editor.buffer)
  }

  /// Draws the line again after the program continues, then handles the keys typed after
  /// Ctrl-Z.
  ///
  /// - Returns: What to draw, and the line's end when it ended.
  package mutating func resume() -> (String, LineReader.Result?) {
    screen.forget()
    let drawn = redraw()
    let keys = leftover
    leftover = []
    let (more, result) = apply(keys)
    return (drawn + more, result)
  }

  /// Takes the line off the screen, keeping it, so that a message can be printed where it
  /// was; ``resume(prompt:plainPrompt:)`` draws it again below the message.
  ///
  /// - Returns: What to write.
  package mutating func setAside() -> String {
    screen.clear()
  }

  /// Draws the line again after ``setAside()``, with the prompt as it is now, the text and the
  /// cursor as they were.
  ///
  /// - Parameters:
  ///   - prompt: The prompt as written, possibly with colour.
  ///   - plainPrompt: The prompt's visible text.
  /// - Returns: What to write.
  package mutating func resume(prompt: String, plainPrompt: String) -> String {
    self.prompt = prompt
    self.plainPrompt = plainPrompt
    return redraw()
  }

  package mutating func abandon() -> String {
    screen.finish(plainPrompt: currentPlainPrompt, buffer: editor.buffer)
  }

  private var currentPrompt: String { searchPrompt ?? prompt }
  private var currentPlainPrompt: String { searchPrompt ?? plainPrompt }

  private var searchPrompt: String? {
    guard let search = editor.search else { return nil }
    let failed = search.match == nil && !search.query.isEmpty
    return "(reverse-i-search)`\(search.query)'\(failed ? " (no match)" : ""): "
  }

  private mutating func redraw() -> String {
    screen.draw(
      prompt: currentPrompt, plainPrompt: currentPlainPrompt, buffer: editor.buffer,
      cursor: editor.cursor)
  }

  /// Where a pasted line ends, in the line being edited: a paste of several lines stays in the
  /// buffer, each break shown as this mark, until Enter runs its lines one by one — as fish,
  /// zsh and Python's REPL keep a paste, so that nothing pasted runs by itself.
  package static let pastedLineBreak: Character = "↵"

  /// Keys with each paste of several lines kept whole: its line breaks become
  /// ``pastedLineBreak`` marks (a break at the very end is dropped: the paste still waits
  /// for Enter).
  private static func markingPastedLines(_ keys: [Key]) -> [Key] {
    keys.map { key -> Key in
      guard case .paste(let text) = key, text.contains(where: \.isNewline) else { return key }
      var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
      while lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
      return .paste(lines.joined(separator: String(pastedLineBreak)))
    }
  }

  private mutating func apply(_ keys: [Key]) -> (String, LineReader.Result?) {
    let keys = Self.markingPastedLines(keys)
    var output = ""
    for (index, key) in keys.enumerated() {
      leftover = Array(keys[(index + 1)...])
      let wasTab = lastWasTab
      lastWasTab = key == .tab
      let wasSearching = editor.search != nil
      switch editor.handle(key) {
      case .redraw:
        output += redraw()
      case .none:
        break
      case .suspend:
        wantsSuspend = true
        return (output, nil)
      case .clearScreen:
        output += "\u{1B}[H\u{1B}[2J"
        screen.forget()
        output += redraw()
      case .complete:
        let result = complete(editor.buffer, editor.cursor)
        let start = min(result.start, editor.cursor)
        if let replacement = result.replacement,
          replacement != String(editor.buffer[start..<editor.cursor])
        {
          editor.replace(from: start, with: replacement)
          output += redraw()
        } else if wasTab && result.total > 1 {
          output += screen.finish(plainPrompt: currentPlainPrompt, buffer: editor.buffer)
          output +=
            screen.columnsLayout(result.listing, total: result.total, note: result.note) + "\r\n"
          output += redraw()
        } else {
          output += "\u{07}"
        }
      case .submit(let line):
        // A line accepted from a reverse search stays in the scrollback behind the prompt, as
        // bash and fish leave it, not behind the search.
        if wasSearching { output += redraw() }
        output += screen.finish(plainPrompt: currentPlainPrompt, buffer: editor.buffer)
        // A paste of several lines runs now, a line at a time: the first here, the others as
        // if each were typed and entered after it.
        var line = line
        if line.contains(Self.pastedLineBreak) {
          let lines = line.split(separator: Self.pastedLineBreak, omittingEmptySubsequences: false)
          line = String(lines[0])
          leftover =
            lines.dropFirst().flatMap { [Key.paste(String($0)), Key.enter] } + leftover
        }
        guard line.utf8.count <= LineReader.lineLimit else {
          return (
            output, .invalid(.lineTooLong(bytes: line.utf8.count, limit: LineReader.lineLimit))
          )
        }
        return (output, .line(line))
      case .interrupt:
        // Show the abandoned line whole, then ^C after it.
        output += screen.draw(
          prompt: currentPrompt, plainPrompt: currentPlainPrompt, buffer: editor.buffer,
          cursor: editor.buffer.count)
        output += "^C" + screen.finish(plainPrompt: currentPlainPrompt, buffer: editor.buffer)
        return (output, .interrupted)
      case .endOfInput:
        output += screen.finish(plainPrompt: currentPlainPrompt, buffer: editor.buffer)
        return (output, .end)
      }
    }
    leftover = []
    return (output, nil)
  }
}
