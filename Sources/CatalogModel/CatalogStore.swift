import Foundation
import StateRestoration

#if canImport(Glibc)
  import Glibc
#endif

/// The user's catalog on disk: seeded from the bundled file on first launch, edited durably,
/// and never overwritten when it cannot be read.
///
/// Edits from several processes never lose an update: ``save(_:)`` takes a lock, reads the
/// file as it is now, replaces one product and writes the result.
public struct CatalogStore: Sendable {
  /// What loading the catalog gave.
  public struct Loaded: Sendable {
    /// The catalog to run on.
    public var catalog: Catalog
    /// Why edits are refused, when the user's file could not be read; nil when edits work.
    public var readOnlyReason: String?
    /// A one-line warning for the user, if any.
    public var warning: String?
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
        return Loaded(catalog: Catalog(file.products))
      }
      let directory = try StateDirectory(creating: directoryPath)
      let lock = try directory.lockWaiting(Self.lockName)
      defer { withExtendedLifetime(lock) {} }
      if let file = try readUserFile() {
        return Loaded(catalog: Catalog(file.products))
      }
      let seed = try readSeed()
      try directory.save(seed, to: Self.fileName)
      return Loaded(catalog: Catalog(seed.products))
    } catch {
      let reason = Self.reason(error)
      let seed = try readSeed()
      return Loaded(
        catalog: Catalog(seed.products), readOnlyReason: reason,
        warning:
          "cannot read the catalog '\(filePath)' (\(reason)); running on the bundled catalog, and edits are refused until the file is fixed"
      )
    }
  }

  /// Loads the user's catalog for reading only: never seeds it or writes anything.
  ///
  /// - Returns: The user's catalog, or the bundled one when it does not exist or cannot be read.
  /// - Throws: A `StateRestorationError` only when the bundled catalog cannot be read.
  public func loadForReading() throws -> Loaded {
    do {
      if let file = try readUserFile() { return Loaded(catalog: Catalog(file.products)) }
      return Loaded(catalog: Catalog(try readSeed().products))
    } catch {
      let reason = Self.reason(error)
      return Loaded(
        catalog: Catalog(try readSeed().products), readOnlyReason: reason,
        warning: "cannot read the catalog '\(filePath)' (\(reason)); showing the bundled catalog")
    }
  }

  /// Saves one edited product durably, merging with edits other processes made meanwhile.
  ///
  /// - Parameter product: The edited product; the one with its identifier is replaced.
  /// - Returns: The catalog as it is on disk now, this edit included.
  /// - Throws: ``CatalogError/catalogReadOnly(path:reason:)`` when the file cannot be read,
  ///   ``CatalogError/productRemoved(name:)`` when the product is gone, or a
  ///   `StateRestorationError` when it cannot be written (the old file is then intact).
  public func save(_ product: Product) throws -> Catalog {
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
    var catalog = Catalog(current.products)
    guard catalog.replace(product) else { throw CatalogError.productRemoved(name: product.name) }
    try directory.save(CatalogFile(products: catalog.products), to: Self.fileName)
    return catalog
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
