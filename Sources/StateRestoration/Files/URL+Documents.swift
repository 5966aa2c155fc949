internal import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if !canImport(Darwin)
  extension URL {
    /// Where a program keeps the documents it saves, as `URL.documentsDirectory` is an app's
    /// own Documents folder on Apple's platforms: `$XDG_DATA_HOME/PROGRAM`, by default
    /// `~/.local/share/PROGRAM`, the per-user place the XDG Base Directory convention gives
    /// Linux programs for their data, PROGRAM being the executable's name.
    ///
    /// Created (0700, with its parents) when missing, so that a file can be written into it
    /// at once, as into an app's Documents folder. Foundation on Linux does not have it.
    public static var documentsDirectory: URL {
      let environment = ProcessInfo.processInfo.environment
      let dataHome =
        environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        ?? (environment["HOME"] ?? "/") + "/.local/share"
      let path = dataHome + "/" + ProcessInfo.processInfo.processName
      // A directory that cannot be made shows as the error of the first write into it.
      try? DurableFile.createDirectory(path)
      return URL(fileURLWithPath: path, isDirectory: true)
    }
  }
#endif
