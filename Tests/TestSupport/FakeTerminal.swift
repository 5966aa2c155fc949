import LineEditing

/// A fake terminal: bytes in, the line session's drawing out.
package struct FakeTerminal {
  package var session: LineSession
  package var output = ""
  package var result: LineReader.Result?

  /// A terminal whose prompt is `main › `, completing with `complete` (nothing by default).
  package init(
    history: [String] = [], columns: Int = 80, rows: Int? = nil,
    complete: @escaping (_ line: [Character], _ cursor: Int) -> LineCompletion = { _, cursor in
      LineCompletion(start: cursor, candidates: [])
    }
  ) {
    session = LineSession(
      prompt: "main › ", plainPrompt: "main › ", history: history, columns: columns,
      rows: rows, complete: complete)
    output = session.start()
  }

  /// Types bytes; `\u{1B}` sequences are keys.
  package mutating func type(_ text: String) {
    let (drawn, result) = session.feed(Array(text.utf8))
    output += drawn
    if let result { self.result = result }
  }

  package var text: String { session.editorState.text }
  package var cursor: Int { session.editorState.cursor }

  /// The column the last drawing left the cursor in, from its final `\r` and `ESC[nC`.
  package var cursorColumn: Int {
    guard let lastReturn = output.lastIndex(of: "\r") else { return 0 }
    let tail = output[output.index(after: lastReturn)...]
    guard tail.hasPrefix("\u{1B}["), let end = tail.firstIndex(of: "C") else { return 0 }
    return Int(tail[tail.index(tail.startIndex, offsetBy: 2)..<end]) ?? 0
  }
}

/// The arrow keys, as a terminal sends them.
package let left = "\u{1B}[D"
package let right = "\u{1B}[C"
package let up = "\u{1B}[A"
package let down = "\u{1B}[B"
