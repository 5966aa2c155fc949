import Foundation
import StateRestoration

#if canImport(Glibc)
  import Glibc
#endif

/// The user's catalog on disk: seeded from the bundled file on first launch, edited durably,
/// and never overwritten when it cannot be read.
///
/// Edits from several processes never lose an update: ``save(_:)`` takes a lock, reads the
/// file as it is now, applies each change to its product as it is there, and writes the
/// result.
///
/// Products that break the editor's rules (``Product/ruleViolation``) are kept in the file but
/// left out of the catalog, with a warning naming each by record.
public struct CatalogStore: Sendable {
  /// What loading the catalog gave.
  public struct Loaded: Sendable {
    /// The catalog to run on.
    public var catalog: Catalog
    /// Why edits are refused, when the user's file could not be read; nil when edits work.
    public var readOnlyReason: String?
    /// One-line warnings for the user: an unreadable file, an empty catalog, products left
    /// out.
    public var warnings: [String] = []
  }

  /// The catalog file's name in the data directory.
  public static let fileName = "products.json"
  /// The lock file that serializes edits between processes.
  public static let lockName = "products.lock"
  /// The largest catalog file read, in bytes.
  public static let sizeLimit = 1 << 30

  /// The data directory's path (`$XDG_DATA_HOME/catalog` or `--data-dir`).
  public let directoryPath: String
  /// The bundled seed catalog's path; it is only ever read.
  public let seedPath: String

  /// The user's catalog file's path.
  public var filePath: String { directoryPath + "/" + Self.fileName }

  /// Creates a store.
  ///
  /// - Parameters:
  ///   - directoryPath: The data directory; created 0700 when the catalog is first seeded.
  ///   - seedPath: The bundled catalog to copy on first launch.
  public init(directoryPath: String, seedPath: String) {
    self.directoryPath = directoryPath
    self.seedPath = seedPath
  }

  /// Loads the user's catalog, seeding it from the bundled file when it does not exist.
  ///
  /// A file that cannot be read is left untouched: the bundled catalog is used instead, with a
  /// warning, and ``Loaded/readOnlyReason`` says why edits are refused.
  ///
  /// - Returns: The catalog to run on.
  /// - Throws: A `StateRestorationError` only when the bundled catalog itself cannot be read.
  public func load() throws -> Loaded {
    do {
      if let file = try readUserFile() {
        return checked(file, path: filePath)
      }
      let directory = try StateDirectory(creating: directoryPath)
      let lock = try directory.lockWaiting(Self.lockName)
      defer { withExtendedLifetime(lock) {} }
      if let file = try readUserFile() {
        return checked(file, path: filePath)
      }
      let seed = try readSeed()
      try directory.save(seed, to: Self.fileName)
      return checked(seed, path: filePath)
    } catch {
      let reason = Self.reason(error)
      var loaded = checked(try readSeed(), path: seedPath)
      loaded.readOnlyReason = reason
      loaded.warnings.insert(
        "cannot read the catalog '\(filePath)' (\(reason)); running on the bundled catalog, and edits are refused until the file is fixed",
        at: 0)
      return loaded
    }
  }

  /// Loads the user's catalog for reading only: never seeds it or writes anything.
  ///
  /// - Returns: The user's catalog, or the bundled one when it does not exist or cannot be read.
  /// - Throws: A `StateRestorationError` only when the bundled catalog cannot be read.
  public func loadForReading() throws -> Loaded {
    do {
      if let file = try readUserFile() { return checked(file, path: filePath) }
      return checked(try readSeed(), path: seedPath)
    } catch {
      let reason = Self.reason(error)
      var loaded = checked(try readSeed(), path: seedPath)
      loaded.readOnlyReason = reason
      loaded.warnings.insert(
        "cannot read the catalog '\(filePath)' (\(reason)); showing the bundled catalog", at: 0)
      return loaded
    }
  }

