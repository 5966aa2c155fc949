import Synchronization

/// One connection shared by several threads, used by one at a time: the form every
/// long-lived connection of the package takes (``Database`` itself is not for concurrent use).
package final class SerializedDatabase: @unchecked Sendable {
  // Touched only inside `lock`.
  private let database: Database
  private let lock = Mutex(())

  /// Wraps a connection that nothing else uses.
  ///
  /// - Parameter database: The connection.
  package init(_ database: Database) {
    self.database = database
  }

  /// Runs a body with the connection, no other thread using it meanwhile.
  ///
  /// - Parameter body: What to do with it.
  /// - Returns: What the body returns.
  /// - Throws: What the body throws.
  package func use<Result>(_ body: (Database) throws -> Result) throws -> Result {
    try lock.withLock { _ in try body(database) }
  }

  /// Runs a body that cannot fail with the connection, no other thread using it meanwhile.
  ///
  /// - Parameter body: What to do with it.
  /// - Returns: What the body returns.
  package func use<Result>(_ body: (Database) -> Result) -> Result {
    lock.withLock { _ in body(database) }
  }
}
