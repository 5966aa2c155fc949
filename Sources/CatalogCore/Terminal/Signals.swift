import Foundation
import Synchronization

/// The last termination signal received, 0 for none. Set by the handler, read by the loop.
private let receivedSignal = Atomic<Int32>(0)

/// Signal handling for the REPL: SIGTERM, SIGHUP and SIGINT interrupt the blocking read (no
/// `SA_RESTART`), so the loop can send every scene to the background phase and exit cleanly.
package enum Signals {
  /// Installs the handlers.
  package static func install() {
    for signal in [SIGTERM, SIGHUP, SIGINT] {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { receivedSignal.store($0, ordering: .relaxed) }
      sigemptyset(&action.sa_mask)
      action.sa_flags = 0
      sigaction(signal, &action, nil)
    }
  }

  /// The signal received since the last call, or nil; clears it.
  package static func take() -> Int32? {
    let signal = receivedSignal.exchange(0, ordering: .relaxed)
    return signal == 0 ? nil : signal
  }
}
