import Dispatch
import Synchronization

/// Work on a thread of its own that others wait for: a file's flush while its writer does
/// something else, a history write between two commands, a sampler beside a process.
///
/// The thread is started with ``detachThread(_:)``; when the system would not start one, the
/// work is done at once, on the caller's thread.
package final class BackgroundWork<Value: Sendable>: Sendable {
  private let result = Mutex<Value?>(nil)
  private let finished = DispatchSemaphore(value: 0)

  /// Starts the work.
  ///
  /// - Parameter body: The work; what it returns is what ``wait()`` returns.
  package init(_ body: @escaping @Sendable () -> Value) {
    let run: @Sendable () -> Void = { [self] in
      let value = body()
      result.withLock { $0 = value }
      finished.signal()
    }
    if !detachThread(run) { run() }
  }

  /// Waits for the work to end; any number of times, from any thread.
  ///
  /// - Returns: What the work returned.
  package func wait() -> Value {
    finished.wait()
    // Let the next waiter through too.
    finished.signal()
    guard let value = result.withLock({ $0 }) else {
      preconditionFailure("the work signalled its end before it kept its result")
    }
    return value
  }
}
