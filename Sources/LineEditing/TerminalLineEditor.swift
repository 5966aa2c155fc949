import Foundation

/// The REPL's line editor on a real terminal: raw mode from the first prompt to the end of the
/// session (the terminal's own settings come back on every way out: end of input, `quit`,
/// SIGTERM, SIGHUP and SIGINT), bracketed paste, window resizes, and a history shared through
/// a file.
///
/// The editing is ``LineSession`` (keys, editing, drawing, completion), which never touches a
/// descriptor: this class only sets the terminal's mode and moves bytes.
package final class TerminalLineEditor {
  private let input: Int32
  private let output: Int32

  /// Where the history is kept, and how a line is added to it.
  package struct HistoryStore {
    package var load: () -> [String]
    /// Adds a line; the history after it, or nil when it could not be saved.
    package var add: (String) -> [String]?
    package init(load: @escaping () -> [String], add: @escaping (String) -> [String]?) {
      self.load = load
      self.add = add
    }
  }

  private let history: HistoryStore
  private var lines: [String]

  /// Whether a line editor suits the process: input and output are terminals and `TERM` is
  /// not `dumb`.
  ///
  /// - Parameter environment: The process environment.
  /// - Returns: Whether to edit lines in the terminal.
  package static func isSupported(environment: [String: String]) -> Bool {
    isatty(0) == 1 && isatty(1) == 1 && environment["TERM"] != "dumb"
      && environment["TERM"].map { !$0.isEmpty } ?? false
  }

  /// Creates an editor on the given descriptors.
  ///
  /// - Parameters:
  ///   - input: The terminal to read.
  ///   - output: The terminal to draw on.
  ///   - history: The history's store.
  package init(input: Int32 = 0, output: Int32 = 1, history: HistoryStore) {
    self.input = input
    self.output = output
    self.history = history
    lines = history.load()
  }

  /// The terminal's width, 80 when it cannot be read.
  package static func columns(of descriptor: Int32) -> Int {
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  /// The terminal's height, or nil when it cannot be read.
  package static func rows(of descriptor: Int32) -> Int? {
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return nil }
    return Int(size.ws_row)
  }

  /// Reads one line.
  ///
  /// - Parameters:
  ///   - prompt: The prompt as written, possibly with colour.
  ///   - plainPrompt: The prompt's visible text.
  ///   - complete: The completions for a line and a cursor.
  ///   - redrawn: What to print again above the line once the window has been resized (a
  ///     picture drawn to the old width), asked when no resize has come for a moment; nil
  ///     when nothing is.
  /// - Returns: The line, the end of input (Ctrl-D on an empty line), or an interruption
  ///   (Ctrl-C, or a signal the caller takes from ``Signals``).
  package func readLine(
    prompt: String, plainPrompt: String,
    complete: @escaping ([Character], Int) -> LineCompletion,
    redrawn: () -> String? = { nil }
  ) -> LineReader.Result {
    if saved == nil { saved = enterRawMode() }
    guard saved != nil else {
      write(prompt)
      return fallback.next()
    }
    var session: LineSession
    if var setAside {
      // The line taken off the screen when the program was woken comes back as it was.
      self.setAside = nil
      write(setAside.resume(prompt: prompt, plainPrompt: plainPrompt))
      session = setAside
    } else {
      session = LineSession(
        prompt: prompt, plainPrompt: plainPrompt, history: lines,
        columns: Self.columns(of: output), rows: Self.rows(of: output), complete: complete)
      session.kill = killed
      let (first, typedAhead) = session.start(after: carry)
      write(first)
      if let typedAhead {
        killed = session.kill
        carry = session.carry
        return finish(typedAhead)
      }
    }
    defer {
      killed = session.kill
      carry = session.carry
    }
    // A window being dragged sends many resizes: what is printed again waits for them to stop.
    var resized = false
    while true {
      switch waitForInput(timeout: session.hasPendingEscape ? 50 : resized ? 250 : -1) {
      case .signal:
        if Signals.takeWindowChange() {
          write(session.resize(columns: Self.columns(of: output), rows: Self.rows(of: output)))
          resized = true
        }
        if Signals.pending != nil {
          write(session.abandon())
          return .interrupted
        }
        if Signals.takeWake() {
          write(session.setAside())
          setAside = session
          return .interrupted
        }
      case .timeout where resized && !session.hasPendingEscape:
        resized = false
        if let text = redrawn() {
          write(
            session.setAside() + text + "\n"
              + session.resume(prompt: prompt, plainPrompt: plainPrompt))
        }
      case .timeout:
        let (text, result) = session.flush()
        write(text)
        if let result { return finish(result) }
      case .ready:
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else {
          write(session.abandon())
          return .end
        }
        var (text, result) = session.feed(chunk[..<count])
        write(text)
        if session.wantsSuspend {
          (text, result) = suspend(&session)
          write(text)
        }
        if let result { return finish(result) }
      }
    }
  }

  /// Ctrl-Z: gives the terminal back, stops as any shell program does (SIGTSTP), and on
  /// SIGCONT takes the terminal again and draws the line as it was.
  private func suspend(_ session: inout LineSession) -> (String, LineReader.Result?) {
    write(session.suspend())
    if let saved { leaveRawMode(saved) }
    saved = nil
    raise(SIGTSTP)
    saved = enterRawMode()
    return session.resume()
  }

  private var killed = ""
  /// The line taken off the screen by ``Signals/wake()``, drawn again at the next read.
  private var setAside: LineSession?
  /// Keys typed ahead of the next prompt.
  private var carry = LineSession.Carry()
  /// The terminal's own settings while it is in raw mode; nil otherwise.
  private var saved: termios?
  private let fallback = LineReader()

  /// Gives the terminal its own settings back. The terminal stays raw from the first line read
  /// until this, so keys typed while a command runs — Ctrl-D included — reach the editor as
  /// keys rather than being taken by the terminal's line discipline.
  package func restoreTerminal() {
    guard let saved else { return }
    leaveRawMode(saved)
    self.saved = nil
  }

  deinit {
    restoreTerminal()
  }

  private func finish(_ result: LineReader.Result) -> LineReader.Result {
    // As in shells, a line starting with a space stays out of the history.
    if case .line(let line) = result, !line.hasPrefix(" ") {
      lines = history.add(line) ?? LineHistoryRule.adding(line, to: lines, capacity: 1000)
    }
    return result
  }

  private enum Wait { case ready, signal, timeout }

  private func waitForInput(timeout: Int32) -> Wait {
    var descriptors = [
      pollfd(fd: input, events: Int16(POLLIN), revents: 0),
      pollfd(fd: Signals.wakeDescriptor, events: Int16(POLLIN), revents: 0),
    ]
    let count = poll(&descriptors, Signals.wakeDescriptor >= 0 ? 2 : 1, timeout)
    if count == 0 { return .timeout }
    if count < 0 { return errno == EINTR ? .signal : .ready }
    if Signals.wakeDescriptor >= 0 && descriptors[1].revents != 0 { return .signal }
    return .ready
  }

  private func enterRawMode() -> termios? {
    var saved = termios()
    guard tcgetattr(input, &saved) == 0 else { return nil }
    var raw = saved
    raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
    raw.c_cflag |= tcflag_t(CS8)
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    guard tcsetattr(input, TCSADRAIN, &raw) == 0 else { return nil }
    write("\u{1B}[?2004h")
    return saved
  }

  private func leaveRawMode(_ saved: termios) {
    write("\u{1B}[?2004l")
    var saved = saved
    _ = tcsetattr(input, TCSADRAIN, &saved)
  }

  private func write(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { Foundation.write(output, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR { continue }
        return
      }
      bytes = bytes.dropFirst(written)
    }
  }
}
