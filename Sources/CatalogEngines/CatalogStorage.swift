import CatalogModel
import Foundation
import StateRestoration

/// A catalog kept by a database engine: the user's catalog in SQLite (``CatalogDatabase``) or in
/// PostgreSQL (``PostgresCatalog``). The app reads, saves, imports, exports and indexes through
/// this protocol alone, so that no command has a branch for an engine.
///
/// Reads do not throw (``CatalogSource``): a read that fails answers as if the product were
/// missing and keeps the reason, which ``takeReadFailure()`` hands to the app after a command.
package protocol CatalogStorage: CatalogSource {
  /// Where the catalog is, for messages: a file's path, or a server's address and database
  /// (never a password).
  var location: String { get }
  /// A random number made with the catalog, which tells it from another one; a search index
  /// built from the catalog records it. Nil when the catalog has none (an old file opened for
  /// reading only).
  var identity: UInt64? { get }
  /// Whether the catalog was given its first products, as of the last read of its state.
  var isSeeded: Bool { get }

  /// Reads the generation and count again, to see what other processes saved.
  ///
  /// - Parameter ahead: Products the command about to run names, read with the state on a
  ///   server (``CatalogReadAhead``).
  /// - Returns: true when the products changed since the last refresh.
  /// - Throws: ``CatalogError`` when they cannot be read.
  @discardableResult
  func refresh(readingAhead ahead: CatalogReadAhead) throws -> Bool

  /// The reason a read failed since the last call, which it clears.
  func takeReadFailure() -> CatalogReadFailure?

  /// Applies changes in one transaction: each edit to its product as saved now, so that what
  /// other processes saved meanwhile is kept, and a field both changed is a conflict.
  ///
  /// - Parameters:
  ///   - changes: The changes.
  ///   - meanwhile: Work of the caller's that must be done before the transaction commits,
  ///     done once: while the first request waits on a server, first on a file. What it throws
  ///     rolls the transaction back and is thrown.
  /// - Throws: A ``CatalogError``, or what `meanwhile` throws; the catalog is then as it was.
  func apply(_ changes: [CatalogChange], whileWriting meanwhile: () throws -> Void) throws

  /// Imports products in one transaction: new identifiers are appended in order, existing ones
  /// replaced in place; all or nothing.
  ///
  /// - Parameters:
  ///   - products: The products, read one by one; the reader throws for a bad record.
  ///   - seeding: Whether this import seeds a new catalog, and from what.
  ///   - options: Whether the file replaces the catalog, what a record without an identifier
  ///     whose name the catalog has does, and whether deleted products come back.
  ///   - madeIdentifiers: The identifiers made for records that had none, asked once every
  ///     record is read.
  ///   - progress: Called as the import goes on; what it throws stops it, leaving the catalog
  ///     as it was.
  /// - Returns: What was inserted, updated and removed.
  /// - Throws: What the reader or `progress` throws, or ``CatalogError``; the catalog is then as
  ///   it was.
  func importProducts(
    _ products: some ProductSequence, seeding: CatalogSeeding?, options: ImportOptions,
    madeIdentifiers: () -> [UUID], progress: (ImportStage) throws -> Void
  ) throws -> CatalogImportSummary

  /// Calls a body with every product in order, all from one snapshot, whose generation and
  /// count it is given first.
  func forEachProduct(
    start: (_ generation: Int, _ count: Int) throws -> Void,
    _ body: (_ number: Int, _ product: Product) throws -> Void
  ) throws

  /// Makes sure the catalog may be written: checked whole unless only this program changed it
  /// since its last check (or waits for the check under way). Every write calls it; an import
  /// calls it before it reads its file.
  ///
  /// - Throws: ``CatalogError/damaged(_:)`` saying what is wrong.
  func verifyBeforeWriting() throws

  /// Starts the check in the background when the catalog needs one, so that a REPL's first
  /// edit seldom waits.
  func verifyInBackground()

  /// The catalog as one that hands activities off between the user's machines; nil for a
  /// catalog on one machine.
  var handoff: (any HandoffStorage)? { get }

  /// Lets the process exit without closing the catalog's connection where closing would only
  /// close it. Call it only as the process leaves.
  func leaveOpenForExit()
}

extension CatalogStorage {
  /// None: a catalog on one machine.
  package var handoff: (any HandoffStorage)? { nil }

  /// Reads the generation and count again, reading nothing ahead
  /// (``refresh(readingAhead:)``).
  @discardableResult
  package func refresh() throws -> Bool {
    try refresh(readingAhead: CatalogReadAhead())
  }

