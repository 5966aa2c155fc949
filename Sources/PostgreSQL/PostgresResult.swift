import CLibPQ

/// The rows a request returned, in text form; freed when the last reference goes.
package final class PostgresResult {
  private let handle: OpaquePointer
  /// The number of rows.
  package let count: Int
  /// The number of columns.
  package let columns: Int

  init(_ handle: OpaquePointer) {
    self.handle = handle
    count = Int(PQntuples(handle))
    columns = Int(PQnfields(handle))
  }

  deinit { PQclear(handle) }

  /// The number of rows an `INSERT`, `UPDATE`, `DELETE` or `COPY` changed.
  package var changes: Int {
    Int(String(cString: PQcmdTuples(handle))) ?? 0
  }

  /// Whether a value is SQL NULL.
  package func isNull(_ row: Int, _ column: Int) -> Bool {
    PQgetisnull(handle, Int32(row), Int32(column)) == 1
  }

  /// A value as text; nil when it is NULL or out of range.
  package func text(_ row: Int, _ column: Int) -> String? {
    guard row < count, column < columns, !isNull(row, column) else { return nil }
    return String(cString: PQgetvalue(handle, Int32(row), Int32(column)))
  }

  /// A value's length in bytes, without copying it.
  package func byteCount(_ row: Int, _ column: Int) -> Int {
    guard row < count, column < columns else { return 0 }
    return Int(PQgetlength(handle, Int32(row), Int32(column)))
  }

  /// At most the first `bytes` bytes of a value, as text (a whole character never split).
  package func textPrefix(_ row: Int, _ column: Int, bytes: Int) -> String {
    guard let value = text(row, column) else { return "" }
    var prefix = ""
    for character in value {
      guard prefix.utf8.count + character.utf8.count <= bytes else { break }
      prefix.append(character)
    }
    return prefix
  }

  /// A value's bytes, valid while the result lives: for reading many rows without making a
  /// `String` of each value.
  package func bytes(_ row: Int, _ column: Int) -> UnsafeBufferPointer<UInt8> {
    guard row < count, column < columns, let value = PQgetvalue(handle, Int32(row), Int32(column))
    else { return UnsafeBufferPointer(start: nil, count: 0) }
    let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
    return UnsafeRawPointer(value).withMemoryRebound(to: UInt8.self, capacity: length) {
      UnsafeBufferPointer(start: $0, count: length)
    }
  }

  /// A value as an integer; nil when it is NULL or not an integer that fits.
  package func integer(_ row: Int, _ column: Int) -> Int? {
    guard row < count, column < columns, !isNull(row, column) else { return nil }
    // Read from the value's bytes: a cursor reads two numbers a row, a million rows.
    let digits = bytes(row, column)
    guard let first = digits.first else { return nil }
    let negative = first == UInt8(ascii: "-")
    let start = negative || first == UInt8(ascii: "+") ? 1 : 0
    guard start < digits.count else { return nil }
    var value = 0
    for byte in digits[start...] {
      let digit = Int(byte) &- 0x30
      guard digit >= 0, digit <= 9 else { return nil }
      let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
      let (next, overflowedAgain) =
        negative
        ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
      guard !overflowed, !overflowedAgain else { return nil }
      value = next
    }
    return value
  }

  /// The first column of the first row as an integer: for `SELECT count(*)` and the like.
  package var integer: Int? { integer(0, 0) }
}
