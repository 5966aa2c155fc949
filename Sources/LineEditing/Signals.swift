import Foundation
import Synchronization

/// The last termination signal received, 0 for none. Set by the handler, read by the loop.
private let receivedSignal = Atomic<Int32>(0)
/// The write end of the self-pipe, -1 before `install()`.
private let wakeWriter = Atomic<Int32>(-1)
/// The read end of the self-pipe, -1 before `install()`.
private let wakeReader = Atomic<Int32>(-1)
/// Whether the terminal window changed size since the line editor last looked.
private let windowChanged = Atomic<Bool>(false)
/// Whether ``Signals/wake()`` was called since the reader last looked.
private let woken = Atomic<Bool>(false)

/// Signal handling for a program reading lines: SIGTERM, SIGHUP and SIGINT wake its loop,
/// which can then end cleanly; SIGWINCH tells the line editor to redraw for the new width.
///
/// The handler records the signal and writes a byte to a pipe (the self-pipe trick); the line
/// reader polls that pipe beside its input, so a signal that arrives just before it starts
/// waiting still wakes it.
package enum Signals {
  /// Installs the handlers, and unblocks the signals: a parent may have left them blocked in
  /// the mask this process inherited, which would leave a SIGTERM pending forever.
  package static func install() {
    var descriptors: [Int32] = [-1, -1]
    if pipe(&descriptors) == 0 {
      for descriptor in descriptors {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
      }
      wakeReader.store(descriptors[0], ordering: .sequentiallyConsistent)
      wakeWriter.store(descriptors[1], ordering: .sequentiallyConsistent)
    }
    var handled = sigset_t()
    sigemptyset(&handled)
    for signal in [SIGTERM, SIGHUP, SIGINT, SIGWINCH] {
      sigaddset(&handled, signal)
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { signal in
        if signal == SIGWINCH {
          windowChanged.store(true, ordering: .sequentiallyConsistent)
        } else {
          receivedSignal.store(signal, ordering: .sequentiallyConsistent)
        }
        var byte = UInt8(truncatingIfNeeded: signal)
        _ = write(wakeWriter.load(ordering: .sequentiallyConsistent), &byte, 1)
      }
      sigemptyset(&action.sa_mask)
      action.sa_flags = 0
      sigaction(signal, &action, nil)
    }
    sigprocmask(SIG_UNBLOCK, &handled, nil)
  }

  /// Catches Ctrl-C (SIGINT) alone, for a long command that stops where it can: until
  /// ``releaseInterrupt()`` the signal is recorded (``pending``) rather than fatal. The handler
  /// is in place when this returns, so no Ctrl-C from then on is lost.
  package static func catchInterrupt() {
    receivedSignal.store(0, ordering: .sequentiallyConsistent)
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signal in
      receivedSignal.store(signal, ordering: .sequentiallyConsistent)
    }
    sigemptyset(&action.sa_mask)
    // The command's reads and writes go on where the signal found them.
    action.sa_flags = SA_RESTART
    sigaction(SIGINT, &action, nil)
    var interrupt = sigset_t()
    sigemptyset(&interrupt)
    sigaddset(&interrupt, SIGINT)
    sigprocmask(SIG_UNBLOCK, &interrupt, nil)
  }

  /// Makes Ctrl-C end the program again, and forgets one caught since ``catchInterrupt()``.
  package static func releaseInterrupt() {
    signal(SIGINT, SIG_DFL)
    receivedSignal.store(0, ordering: .sequentiallyConsistent)
  }

  /// The termination signal waiting to be taken, without taking it.
  package static var pending: Int32? {
    let signal = receivedSignal.load(ordering: .sequentiallyConsistent)
    return signal == 0 ? nil : signal
  }

  /// Whether the window changed size since the last call; clears the flag.
  package static func takeWindowChange() -> Bool {
    let changed = windowChanged.exchange(false, ordering: .sequentiallyConsistent)
    if changed { drain() }
    return changed
  }

  private static func drain() {
    var buffer = [UInt8](repeating: 0, count: 64)
    let reader = wakeDescriptor
    if reader >= 0 {
      while buffer.withUnsafeMutableBytes({ read(reader, $0.baseAddress, $0.count) }) > 0 {}
    }
  }

  /// Wakes the line reader from another thread, as a signal would but for no signal: for
  /// something that arrived for the program (a link another process delivers). The reader
  /// returns ``LineReader/Result/interrupted``; the line editor first takes the line being
  /// typed off the screen, and draws it again, as it was, at the next read.
  package static func wake() {
    woken.store(true, ordering: .sequentiallyConsistent)
    var byte: UInt8 = 0
    _ = write(wakeWriter.load(ordering: .sequentiallyConsistent), &byte, 1)
  }

  /// Whether ``wake()`` was called since the last call; clears it.
  package static func takeWake() -> Bool {
    let wasWoken = woken.exchange(false, ordering: .sequentiallyConsistent)
    if wasWoken { drain() }
    return wasWoken
  }

  /// The descriptor that becomes readable when a signal arrives, or -1 before `install()`.
  package static var wakeDescriptor: Int32 { wakeReader.load(ordering: .sequentiallyConsistent) }

  /// The signal received since the last call, or nil; clears it and drains the self-pipe.
  package static func take() -> Int32? {
    let signal = receivedSignal.exchange(0, ordering: .sequentiallyConsistent)
    guard signal != 0 else { return nil }
    drain()
    return signal
  }
}
