#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The text of the C library's `errno`, for error messages.
package func systemErrorDescription(_ code: Int32 = errno) -> String {
  String(cString: strerror(code))
}

/// Retries a system call while it fails with `EINTR`.
package func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
  while true {
    let result = call()
    if result >= 0 || errno != EINTR { return result }
  }
}

/// `read(2)`, named so that types with a `read` method of their own can call it.
package func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int
{
  read(descriptor, buffer, count)
}

/// `write(2)`, named so that types with a `write` method of their own can call it.
package func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, buffer, count)
}
