import Foundation

/// The state of a line being edited, and what each key does to it: the pure core of the REPL's
/// line editor, with no terminal in sight.
package struct LineEditor: Sendable {
  /// What a key asks the terminal loop to do.
  package enum Outcome: Sendable, Hashable {
    /// Redraw the line.
    case redraw
    /// The line is done: run it.
    case submit(String)
    /// Ctrl-C: abandon the line.
    case interrupt
    /// Ctrl-D on an empty line: quit.
    case endOfInput
    /// Ctrl-L: clear the screen, then redraw.
    case clearScreen
    /// Tab: complete the word before the cursor.
    case complete
    /// Ctrl-Z: suspend the program, as a shell's job control does.
    case suspend
    /// Nothing to do (and perhaps a bell).
    case none
  }

  /// Incremental reverse search through the history (Ctrl-R).
  package struct Search: Sendable, Hashable {
    /// What was typed.
    package var query = ""
    /// The history entry that matches, if any.
    package var match: Int?
    /// The line as it was before the search, restored by Escape or Ctrl-G.
    package var original: [Character]
    package var originalCursor: Int
  }

  /// The line, as characters (grapheme clusters), so a cursor never splits one.
  package private(set) var buffer: [Character] = []
  /// The cursor: an index into `buffer`, from 0 to its count.
  package private(set) var cursor = 0
  /// The last text killed by Ctrl-W, Ctrl-U, Ctrl-K or Alt-Backspace, for Ctrl-Y.
  package var killed = ""
  /// The history, oldest first.
  package private(set) var history: [String]
  /// The reverse search in progress, if any.
  package private(set) var search: Search?
  private var historyIndex: Int
  private var stash: [Character] = []
  /// The line before each change, for Ctrl-_.
  private var undoStack: [(buffer: [Character], cursor: Int)] = []

  /// Creates an editor with an empty line.
  ///
  /// - Parameter history: Earlier lines, oldest first.
  package init(history: [String] = []) {
    self.history = history
    historyIndex = history.count
  }

  /// The line's text.
  package var text: String { String(buffer) }

  /// Starts a new line, keeping the history and the kill buffer.
  ///
  /// - Parameter history: The history, oldest first.
  package mutating func reset(history: [String]) {
    self.history = history
    historyIndex = history.count
    buffer = []
    cursor = 0
    stash = []
    search = nil
    undoStack = []
  }

  /// Replaces the word before the cursor (from `start`) with a completion.
  ///
  /// - Parameters:
  ///   - start: Where the replaced text starts in `buffer`.
  ///   - replacement: The text to put there.
  package mutating func replace(from start: Int, with replacement: String) {
    let start = max(0, min(start, cursor))
    buffer.replaceSubrange(start..<cursor, with: Array(replacement))
    cursor = start + replacement.count
  }

  /// Applies a key.
  ///
  /// - Parameter key: The key.
  /// - Returns: What the terminal loop should do.
  package mutating func handle(_ key: Key) -> Outcome {
    if search != nil { return handleSearch(key) }
    if key == .undo {
      guard let last = undoStack.popLast() else { return .none }
      (buffer, cursor) = last
      return .redraw
    }
    let before = (buffer: buffer, cursor: cursor)
    let outcome = apply(key)
    if buffer != before.buffer {
      undoStack.append(before)
      if undoStack.count > 200 { undoStack.removeFirst() }
    }
    return outcome
  }

  private mutating func apply(_ key: Key) -> Outcome {
    switch key {
    case .text(let text):
      insert(text)
    case .paste(let text):
      // The session splits a paste of several lines into lines that run one by one; what
      // reaches here is one line's text, whose control characters are dropped.
      let flattened = text.replacingLineBreaks()
      insert(
        String(
          String.UnicodeScalarView(
            flattened.unicodeScalars.filter {
              $0.value >= 0x20 && $0.value != 0x7F
            })))
    case .enter:
      return .submit(text)
    case .tab:
      return .complete
    case .backspace, .control("h"):
      guard cursor > 0 else { return .none }
      buffer.remove(at: cursor - 1)
      cursor -= 1
    case .delete:
      guard cursor < buffer.count else { return .none }
      buffer.remove(at: cursor)
    case .control("d"):
      if buffer.isEmpty { return .endOfInput }
      guard cursor < buffer.count else { return .none }
      buffer.remove(at: cursor)
    case .left, .control("b"):
      cursor = max(0, cursor - 1)
    case .right, .control("f"):
      cursor = min(buffer.count, cursor + 1)
    case .home, .control("a"):
      cursor = 0
    case .end, .control("e"):
      cursor = buffer.count
    case .wordLeft:
      cursor = previousWordStart()
    case .wordRight:
      cursor = nextWordEnd()
    case .control("w"):
      // Back to the previous white space, as a shell's Ctrl-W does.
      var start = cursor
      while start > 0 && buffer[start - 1].isWhitespace { start -= 1 }
      while start > 0 && !buffer[start - 1].isWhitespace { start -= 1 }
      kill(start..<cursor)
    case .deleteWordBackward:
      kill(previousWordStart()..<cursor)
    case .control("u"):
      kill(0..<cursor)
    case .control("k"):
      kill(cursor..<buffer.count)
    case .alt("d"), .alt("D"):
      // Forward to the end of the next word, as a shell's Alt-D does.
      let end = nextWordEnd()
      guard end > cursor else { return .none }
      kill(cursor..<end)
    case .control("t"):
      // Swap the characters around the cursor (the last two at the end), moving on.
      guard buffer.count >= 2, cursor > 0 else { return .none }
      let right = min(cursor, buffer.count - 1)
      buffer.swapAt(right - 1, right)
      cursor = min(buffer.count, right + 1)
    case .control("y"):
      insert(killed)
    case .up, .control("p"):
      return recall(historyIndex - 1)
    case .down, .control("n"):
      return recall(historyIndex + 1)
    case .control("r"):
      search = Search(original: buffer, originalCursor: cursor)
    case .control("l"):
      return .clearScreen
    case .control("z"):
      return .suspend
    case .control("c"):
      return .interrupt
    default:
      return .none
    }
    return .redraw
  }

  private mutating func insert(_ text: String) {
    let characters = Array(text)
    buffer.insert(contentsOf: characters, at: cursor)
    cursor += characters.count
    // Combining marks join the character before them: count again.
    let joined = Array(String(buffer))
    if joined.count != buffer.count {
      let before = String(buffer[..<cursor]).count
      buffer = joined
      cursor = min(before, buffer.count)
    }
  }

  private mutating func kill(_ range: Range<Int>) {
    guard !range.isEmpty else { return }
    killed = String(buffer[range])
    buffer.removeSubrange(range)
    cursor = range.lowerBound
  }

  private func isWordCharacter(_ character: Character) -> Bool {
    character.isLetter || character.isNumber
  }

  private func previousWordStart() -> Int {
    var index = cursor
    while index > 0 && !isWordCharacter(buffer[index - 1]) { index -= 1 }
    while index > 0 && isWordCharacter(buffer[index - 1]) { index -= 1 }
    return index
  }

  private func nextWordEnd() -> Int {
    var index = cursor
    while index < buffer.count && !isWordCharacter(buffer[index]) { index += 1 }
    while index < buffer.count && isWordCharacter(buffer[index]) { index += 1 }
    return index
  }

  private mutating func recall(_ index: Int) -> Outcome {
    guard index >= 0, index <= history.count, index != historyIndex else { return .none }
    if historyIndex == history.count { stash = buffer }
    historyIndex = index
    buffer = index == history.count ? stash : Array(history[index])
    cursor = buffer.count
    return .redraw
  }

  // MARK: - Reverse search

  private mutating func handleSearch(_ key: Key) -> Outcome {
    guard var search else { return .none }
    switch key {
    case .text(let text):
      search.query += text
      search.match = findMatch(search.query, before: (search.match ?? history.count) + 1)
    case .backspace:
      guard !search.query.isEmpty else { return .none }
      search.query.removeLast()
      search.match = search.query.isEmpty ? nil : findMatch(search.query, before: history.count)
    case .control("r"):
      guard let match = search.match else { return .none }
      search.match = findMatch(search.query, before: match) ?? match
    case .escape, .control("g"), .control("c"):
      buffer = search.original
      cursor = search.originalCursor
      self.search = nil
      return .redraw
    case .enter:
      self.search = nil
      if let match = search.match { accept(match, query: search.query) }
      return .submit(text)
    default:
      // Any other key takes the match into the line and then does what it does there.
      self.search = nil
      if let match = search.match { accept(match, query: search.query) }
      return handle(key)
    }
    self.search = search
    if let match = search.match {
      buffer = Array(history[match])
      cursor = matchPosition(of: search.query, in: history[match])
    }
    return .redraw
  }

  private mutating func accept(_ match: Int, query: String) {
    buffer = Array(history[match])
    cursor = matchPosition(of: query, in: history[match])
    historyIndex = history.count
  }

  /// The newest entry before `limit` containing `query`.
  private func findMatch(_ query: String, before limit: Int) -> Int? {
    guard !query.isEmpty else { return nil }
    let upper = min(limit, history.count)
    guard upper > 0 else { return nil }
    return (0..<upper).reversed().first { history[$0].contains(query) }
  }

  private func matchPosition(of query: String, in line: String) -> Int {
    guard let range = line.range(of: query) else { return line.count }
    return line.distance(from: line.startIndex, to: range.lowerBound)
  }
}

extension String {
  /// The string with each line break (`\r\n`, `\n` or `\r`) turned into one space.
  fileprivate func replacingLineBreaks() -> String {
    var result = ""
    var previousWasReturn = false
    for scalar in unicodeScalars {
      if scalar == "\n" && previousWasReturn {
        previousWasReturn = false
        continue
      }
      previousWasReturn = scalar == "\r"
      result.unicodeScalars.append(scalar == "\n" || scalar == "\r" ? " " : scalar)
    }
    return result
  }
}
