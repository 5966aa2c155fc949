#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs `body` on a thread of its own, which ends when `body` returns.
///
/// For work that blocks in a system call for as long as it likes — an `accept` loop, a build
/// that waits on a file lock: such work must not sit on one of Dispatch's worker threads, whose
/// number is bounded by the number of cores, or it can starve everything else queued there.
///
/// - Returns: false when the system would not start a thread; `body` did not run.
@discardableResult
package func detachThread(_ body: @escaping @Sendable () -> Void) -> Bool {
  final class Box: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
  let box = Unmanaged.passRetained(Box(body)).toOpaque()
  var attributes = pthread_attr_t()
  pthread_attr_init(&attributes)
  defer { pthread_attr_destroy(&attributes) }
  pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
  var thread = pthread_t()
  let started = pthread_create(
    &thread, &attributes,
    { context in
      guard let context else { return nil }
      Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
      return nil
    }, box)
  if started != 0 {
    Unmanaged<Box>.fromOpaque(box).release()
    return false
  }
  return true
}
