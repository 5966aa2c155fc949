import CatalogModel
import Foundation
import PostgreSQL
import StateRestoration
import Synchronization
import SystemSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The user's catalog: a SQLite database in the data directory (``CatalogDatabase``), seeded
/// from the bundled catalog on first launch, or migrated from an earlier version's
/// `products.json`, which is then kept as `products.json.imported` — or, when a server is named
/// (``server``), a catalog on PostgreSQL (``PostgresCatalog``), seeded the same way at its first
/// use from any machine. The data directory then keeps only this machine's search index.
///
/// A database that cannot be used — not a database, cut short, damaged, of a newer schema — is
/// never written to: the bundled catalog is shown instead, with a warning, and edits are refused
/// until it is fixed.
package struct CatalogStore: Sendable {
  /// What loading the catalog gave.
  package struct Loaded: Sendable {
    /// The catalog to run on.
    package var catalog: Catalog
    /// The user's database, when it can be read and written.
    package var database: (any CatalogStorage)?
    /// Why edits are refused, when the user's catalog could not be used; nil when edits work.
    package var readOnlyReason: String?
    /// One-line warnings for the user: an unusable database, an empty catalog, products left
    /// out of a migration.
    package var warnings: [String] = []
  }

  /// The database's name in the data directory.
  package static let databaseName = "catalog.sqlite"
  /// The earlier versions' catalog file, migrated once.
  package static let legacyName = "products.json"
  /// What a migrated `products.json` is renamed to.
  package static let importedName = "products.json.imported"
  /// The lock that serializes creating and seeding the database between processes.
  package static let lockName = "catalog.lock"

  /// A catalog on a PostgreSQL server: where, and in which schema.
  package struct Server: Sendable, Hashable {
    /// A `postgres://` or `postgresql://` URI, or a libpq keyword string.
    package var url: String
    /// The schema holding the catalog's tables.
    package var schema = "catalog"
    /// The environment libpq reads its defaults from (`PGHOST`, `PGUSER`, …), for messages.
    package var environment: [String: String] = [:]
    /// The name this machine's edits are noted under, which a conflict on another machine
    /// names.
    package var machine: String?

    package init(
      url: String, schema: String = "catalog", environment: [String: String] = [:],
      machine: String? = nil
    ) {
      self.url = url
      self.schema = schema
      self.environment = environment
      self.machine = machine
    }

    /// The address, parsed.
    ///
    /// - Throws: ``CatalogError/badCatalogURL(reason:)`` when it cannot be parsed, and
    ///   ``CatalogError/cannotConnect(location:reason:)`` when libpq, which parses it, is
    ///   missing.
    package func address() throws -> PostgresAddress {
      do {
        return try PostgresAddress(url, environment: environment)
      } catch let error as PostgresError {
        guard error.kind == .noClientLibrary else {
          throw CatalogError.badCatalogURL(reason: error.message)
        }
        throw CatalogError.cannotConnect(location: "the catalog URL", reason: error.message)
      }
    }
  }

  /// The data directory's path (`$XDG_DATA_HOME/catalog` or `--data-dir`).
  package let directoryPath: String
  /// The server keeping the catalog, when it is not in the data directory.
  package var server: Server?
  /// The bundled seed catalog's path or name; it is only ever read.
  package var seedPath: String { seed().path }
  /// The seed, made only when it is needed: a launch on an existing database never reads it.
  private let seed: @Sendable () -> ProductFile
  /// Called with the number of products before the catalog of an earlier version is upgraded
  /// for writing (see ``CatalogDatabase/init(path:readOnly:willUpgrade:)``).
  package var willUpgrade: (@Sendable (_ products: Int) -> Void)?

  /// The user's catalog database's path.
  package var databasePath: String { directoryPath + "/" + Self.databaseName }
  /// Where the catalog is, for messages: the database file, or the server's address without
  /// its password.
  package var location: String {
    guard let server else { return databasePath }
    return (try? server.address().description) ?? "the catalog URL"
  }
  /// This machine's search index of the catalog: `search.index` beside a catalog database; for
  /// a catalog on a server, one file for each server, database and schema
  /// (`search-0123456789abcdef.index`), so that several catalogs each keep theirs.
  package var searchIndexPath: String {
    guard let server else { return directoryPath + "/search.index" }
    let key = ((try? server.address().description) ?? server.url) + "#" + server.schema
    let hex = String(stableHash(key), radix: 16)
    return directoryPath + "/search-" + String(repeating: "0", count: 16 - hex.count) + hex
      + ".index"
  }
  private var legacyPath: String { directoryPath + "/" + Self.legacyName }

  /// Creates a store.
  ///
  /// - Parameters:
  ///   - directoryPath: The data directory; created 0700 when the catalog is first seeded.
  ///   - seedPath: The bundled catalog to seed a new database with.
  package init(directoryPath: String, seedPath: @autoclosure @escaping @Sendable () -> String) {
    self.directoryPath = directoryPath
    seed = { ProductFile(path: seedPath()) }
  }

  /// Creates a store seeded from products in memory (a catalog built into the binary).
  ///
  /// - Parameters:
  ///   - directoryPath: The data directory.
  ///   - seed: The seed catalog, read only when a database is seeded or cannot be used.
  package init(directoryPath: String, seed: @escaping @Sendable () -> ProductFile) {
    self.directoryPath = directoryPath
    self.seed = seed
  }

  /// Opens the user's catalog, creating and seeding the database when there is none: from a
  /// `products.json` of an earlier version if there is one, else from the bundled catalog.
  ///
  /// - Parameters:
  ///   - ahead: Products to read as the catalog opens, for reads soon after: with a catalog on
  ///     a server, in the request that reads its state, found while the server starts the
  ///     session; never found for a file, which reads nothing ahead.
  ///   - meanwhile: Work of the caller's to do, with a catalog on a server, while the server
  ///     reads its state, once the session has started; not done for a file, nor when the
  ///     state is read otherwise (a schema to create or upgrade).
  /// - Returns: The catalog to run on.
  /// - Throws: A `SystemError` only when the bundled catalog itself cannot be read.
  package func load(
    readingAhead ahead: @autoclosure () -> CatalogReadAhead = CatalogReadAhead(),
    whileReadingState meanwhile: () -> Void = {}
  ) throws -> Loaded {
    if server != nil {
      let catalog = try openServer(readingAhead: ahead(), whileReadingState: meanwhile)
      if !catalog.isSeeded {
        // The first process of any machine seeds it; another doing so at once finds every
        // product there and changes nothing.
        _ = try catalog.importProducts(try readSeed(), seeding: .bundled)
      }
      var loaded = Loaded(catalog: Catalog(source: catalog), database: catalog)
      if catalog.count == 0 { loaded.warnings = ["the catalog '\(location)' has no products"] }
      return loaded
    }
    var warnings: [String] = []
    do {
      let database = try openOrCreate(warnings: &warnings)
      var loaded = Loaded(catalog: Catalog(source: database), database: database)
      loaded.warnings = warnings
      if database.count == 0 {
        loaded.warnings.append("the catalog '\(databasePath)' has no products")
      }
      return loaded
    } catch CatalogError.badRecord(let error) {
      return try fallback(
        reason: error.description, path: legacyPath,
        warning: "cannot migrate the catalog", warnings: warnings)
    } catch {
      return try fallback(
        reason: error.localizedDescription, path: databasePath,
        warning: "cannot use the catalog", warnings: warnings)
    }
  }

  /// Opens the user's catalog for reading only: never creates, seeds or migrates a file. A
  /// catalog on a server is created or upgraded by any process that connects to it, as at
  /// every launch.
  ///
  /// - Parameter ahead: Products to read as the catalog opens, as ``load(readingAhead:)``
  ///   reads them.
  /// - Returns: The user's catalog; an earlier version's `products.json` not yet migrated; or
  ///   the bundled one.
  /// - Throws: A `SystemError` only when the bundled catalog cannot be read.
  package func loadForReading(
    readingAhead ahead: @autoclosure () -> CatalogReadAhead = CatalogReadAhead()
  ) throws -> Loaded {
    if server != nil {
      let catalog = try openServer(readingAhead: ahead())
      return catalog.isSeeded
        ? Loaded(catalog: Catalog(source: catalog), database: nil)
        : Loaded(catalog: try seedCatalog())
    }
    do {
      if FileManager.default.fileExists(atPath: databasePath) || isLink(databasePath) {
        // The flag and the count are read in one snapshot as the file opens.
        let database = try CatalogDatabase(path: databasePath, readOnly: true)
        if database.isSeeded {
          return Loaded(catalog: Catalog(source: database), database: nil)
        }
      }
      if legacyFileKind == .regular {
        var products: [Product] = []
        try ProductFile(path: legacyPath, skipping: { _ in }).forEachProduct {
          products.append($0)
        }
        return Loaded(catalog: Catalog(products))
      }
      return Loaded(catalog: try seedCatalog())
    } catch {
      return try fallback(
        reason: error.localizedDescription, path: databasePath,
        warning: "cannot read the catalog", warnings: [])
    }
  }

  /// Imports a product file into the user's catalog, all or nothing. Into an empty data
  /// directory, the catalog is the file's products alone (no sample).
  ///
  /// - Parameters:
  ///   - file: A JSON or CSV product file.
  ///   - options: Whether the file replaces the catalog, what records without identifiers
  ///     do, and whether deleted products come back.
  ///   - progress: Called as the import goes on; what it throws stops the import, which then
  ///     changes nothing.
  /// - Returns: What was inserted and updated, and warnings from opening the catalog.
  /// - Throws: ``BadRecord`` naming the first bad record,
  ///   ``CatalogError/catalogReadOnly(path:reason:)`` when the catalog cannot be used, or
  ///   ``CatalogError/cannotWrite(path:reason:)``. The catalog is then as it was.
  package func importFile(
    _ file: ProductFile, options: ImportOptions = .init(),
    progress: (ImportStage) throws -> Void = { _ in }
  ) throws
    -> (
      summary: CatalogImportSummary, warnings: [String]
    )
  {
    if server != nil {
      // A first import into a new catalog on a server starts the user's own catalog too.
      let catalog = try openServer()
      var summary = try Self.importing(
        file, into: catalog, seeding: catalog.isSeeded ? nil : .bundled, options: options,
        progress: progress)
      summary.sampleBeside = sampleProducts(beside: summary, in: catalog, options: options)
      return (summary, [])
    }
    // A first import into an empty data directory starts the user's own catalog: the sample
    // products are not added beside theirs.
    if legacyFileKind == .none, !FileManager.default.fileExists(atPath: databasePath),
      !isLink(databasePath),
      let result = try importIntoNewCatalog(file, options: options, progress: progress)
    {
      return result
    }
    return try importFile(file, into: try load(), options: options, progress: progress)
  }

  /// A first import into an empty data directory: the catalog is built from the file alone
  /// (no sample) in a temporary database, put in place only when complete — a refused file
  /// or `kill -9` leaves the directory as it was.
  ///
  /// - Returns: What was imported; nil when another process created the catalog first.
  private func importIntoNewCatalog(
    _ file: ProductFile, options: ImportOptions, progress: (ImportStage) throws -> Void
  )
    throws -> (summary: CatalogImportSummary, warnings: [String])?
  {
    let directory = try StateDirectory(creating: directoryPath)
    let lock = try directory.lockWaiting(Self.lockName)
    defer { withExtendedLifetime(lock) {} }
    guard !FileManager.default.fileExists(atPath: databasePath), !isLink(databasePath) else {
      return nil
    }
    var summary = CatalogImportSummary()
    try CatalogDatabase.create(at: databasePath) { database in
      // Marked seeded: no launch adds the sample beside the user's products.
      _ = try database.importProducts([Product](), seeding: .bundled)
      summary = try Self.importing(file, into: database, options: options, progress: progress)
    }
    return (summary, [])
  }

  private func importFile(
    _ file: ProductFile, into loaded: Loaded, options: ImportOptions,
    progress: (ImportStage) throws -> Void
  ) throws -> (summary: CatalogImportSummary, warnings: [String]) {
    guard let database = loaded.database else {
      throw CatalogError.catalogReadOnly(
        path: databasePath, reason: loaded.readOnlyReason ?? "it cannot be opened")
    }
    // An import may rewrite much of the file: the whole file is checked first, unless only
    // this program changed it since its last check.
    try database.verifyBeforeWriting()
    var summary = try Self.importing(
      file, into: database, options: options, progress: progress)
    summary.sampleBeside = sampleProducts(beside: summary, in: database, options: options)
    return (summary, loaded.warnings.filter { !$0.hasSuffix("has no products") })
  }

  /// How many of the seed's products a catalog still holds beside the products an import
  /// added: none when it added none, or replaced the catalog.
  private func sampleProducts(
    beside summary: CatalogImportSummary, in catalog: any CatalogStorage, options: ImportOptions
  ) -> Int {
    guard summary.inserted > 0, !options.replacing else { return 0 }
    var identifiers: [UUID] = []
    try? seed().forEachProduct { identifiers.append($0.identifier) }
    return catalog.numbers(of: identifiers).count
  }

  /// Imports a file into a database, a repeated identifier named like every other bad record:
  /// by its file and record.
  private static func importing(
    _ file: ProductFile, into database: any CatalogStorage, seeding: CatalogSeeding? = nil,
    options: ImportOptions = .init(),
    progress: (ImportStage) throws -> Void
  ) throws -> CatalogImportSummary {
    // Records without identifiers are matched to products of the same name.
    let made = Mutex<[UUID]>([])
    var file = file
    file.onMadeIdentifier = { identifier in made.withLock { $0.append(identifier) } }
    do {
      return try database.importProducts(
        file, seeding: seeding, options: options, madeIdentifiers: { made.withLock { $0 } },
        progress: progress)
    } catch CatalogError.repeatedIdentifier(let identifier, let record, let name) {
      throw CatalogError.badRecord(
        path: file.path, record: record, line: 0,
        reason:
          "'\(name.abbreviated)' repeats the identifier \(identifier) of an earlier record")
    }
  }

  /// Connects to the catalog on the server, creating or upgrading its schema.
  private func openServer(
    readingAhead ahead: @autoclosure () -> CatalogReadAhead = CatalogReadAhead(),
    whileReadingState meanwhile: () -> Void = {}
  ) throws -> PostgresCatalog {
    guard let server else { throw CatalogError.damaged("no server") }
    let address = try server.address()
    do {
      let catalog = try PostgresCatalog(
        address: address, schema: server.schema, machine: server.machine,
        readingAhead: ahead(), whileReadingState: meanwhile)
      // The data directory keeps this machine's search index of it.
      _ = try StateDirectory(creating: directoryPath)
      return catalog
    } catch CatalogError.newerSchema(let found, let supported) {
      throw CatalogError.cannotConnect(
        location: address.description,
        reason:
          "its catalog schema version \(found) is newer than this program's \(supported); use a newer catalog"
      )
    } catch CatalogError.damaged(let reason) {
      throw CatalogError.cannotConnect(
        location: address.description,
        reason: "the catalog there is damaged (\(reason)); repair it or restore a backup")
    }
  }

  private func openOrCreate(warnings: inout [String]) throws -> CatalogDatabase {
    if let database = try openSeeded(warnings: &warnings) { return database }
    let directory = try StateDirectory(creating: directoryPath)
    let lock = try directory.lockWaiting(Self.lockName)
    defer { withExtendedLifetime(lock) {} }
    // Another process may have created and seeded it while this one waited.
    if let database = try openSeeded(warnings: &warnings) { return database }
    if !FileManager.default.fileExists(atPath: databasePath) && !isLink(databasePath) {
      try CatalogDatabase.create(at: databasePath)
    }
    let database = try CatalogDatabase(path: databasePath, willUpgrade: willUpgrade)
    if legacyFileKind == .other {
      // An earlier version wrote a regular file; reading a FIFO or a device would block or
      // never end.
      warnings.append(
        "'\(legacyPath)' is not a regular file, so it is not an earlier catalog; left it alone")
    }
    if legacyFileKind == .regular {
      let skipped = Mutex<[String]>([])
      let file = ProductFile(
        path: legacyPath,
        skipping: { error in
          skipped.withLock { $0.append("record \(error.record ?? 0): \(error.reason)") }
        })
      let summary = try database.importProducts(file, seeding: .migrated)
      let dropped = skipped.withLock { $0 }
      var note =
        "imported \(summary.inserted) product\(summary.inserted == 1 ? "" : "s") from '\(legacyPath)' into '\(databasePath)'"
      if !dropped.isEmpty {
        note +=
          "; left out \(dropped.count) that break the editor's rules: "
          + dropped.prefix(3).joined(separator: "; ") + (dropped.count > 3 ? "; …" : "")
      }
      warnings.append(note)
      try keepLegacyFile(warnings: &warnings)
    } else {
      let seed = try readSeed()
      _ = try database.importProducts(seed, seeding: .bundled)
    }
    return database
  }

  /// The database when it exists and was seeded; nil when it must be created or seeded.
  private func openSeeded(warnings: inout [String]) throws -> CatalogDatabase? {
    guard FileManager.default.fileExists(atPath: databasePath) || isLink(databasePath) else {
      return nil
    }
    // The flags and the count are read in one snapshot as the file opens: a catalog seeded by
    // another process meanwhile is seen seeded with its products, or not at all.
    let database = try CatalogDatabase(path: databasePath, willUpgrade: willUpgrade)
    guard database.isSeeded else { return nil }
    if database.isMigrated, legacyFileKind == .regular {
      // A crash came between the migration and the rename.
      try keepLegacyFile(warnings: &warnings)
    } else if legacyFileKind == .regular {
      warnings.append(
        "'\(legacyPath)' is beside the catalog database and was not imported; type 'catalog import \(legacyPath)' to import it"
      )
    }
    return database
  }

  /// Renames a migrated `products.json` to `products.json.imported` (or a free name beside it).
  private func keepLegacyFile(warnings: inout [String]) throws {
    var destination = directoryPath + "/" + Self.importedName
    var suffix = 2
    while FileManager.default.fileExists(atPath: destination) || isLink(destination) {
      destination = directoryPath + "/" + Self.importedName + ".\(suffix)"
      suffix += 1
    }
    guard rename(legacyPath, destination) == 0 else {
      warnings.append(
        "could not rename '\(legacyPath)' after importing it: \(String(cString: strerror(errno)))")
      return
    }
    try DurableFile.synchronizeDirectory(directoryPath)
    warnings.append("kept the earlier catalog file as '\(destination)'")
  }

  private func fallback(reason: String, path: String, warning: String, warnings: [String]) throws
    -> Loaded
  {
    var loaded = Loaded(catalog: try seedCatalog())
    loaded.readOnlyReason = reason
    loaded.warnings =
      warnings + [
        "\(warning) '\(path)' (\(reason)); running on the bundled catalog, and edits are refused until the file is fixed"
      ]
    return loaded
  }

  private func seedCatalog() throws -> Catalog {
    Catalog(try readSeed())
  }

  private func readSeed() throws -> [Product] {
    var products: [Product] = []
    do {
      try seed().forEachProduct { products.append($0) }
    } catch CatalogError.badRecord(let error) {
      throw SystemError.cannotRead(path: seedPath, reason: error.reason)
    }
    return products
  }

  private enum FileKind { case none, regular, other }

  /// What is at the earlier versions' catalog file's path, not following a link.
  private var legacyFileKind: FileKind {
    var status = stat()
    guard lstat(legacyPath, &status) == 0 else { return .none }
    return status.st_mode & S_IFMT == S_IFREG ? .regular : .other
  }

  private func isLink(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
  }
}

/// The FNV-1a hash of a text's UTF-8: the same in every process and version, unlike
/// `Hasher`'s, for names of files and checksums of records.
///
/// - Parameter text: The text.
/// - Returns: The hash.
func stableHash(_ text: some StringProtocol) -> UInt64 {
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
  return hash
}
