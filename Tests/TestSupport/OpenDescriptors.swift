import Foundation

/// How many of this process's descriptors are open on a file (read from `/proc/self/fd`): to
/// see that a connection was kept, or let go.
///
/// - Parameter file: The file's path, as the descriptors' links name it.
/// - Returns: The count.
package func openDescriptors(of file: String) -> Int {
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  return entries.count { entry in
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry)) == file
  }
}
