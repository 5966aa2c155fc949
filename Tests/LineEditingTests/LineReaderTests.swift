import Foundation
import Synchronization
import Testing

@testable import LineEditing

@Suite struct LineReaderTests {
  /// A pipe's two ends, closed when the value is destroyed.
  final class Pipe: Sendable {
    let read: Int32
    let write: Int32

    init() throws {
      var descriptors: [Int32] = [-1, -1]
      try #require(pipe(&descriptors) == 0)
      read = descriptors[0]
      write = descriptors[1]
    }

    func send(_ bytes: [UInt8]) {
      var offset = 0
      while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes {
          Foundation.write(write, $0.baseAddress, $0.count)
        }
        guard count > 0 else { return }
        offset += count
      }
    }

    /// Whether ``closeWriter()`` closed the writing end: it is closed once, or a descriptor
    /// another test opened since under the same number would be closed in its place.
    private let writerClosed = Atomic(false)

    func closeWriter() {
      if !writerClosed.exchange(true, ordering: .relaxed) { close(write) }
    }

    deinit {
      close(read)
      closeWriter()
    }
  }

  @Test func readsLinesAndTheLastUnterminatedOne() throws {
    let input = try Pipe()
    let reader = LineReader(descriptor: input.read, wakeDescriptor: -1)
    input.send(Array("list\r\n\nselect 樱桃\nquit".utf8))
    input.closeWriter()
    #expect(reader.next() == .line("list"))
    #expect(reader.next() == .line(""))
    #expect(reader.next() == .line("select 樱桃"))
    #expect(reader.next() == .line("quit"))
    #expect(reader.next() == .end)
  }

  /// A line over the limit is refused whether or not its newline arrived with it.
  @Test(arguments: [true, false])
  func theLimitHoldsForEveryLine(_ withNewline: Bool) throws {
    let path = NSTemporaryDirectory() + "line-\(UUID().uuidString)"
    defer { unlink(path) }
    let long = String(repeating: "a", count: 70_000) + (withNewline ? "\nlist\n" : "")
    try Data(long.utf8).write(to: URL(fileURLWithPath: path))
    let descriptor = open(path, O_RDONLY)
    defer { close(descriptor) }
    let reader = LineReader(descriptor: descriptor, wakeDescriptor: -1)
    #expect(
      reader.next()
        == .invalid(
          .lineTooLong(bytes: withNewline ? 70_001 : 70_000, limit: LineReader.lineLimit)))
    #expect(reader.next() == (withNewline ? .line("list") : .end))
  }

  /// A signal in the middle of an over-long line must not turn the line's tail into a command.
  @Test func anOverlongLineInterruptedBySignalIsStillReportedAsTooLong() throws {
    let input = try Pipe()
    let wake = try Pipe()
    let reader = LineReader(descriptor: input.read, wakeDescriptor: wake.read)
    let writer = Thread {
      input.send([UInt8](repeating: UInt8(ascii: "x"), count: 70_000))
      Thread.sleep(forTimeInterval: 0.3)
      wake.send([1])  // what the signal handler does
    }
    writer.start()
    #expect(reader.next() == .interrupted)
    var drained: UInt8 = 0
    _ = read(wake.read, &drained, 1)
    input.send(Array("tail\nlist\n".utf8))
    // Other tests' child processes end meanwhile: their SIGCHLD interrupts a wait too, which
    // the REPL simply reads again after.
    func nextLine() -> LineReader.Result {
      var result = reader.next()
      while result == .interrupted { result = reader.next() }
      return result
    }
    #expect(nextLine() == .invalid(.lineTooLong(bytes: 70_005, limit: LineReader.lineLimit)))
    #expect(nextLine() == .line("list"))
  }

  @Test func invalidUTF8IsReportedAndReadingGoesOn() throws {
    let input = try Pipe()
    let reader = LineReader(descriptor: input.read, wakeDescriptor: -1)
    input.send([0x73, 0xFF, 0x0A] + Array("list\n".utf8))
    input.closeWriter()
    #expect(reader.next() == .invalid(.invalidUTF8))
    #expect(reader.next() == .line("list"))
  }

  /// A reader would wait only while nothing is there to read: not with a whole line read
  /// already or bytes in the pipe, nor at the end of the input.
  @Test func saysWhetherItWouldWait() throws {
    let input = try Pipe()
    let reader = LineReader(descriptor: input.read, wakeDescriptor: -1)
    #expect(reader.wouldWait)
    input.send(Array("list\nsel".utf8))
    #expect(!reader.wouldWait)
    #expect(reader.next() == .line("list"))
    // Part of a line is here; the rest is not.
    #expect(reader.wouldWait)
    input.send(Array("ect 2\n".utf8))
    #expect(!reader.wouldWait)
    #expect(reader.next() == .line("select 2"))
    #expect(reader.wouldWait)
    input.closeWriter()
    #expect(!reader.wouldWait)
    #expect(reader.next() == .end)
    #expect(!reader.wouldWait)
    #expect(!LineReader(text: "list").wouldWait)
  }

  /// What a script has sent is taken without waiting, counted as one read, and its whole lines
  /// can be looked at before they are returned; an empty pipe is left alone.
  @Test func takesWhatIsThereWithoutWaiting() throws {
    let input = try Pipe()
    let reader = LineReader(descriptor: input.read, wakeDescriptor: -1)
    reader.readAvailable()
    #expect(reader.reads == 0)
    #expect(reader.bufferedLines(limit: 4).isEmpty)
    input.send(Array("# a comment\nselect 2\nedit\npri".utf8) + [0xFF, 0x0A])
    input.send(Array("ce 9".utf8))
    reader.readAvailable()
    #expect(reader.reads == 1)
    // The line that is not UTF-8 is left out, and so is the part of a line.
    #expect(reader.bufferedLines(limit: 2) == ["# a comment", "select 2"])
    #expect(reader.bufferedLines(limit: 9) == ["# a comment", "select 2", "edit"])
    #expect(reader.next() == .line("# a comment"))
    #expect(reader.next() == .line("select 2"))
    #expect(reader.reads == 1)
    // Lines and the input's end: one read takes the lines, and the end follows without waiting.
    input.send(Array("list\nquit\n".utf8))
    input.closeWriter()
    let ending = LineReader(descriptor: input.read, wakeDescriptor: -1)
    ending.readAvailable()
    #expect(ending.reads == 1)
    #expect(ending.bufferedLines(limit: 4) == ["list", "quit"])
    #expect(ending.next() == .line("list"))
    #expect(ending.next() == .line("quit"))
    #expect(ending.next() == .end)
    #expect(ending.reads == 1)
  }
}

@Suite struct TerminalQueryTests {
  @Test(
    arguments: [
      ("\u{1B}[?62;4;6;22c", [62, 4, 6, 22]),
      ("typed\u{1B}[?1;2c", [1, 2]),
      ("\u{1B}[?c", nil),
      ("no answer", nil),
      ("\u{1B}[?62;4", nil),
    ] as [(String, [Int]?)])
  func readsTheDeviceAttributesAnswer(answer: String, attributes: [Int]?) {
    #expect(TerminalQuery.parseAttributes(Array(answer.utf8)) == attributes)
  }
}
