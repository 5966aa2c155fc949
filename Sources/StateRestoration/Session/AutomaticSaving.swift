import Synchronization
internal import SystemSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Saves the scenes a program opened with ``SessionStore/open(_:)`` when it leaves — a normal
/// exit with any status, Ctrl-C (`SIGINT`), `SIGTERM` or `SIGHUP` — as SwiftUI saves a scene
/// when it goes to the background, so that a program that never calls
/// ``SessionStore/save(activeScene:)`` gets its state back.
///
/// A signal is caught only where the program left it at its default action (and unblocked on
/// the thread that opened the scene): a program that handles or ignores a signal itself keeps
/// doing so. The handler writes a byte to a pipe, the one thing it may safely do; a thread of
/// the library's reads it, saves, and ends the process with the same signal, so that its
/// parent sees how it ended. An exit that races that save waits for it. A failed save is one
/// line on standard error.
enum AutomaticSaving {
  /// The stores to save, weakly held.
  private static let stores = Mutex<[WeakStore]>([])
  private static let installed = Atomic<Bool>(false)
  /// The pipe's write end, for the signal handler; -1 until installed.
  private static let signalPipe = Atomic<Int32>(-1)
  /// The signal being handled, 0 for none: an exit that races its save waits for the save and
  /// then ends the process with it.
  private static let pendingSignal = Atomic<Int32>(0)

  /// How many registered stores have not finished going away: a store whose weak reference
  /// reads nil may still be saving in its `deinit`, which a save for a signal waits for.
  private static let unfinished = Atomic<Int>(0)

  private final class WeakStore: @unchecked Sendable {
    weak var store: SessionStore?
    init(_ store: SessionStore) { self.store = store }
  }

  /// Saves a store's opened scenes when the program leaves; called once a store.
  ///
  /// - Parameter store: The store.
  static func register(_ store: SessionStore) {
    stores.withLock { stores in
      stores.removeAll { $0.store == nil }
      stores.append(WeakStore(store))
    }
    unfinished.add(1, ordering: .relaxed)
    guard !installed.exchange(true, ordering: .relaxed) else { return }
    atexit {
      // A save a signal started finishes first; the process then ends as the signal would
      // have ended it, not with the status of an exit that happened to come first.
      AutomaticSaving.saveAll()
      #if canImport(Glibc)
        let signal = AutomaticSaving.pendingSignal.load(ordering: .acquiring)
        if signal != 0 {
          Glibc.signal(signal, SIG_DFL)
          raise(signal)
        }
      #endif
    }
    #if canImport(Glibc)
      catchSignals()
    #endif
  }

  #if canImport(Glibc)
    /// Catches `SIGINT`, `SIGTERM` and `SIGHUP` where they have their default action.
    private static func catchSignals() {
      var descriptors: [Int32] = [-1, -1]
      guard pipe(&descriptors) == 0 else { return }
      for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
      signalPipe.store(descriptors[1], ordering: .relaxed)
      let reader = descriptors[0]
      detachThread {
        var signal: UInt8 = 0
        while true {
          let count = read(reader, &signal, 1)
          if count == 1 { break }
          if count < 0 && errno == EINTR { continue }
          return
        }
        pendingSignal.store(Int32(signal), ordering: .releasing)
        saveAll()
        // Ends as the signal would have, now that it is saved.
        Glibc.signal(Int32(signal), SIG_DFL)
        kill(getpid(), Int32(signal))
      }
      for number in [SIGINT, SIGTERM, SIGHUP] {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil
        else { continue }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
          // Noted here, not only by the thread that saves: an exit already under way (the
          // end of input that came with a closed terminal) then ends with the signal too.
          AutomaticSaving.pendingSignal.store(number, ordering: .releasing)
          let descriptor = AutomaticSaving.signalPipe.load(ordering: .relaxed)
          var byte = UInt8(truncatingIfNeeded: number)
          _ = write(descriptor, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(number, &action, nil)
        // A signal blocked by the parent (a test runner's thread, say) would never arrive.
        var caught = sigset_t()
        sigemptyset(&caught)
        sigaddset(&caught, number)
        pthread_sigmask(SIG_UNBLOCK, &caught, nil)
      }
    }
  #endif

  /// Saves every registered store, once: a second signal or the exit after one finds nothing
  /// left to save, and waits for a save under way on another thread to end.
  private static func saveAll() {
    stores.withLock { stores in
      let live = stores.compactMap(\.store)
      stores = []
      for store in live { save(store) }
      // Stores going away save in their deinit: wait for them (a few seconds at most).
      var waited = 0
      while unfinished.load(ordering: .acquiring) > live.count, waited < 5_000 {
        usleep(1_000)
        waited += 1
      }
    }
  }

  /// Saves a store's opened scenes; a failure is one line on standard error, the program
  /// being on its way out.
  ///
  /// - Parameter store: The store.
  static func save(_ store: SessionStore) {
    do {
      try store.save()
    } catch {
      let line =
        "error: \(StateRestorationError.describing(error)); the last changes were not saved\n"
      _ = line.withCString { write(2, $0, strlen($0)) }
    }
  }

  /// Saves a registered store that is going away (from its `deinit`), and counts it finished.
  ///
  /// - Parameters:
  ///   - store: The store.
  ///   - hasScenes: Whether it has scenes open to save.
  static func saveGoingAway(_ store: SessionStore, hasScenes: Bool) {
    if hasScenes { save(store) }
    unfinished.subtract(1, ordering: .releasing)
  }
}