  /// Applies changes in one transaction, with nothing to do meanwhile
  /// (``apply(_:whileWriting:)``).
  ///
  /// - Parameter changes: The changes.
  /// - Throws: A ``CatalogError``; the catalog is then as it was.
  package func apply(_ changes: [CatalogChange]) throws {
    try apply(changes, whileWriting: {})
  }
}

/// A catalog shared by the user's machines, which hands activities off between them
/// (Handoff): the catalog on a server.
package protocol HandoffStorage: CatalogStorage {
  /// Publishes an activity for the user's other machines, which a running REPL there hears of
  /// at once.
  ///
  /// - Throws: What the server says.
  func publishHandoff(_ activity: UserActivityRecord, from party: HandoffParty) throws

  /// The activities the user's other machines published, newest first.
  ///
  /// - Throws: What the server says.
  func handoffs(for party: HandoffParty, limit: Int) throws -> [MachineHandoff]

  /// Starts listening for the user's other machines' handoffs, on a connection of its own that
  /// a thread opens (and opens again whenever the server comes back); nil when it cannot start.
  ///
  /// - Parameters:
  ///   - party: This user and machine; found only when listening starts (it reads the user
  ///     database and the host name, which a launch over SQLite need not pay for).
  ///   - onArrival: Called on the listener's thread when a handoff is waiting.
  /// - Returns: The listener, which gathers them until asked.
  func listenForHandoffs(
    for party: @autoclosure () -> HandoffParty, onArrival: @escaping @Sendable () -> Void
  ) -> (any HandoffListener)?

  /// The machine that last edited a product, when it was another one, for a conflict's
  /// message; nil when it was this machine, or is not known.
  func machine(thatLastChanged identifier: UUID) -> String?
}

/// Why a read of a catalog failed.
package enum CatalogReadFailure: Sendable, Hashable {
  /// The catalog is damaged: what it shows may be incomplete, and edits are refused until it
  /// is fixed.
  case damaged(String)
  /// The connection to the catalog's server was lost: the next command connects again.
  case unreachable(String)

  /// What went wrong, in a few words.
  package var reason: String {
    switch self {
    case .damaged(let reason), .unreachable(let reason): reason
    }
  }
}

/// The reads of a catalog that failed: why the last one did, until the app takes it
/// (``CatalogStorage/takeReadFailure()``), and how many did in all
/// (``CatalogSource/failedReads``), which a reason taken leaves as it was.
struct ReadFailures {
  /// How many reads failed.
  private(set) var count = 0
  private var pending: CatalogReadFailure?

  /// Notes a read that failed.
  ///
  /// - Parameter failure: Why.
  mutating func note(_ failure: CatalogReadFailure) {
    pending = failure
    count &+= 1
  }

  /// Why a read failed since the last call, which it clears.
  ///
  /// - Returns: The last failure, or nil.
  mutating func take() -> CatalogReadFailure? {
    defer { pending = nil }
    return pending
  }
}

/// Where the products that seed a new catalog come from.
package enum CatalogSeeding: Sendable {
  /// The bundled catalog.
  case bundled
  /// An earlier version's `products.json`.
  case migrated
}

/// What an import did.
package struct CatalogImportSummary: Sendable, Hashable {
  /// Products added.
  package var inserted = 0
  /// Products that replaced one with the same identifier and something else.
  package var updated = 0
  /// Records the same as the product with their identifier: left as they were.
  package var unchanged = 0
  /// Products removed because the file, replacing the catalog, did not have them.
  package var removed = 0
  /// Records left out because their products were deleted from the catalog.
  package var skippedDeleted = 0
  /// How many products of the sample the catalog was seeded with are still there beside the
  /// new ones: a user's first import mixed into the sample, which they are told of.
  package var sampleBeside = 0

  package init() {}
}

extension CatalogStorage {
  /// Imports products with the default options: for seeding and tests.
  package func importProducts(
    _ products: some ProductSequence, seeding: CatalogSeeding? = nil,
    options: ImportOptions = .init()
  ) throws -> CatalogImportSummary {
    try importProducts(
      products, seeding: seeding, options: options, madeIdentifiers: { [] }, progress: { _ in })
  }
}

/// Handoffs from other machines as they arrive, gathered on a thread of their own until
/// ``take()``.
package protocol HandoffListener: AnyObject, Sendable {
  /// The handoffs that arrived since the last call.
  func take() -> [MachineHandoff]
  /// Stops listening, and returns once the thread has left the client library: the process
  /// may exit next, and its exit handlers free what that library uses.
  func close()
}