  /// Saves edits durably, each applied to its product as the file holds it now, so that edits
  /// other processes made meanwhile to other fields are kept.
  ///
  /// - Parameter changes: The edits.
  /// - Returns: The catalog as it is on disk now, these edits included.
  /// - Throws: ``CatalogError/catalogReadOnly(path:reason:)`` when the file cannot be read,
  ///   ``CatalogError/productRemoved(name:)`` when a product is gone,
  ///   ``CatalogError/editConflict(product:field:theirs:yours:keepTheirs:)`` when another
  ///   process changed the same field, or a `StateRestorationError` when it cannot be written.
  ///   The file is then as it was.
  public func save(_ changes: [ProductChange]) throws -> Catalog {
    let directory = try StateDirectory(creating: directoryPath)
    let lock = try directory.lockWaiting(Self.lockName)
    defer { withExtendedLifetime(lock) {} }
    let current: CatalogFile
    do {
      guard let file = try readUserFile() else {
        throw StateRestorationError.cannotRead(path: filePath, reason: "the file is missing")
      }
      current = file
    } catch {
      throw CatalogError.catalogReadOnly(path: filePath, reason: Self.reason(error))
    }
    var products = current.products
    for change in changes {
      guard let index = products.firstIndex(where: { $0.identifier == change.identifier }) else {
        throw CatalogError.productRemoved(name: change.edited.name)
      }
      products[index] = try change.applied(to: products[index])
    }
    try directory.save(CatalogFile(products: products), to: Self.fileName)
    return checked(CatalogFile(products: products), path: filePath).catalog
  }

  /// The catalog of a file's products that keep the editor's rules, with a warning for the
  /// others and for an empty catalog.
  private func checked(_ file: CatalogFile, path: String) -> Loaded {
    var valid: [Product] = []
    var rejected: [String] = []
    valid.reserveCapacity(file.products.count)
    for (index, product) in file.products.enumerated() {
      if let violation = product.ruleViolation {
        rejected.append("record \(index + 1): \(violation)")
      } else {
        valid.append(product)
      }
    }
    var loaded = Loaded(catalog: Catalog(valid))
    if !rejected.isEmpty {
      let count = rejected.count
      loaded.warnings.append(
        "the catalog '\(path)' has \(count) product\(count == 1 ? "" : "s") that break\(count == 1 ? "s" : "") the editor's rules, not shown (kept in the file): "
          + rejected.prefix(3).joined(separator: "; ") + (count > 3 ? "; …" : ""))
    } else if valid.isEmpty {
      loaded.warnings.append("the catalog '\(path)' has no products")
    }
    return loaded
  }

  /// An identity of the file's current version (device, inode, size, modification time), to
  /// notice cheaply that another process changed it.
  ///
  /// - Returns: The fingerprint, or nil when the file does not exist.
  public func fingerprint() -> [Int]? {
    var status = stat()
    guard stat(filePath, &status) == 0 else { return nil }
    return [
      Int(status.st_dev), Int(status.st_ino), Int(status.st_size),
      Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec),
    ]
  }

  private func readUserFile() throws -> CatalogFile? {
    guard let data = try DurableFile.read(filePath, limit: Self.sizeLimit) else { return nil }
    return try CatalogFile.parse(data, path: filePath)
  }

  private func readSeed() throws -> CatalogFile {
    guard let data = try DurableFile.read(seedPath, limit: Self.sizeLimit) else {
      throw StateRestorationError.cannotRead(
        path: seedPath, reason: "the bundled catalog is missing")
    }
    return try CatalogFile.parse(data, path: seedPath)
  }

  private static func reason(_ error: any Error) -> String {
    switch error {
    case StateRestorationError.malformed(_, let detail): detail
    case StateRestorationError.cannotRead(_, let reason): reason
    case StateRestorationError.tooLarge(_, let size, let limit):
      "\(size) bytes, over the limit of \(limit)"
    case StateRestorationError.newerFormatVersion(_, let found, let supported):
      "format version \(found) is newer than this program's \(supported)"
    default: error.localizedDescription
    }
  }
}
