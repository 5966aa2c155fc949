import CatalogCore
import CatalogEngines
import CatalogModel
import Foundation
import SearchIndex

/// The search of a catalog, for the REPL and the shell alike: the catalog database's index
/// file with the changes since it was built laid over it (an index in memory for a catalog not
/// in the database), built again at once when a search finds it damaged, and in the background
/// when the changes laid over it pass ``CatalogSearchIndex/rebuildThreshold``.
///
/// The background build is one mechanism for every caller: a `catalog reindex` process of its
/// own (its own process group, so a ^C at the terminal does not stop it), which outlives a
/// command run from the shell; a long-running process that started one opens the new file
/// once that process has ended. A program that embeds the app and is not `catalog` itself
/// (the benchmark) names no builder: it lays changes over the index until the file is too far
/// behind, and then builds it at once.
package final class SearchService {
  private let indexPath: String
  private let dataDirectory: String
  private let builder: String?
  private let note: (String) -> Void
  private var current: ActivitySearch?
  /// The background build this process started, until it ends.
  private var rebuild: pid_t?

  /// Creates the search of the catalog in a data directory.
  ///
  /// - Parameters:
  ///   - indexPath: The catalog database's index file.
  ///   - dataDirectory: The data directory, for a background build.
  ///   - builder: The `catalog` executable that builds the index in the background; nil for
  ///     none.
  ///   - note: Shows a line about the index: built again, read again.
  package init(
    indexPath: String, dataDirectory: String, builder: String?,
    note: @escaping (String) -> Void
  ) {
    self.indexPath = indexPath
    self.dataDirectory = dataDirectory
    self.builder = builder
    self.note = note
  }

  /// Calls a body with the search of a catalog as it is now. When the body finds the index
  /// file damaged, the index is built again and the body called again.
  ///
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - body: What to do with the search.
  /// - Returns: What the body returns.
  /// - Throws: What the body throws, or ``CatalogError`` when the catalog cannot be
  ///   read to build the index.
  package func search<Result>(_ catalog: Catalog, _ body: (ActivitySearch) throws -> Result)
    throws -> Result
  {
    do {
      return try body(try opened(for: catalog))
    } catch let damage as SearchIndexError where !damage.isAboutTheQuery {
      // A block of the file failed its checksum as the search read it: build it again.
      current = nil
      note("\(damage.description); building it again")
      return try body(try opened(for: catalog, rebuilding: true))
    }
  }

  private func opened(for catalog: Catalog, rebuilding: Bool = false) throws -> ActivitySearch {
    guard let database = catalog.source as? any CatalogStorage else {
      if current == nil {
        current = ActivitySearch(catalog: catalog)
      } else {
        current?.update(to: catalog)
      }
      return current ?? ActivitySearch(catalog: catalog)
    }
    // The file this process's background build wrote is opened in place of the one in use.
    if let pid = rebuild, waitpid(pid, nil, WNOHANG) != 0 {
      rebuild = nil
      current = nil
    }
    // A file changed in place under the mapping (cut short, written over) is read again, and
    // built again if it is damaged: touching a page past its new end would kill the process.
    if let search = current, search.index.index.fileHasChanged {
      current = nil
      note("the search index '\(indexPath)' was changed by another program; reading it again")
    }
    if rebuilding {
      current = ActivitySearch(
        catalog: catalog, index: try CatalogSearchIndex.build(indexPath, database: database))
    } else if var search = current, search.catalog.source === database {
      if search.catalog != catalog {
        var index = search.index
        if try index.update(from: database) {
          search = ActivitySearch(catalog: catalog, index: index)
        } else {
          search = ActivitySearch(
            catalog: catalog,
            index: try CatalogSearchIndex.open(indexPath, database: database, note: note))
        }
        current = search
      }
    } else {
      current = ActivitySearch(
        catalog: catalog,
        index: try CatalogSearchIndex.open(indexPath, database: database, note: note))
    }
    guard let search = current else { return ActivitySearch(catalog: catalog) }
    if search.index.needsRebuild, rebuild == nil, let builder {
      rebuild = Self.startRebuild(
        with: builder, dataDirectory: dataDirectory, indexPath: indexPath)
    }
    return search
  }

  /// This process's executable: the builder to name when this process is `catalog`.
  package static var thisExecutable: String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return nil }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Starts `catalog reindex` in a process of its own, in the background, unless another
  /// process is building the index already (which leaves a new file too).
  ///
  /// - Parameters:
  ///   - executable: The `catalog` executable.
  ///   - dataDirectory: The data directory.
  ///   - indexPath: The catalog database's index file.
  /// - Returns: The process, or nil when none was started.
  @discardableResult
  package static func startRebuild(
    with executable: String, dataDirectory: String, indexPath: String
  ) -> pid_t? {
    guard !CatalogSearchIndex.isBeingBuilt(indexPath) else { return nil }
    let arguments = [executable, "--data-dir", dataDirectory, "reindex"]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor: Int32 in 0...2 {
      posix_spawn_file_actions_addopen(
        &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // A process group of its own: a ^C at the terminal does not stop it.
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
    posix_spawnattr_setpgroup(&attributes, 0)
    var pid = pid_t()
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    guard posix_spawn(&pid, executable, &actions, &attributes, &argv, environ) == 0 else {
      return nil
    }
    return pid
  }
}
