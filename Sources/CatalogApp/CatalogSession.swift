import CatalogCore
import CatalogEngines
import CatalogModel

/// The app's session with the user's catalog: the engine opened at launch, the changes a command
/// saves, what other processes changed since, and why edits are refused once the catalog cannot
/// be read.
package final class CatalogSession {
  /// The user's catalog on disk.
  package let store: CatalogStore
  /// The user's catalog; nil when it could not be used.
  package let database: (any CatalogStorage)?
  /// Why catalog edits are refused, when the catalog could not be used.
  package private(set) var readOnlyReason: String?
  /// Whether the next refresh is served by what was read last rather than asking again: for
  /// a command that was there before the catalog was last read afresh — one command from the
  /// shell, or a line of a script that arrived before — so that whatever was saved before it
  /// was sent was saved before that read. Asking again (on PostgreSQL, a round trip) could
  /// only find what another process saved since, which it may as well have saved a moment
  /// later. Cleared by the refresh it serves; not heeded after a failed request.
  package var servesNextRefresh = false
  /// How many refreshes asked the catalog and succeeded.
  package private(set) var refreshes = 0
  /// Whether the next refresh asks, whatever ``servesNextRefresh`` says: a read, a save or a
  /// refresh failed since the last refresh that succeeded. The server may be gone, and the
  /// refresh is where a command learns that it cannot run.
  private var asksNextRefresh = false

  /// Creates the session with a catalog opened at launch.
  ///
  /// - Parameters:
  ///   - store: Where the catalog is.
  ///   - database: The catalog; nil when it could not be used.
  ///   - readOnlyReason: Why edits are refused, if they are.
  package init(store: CatalogStore, database: (any CatalogStorage)?, readOnlyReason: String?) {
    self.store = store
    self.database = database
    self.readOnlyReason = readOnlyReason
  }

  /// Saves catalog changes durably in one transaction, each edit merged with what other
  /// processes saved meanwhile.
  ///
  /// - Parameters:
  ///   - changes: The changes.
  ///   - meanwhile: Work that must be done before the transaction commits, done once: while the
  ///     first request waits on a server, before the transaction on a file.
  /// - Returns: The catalog as saved.
  /// - Throws: A `CatalogError`, or what `meanwhile` throws; the catalog is then as it was.
  package func save(
    _ changes: [CatalogChange], whileWriting meanwhile: () throws -> Void = {}
  ) throws -> Catalog {
    guard let database, readOnlyReason == nil else {
      throw CatalogError.catalogReadOnly(
        path: store.location, reason: readOnlyReason ?? "it cannot be opened")
    }
    var meanwhileFailed = false
    do {
      try database.apply(changes) {
        do {
          try meanwhile()
        } catch {
          meanwhileFailed = true
          throw error
        }
      }
    } catch {
      // The caller's work failed, not the catalog.
      if meanwhileFailed { throw error }
      asksNextRefresh = true
      if case CatalogError.damaged(let reason) = error {
        readOnlyReason = reason
        throw CatalogError.catalogReadOnly(path: store.location, reason: reason)
      }
      throw error
    }
    return Catalog(source: database)
  }

  /// Warnings about the catalog from the last command: a read that failed (a file damaged or
  /// cut short while the app runs: what it showed may be incomplete, so edits are refused from
  /// then on), a server that went away, and rows left out because they break the editor's
  /// rules.
  ///
  /// - Returns: The warnings, each once.
  package func takeWarnings() -> [String] {
    guard let database else { return [] }
    var warnings = database.takeSkippedRows()
    let failure = database.takeReadFailure()
    if failure != nil { asksNextRefresh = true }
    switch failure {
    case .damaged(let reason) where readOnlyReason == nil:
      readOnlyReason = reason
      warnings.append(
        "cannot read the catalog '\(database.location)' (\(reason)); what it shows may be incomplete, and edits are refused until the catalog is fixed and the app restarted"
      )
    case .unreachable(let reason):
      // The scenes are kept; the next command connects again.
      warnings.append(
        "lost the connection to the catalog '\(database.location)' (\(reason)); what it shows may be incomplete; the next command connects again"
      )
    case .damaged, nil: break
    }
    return warnings
  }

  /// The catalog as another process may have changed it since it was last read; with
  /// ``servesNextRefresh``, as it was last read.
  ///
  /// - Parameters:
  ///   - catalog: The catalog in memory.
  ///   - ahead: Products the command about to run names, read with the state on a server.
  /// - Returns: The catalog from disk when it changed and can be read; otherwise `catalog`.
  /// - Throws: ``CatalogError/unreachable(location:reason:)`` when the catalog's server cannot be
  ///   reached.
  package func refreshed(
    _ catalog: Catalog, readingAhead ahead: CatalogReadAhead = CatalogReadAhead()
  ) throws -> Catalog {
    guard let database, readOnlyReason == nil else { return catalog }
    do {
      let served = servesNextRefresh && !asksNextRefresh
      servesNextRefresh = false
      if !served {
        // Asked again until a refresh succeeds.
        asksNextRefresh = true
        try database.refresh(readingAhead: ahead)
        asksNextRefresh = false
        refreshes += 1
      }
    } catch let error as CatalogError {
      if case .unreachable = error {
        _ = database.takeReadFailure()
        throw error
      }
      // Recorded by the database; the REPL reports it after the command.
      return catalog
    } catch {
      // Recorded by the database; the REPL reports it after the command.
      return catalog
    }
    return database.generation == catalog.generation && catalog.source === database
      ? catalog : Catalog(source: database)
  }
}
