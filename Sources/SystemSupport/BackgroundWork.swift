import Dispatch
import Synchronization

/// Work on a thread of its own that others wait for: a file's flush while its writer does
/// something else, a history write between two commands, a sampler beside a process.
///
/// The thread is started with ``detachThread(_:)``; when the system would not start one, the
/// work is done at once, on the thread that starts it.
package final class BackgroundWork<Value: Sendable>: Sendable {
  private let body: @Sendable () -> Value
  private let isStarted = Atomic(false)
  private let result = Mutex<Value?>(nil)
  private let finished = DispatchSemaphore(value: 0)

  /// Starts the work.
  ///
  /// - Parameter body: The work; what it returns is what ``wait()`` returns.
  package init(_ body: @escaping @Sendable () -> Value) {
    self.body = body
    start()
  }

  private init(unstarted body: @escaping @Sendable () -> Value) {
    self.body = body
  }

  /// Makes the work without starting it, for a caller that records it under a lock and starts
  /// it once the lock is released: done at once, the work could take that lock again.
  ///
  /// A static method rather than an initializer: `BackgroundWork { … }` always starts.
  ///
  /// - Parameter body: The work; what it returns is what ``wait()`` returns.
  /// - Returns: The work, not started.
  package static func startingLater(_ body: @escaping @Sendable () -> Value) -> BackgroundWork {
    BackgroundWork(unstarted: body)
  }

  /// Starts the work, once; a later call does nothing.
  package func start() {
    guard !isStarted.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let run: @Sendable () -> Void = { [self] in
      let value = body()
      result.withLock { $0 = value }
      finished.signal()
    }
    if !detachThread(run) { run() }
  }

  /// Waits for the work to end, once it is started; any number of times, from any thread.
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
