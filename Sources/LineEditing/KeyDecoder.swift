/// A key (or a paste) read from a terminal in raw mode.
package enum Key: Sendable, Hashable {
  /// Printable text: one character as typed.
  case text(String)
  /// Text pasted with bracketed paste, as one piece.
  case paste(String)
  case enter, tab, backspace, delete
  case left, right, home, end, up, down
  case wordLeft, wordRight
  /// Alt-Backspace: delete the word before the cursor.
  case deleteWordBackward
  /// A control key: `a` for Ctrl-A, and so on.
  case control(Character)
  /// Alt (or Escape) with a printable key: `d` for Alt-D.
  case alt(Character)
  /// Ctrl-_ (also Ctrl-/): undo the last change to the line.
  case undo
  /// Escape on its own.
  case escape
}

/// Turns the bytes a terminal sends into keys: UTF-8 text, control keys, and the escape
/// sequences of arrows, Home/End, Delete, Ctrl- and Alt-arrows, Alt-B/F and bracketed paste.
///
/// Bytes may arrive split anywhere; an incomplete sequence waits for the rest. A value type:
/// the terminal loop feeds it whatever `read` returned.
package struct KeyDecoder: Sendable {
  private var pending: [UInt8] = []
  private var pasting: [UInt8]?

  package init() {}

  /// Whether bytes of an incomplete sequence are waiting; a lone Escape key looks like one
  /// until ``flush()``.
  package var hasPending: Bool { !pending.isEmpty }

  /// Decodes bytes.
  ///
  /// - Parameter bytes: What the terminal sent.
  /// - Returns: The complete keys, in order.
  package mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
    pending += bytes
    var keys: [Key] = []
    while !pending.isEmpty {
      guard let (key, length) = decodeOne() else { break }
      pending.removeFirst(length)
      if let key { keys.append(key) }
    }
    return keys
  }

  /// Ends an incomplete sequence: a lone Escape (or Alt-nothing) becomes the Escape key.
  ///
  /// - Returns: The keys it made.
  package mutating func flush() -> [Key] {
    guard !pending.isEmpty, pasting == nil else { return [] }
    let bytes = pending
    pending.removeAll()
    var keys: [Key] = [.escape]
    keys += feed(bytes.dropFirst())
    return keys
  }

  private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

  /// One key from the front of `pending` and how many bytes it took; nil when more are needed.
  private mutating func decodeOne() -> (Key?, Int)? {
    if pasting != nil {
      if let end = pending.firstRange(of: Self.pasteEnd) {
        let text = (pasting ?? []) + pending[..<end.lowerBound]
        pasting = nil
        return (.paste(String(decoding: text, as: UTF8.self)), end.upperBound)
      }
      // Keep a possible start of the end marker; take the rest.
      let keep = min(pending.count, Self.pasteEnd.count - 1)
      pasting? += pending.dropLast(keep)
      let taken = pending.count - keep
      return taken > 0 ? (nil, taken) : nil
    }
    let first = pending[0]
    switch first {
    case 0x0D, 0x0A: return (.enter, 1)
    case 0x09: return (.tab, 1)
    case 0x7F, 0x08: return (.backspace, 1)
    case 0x1B: return decodeEscape()
    case 0x01...0x1A:
      return (.control(Character(Unicode.Scalar(first + 0x60))), 1)
    case 0x1F: return (.undo, 1)
    case 0x00, 0x1C...0x1E: return (nil, 1)
    case 0x20..<0x80: return (.text(String(Unicode.Scalar(first))), 1)
    default: return decodeUTF8()
    }
  }

  private func decodeUTF8() -> (Key?, Int)? {
    let first = pending[0]
    let length =
      switch first {
      case 0xC2...0xDF: 2
      case 0xE0...0xEF: 3
      case 0xF0...0xF4: 4
      default: 1
      }
    guard pending.count >= length else { return nil }
    let bytes = pending.prefix(length)
    guard length > 1, let text = String(validating: bytes, as: UTF8.self) else {
      return (.text("\u{FFFD}"), 1)
    }
    return (.text(text), length)
  }

  private mutating func decodeEscape() -> (Key?, Int)? {
    guard pending.count >= 2 else { return nil }
    switch pending[1] {
    case UInt8(ascii: "["), UInt8(ascii: "O"):
      // CSI or SS3: parameters, then a final byte in 0x40...0x7E.
      guard let final = pending.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) })
      else {
        return pending.count > 32 ? (nil, pending.count) : nil
      }
      let parameters = String(decoding: pending[2..<final], as: UTF8.self)
      let key = csiKey(final: pending[final], parameters: parameters)
      if key == nil && parameters == "200" && pending[final] == UInt8(ascii: "~") {
        pasting = []
      }
      return (key, final + 1)
    case UInt8(ascii: "b"), UInt8(ascii: "B"): return (.wordLeft, 2)
    case UInt8(ascii: "f"), UInt8(ascii: "F"): return (.wordRight, 2)
    case 0x7F, 0x08: return (.deleteWordBackward, 2)
    case 0x1B: return (.escape, 1)
    case 0x20...0x7E: return (.alt(Character(Unicode.Scalar(pending[1]))), 2)
    default: return (.escape, 1)
    }
  }

  private func csiKey(final: UInt8, parameters: String) -> Key? {
    let modifier = parameters.split(separator: ";").dropFirst().first.flatMap { Int($0) } ?? 1
    // Modifier 3 is Alt, 5 Ctrl: both move by words.
    let byWord = modifier == 3 || modifier == 5
    switch final {
    case UInt8(ascii: "A"): return .up
    case UInt8(ascii: "B"): return .down
    case UInt8(ascii: "C"): return byWord ? .wordRight : .right
    case UInt8(ascii: "D"): return byWord ? .wordLeft : .left
    case UInt8(ascii: "H"): return .home
    case UInt8(ascii: "F"): return .end
    case UInt8(ascii: "~"):
      switch parameters.split(separator: ";").first {
      case "1", "7": return .home
      case "4", "8": return .end
      case "3": return .delete
      default: return nil
      }
    default: return nil
    }
  }
}
