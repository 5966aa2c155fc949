#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension URL {
  /// The file system path of a directory's URL, without the slash a URL of an existing
  /// directory ends in: the same text as the path the directory is otherwise named by.
  package var directoryPath: String {
    let path = path(percentEncoded: false)
    return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
  }
}
