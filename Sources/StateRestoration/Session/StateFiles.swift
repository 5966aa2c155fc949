import Synchronization
package import SystemSupport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An activity a scene made current that the activity history may not hold yet: its history
/// key and when it became current. A program that saves its activities in batches lists them
/// in the scene's file meanwhile, where a `kill -9` cannot lose them.
package struct PendingActivity: Sendable, Hashable, Codable {
  /// The activity's ``UserActivityRecord/historyKey``.
  package var historyKey: String
  /// When it became current.
  package var lastActiveDate: Date

  /// Creates an entry.
  ///
  /// - Parameters:
  ///   - historyKey: The activity's history key.
  ///   - lastActiveDate: When it became current.
  package init(historyKey: String, lastActiveDate: Date) {
    self.historyKey = historyKey
    self.lastActiveDate = lastActiveDate
  }

  /// A list with one more entry: the newest of each key kept, oldest first.
  ///
  /// - Parameters:
  ///   - entry: The entry to add.
  ///   - list: The entries, oldest first.
  /// - Returns: The list without the entry's key, and the entry after it unless the list held
  ///   a newer one of that key.
  package static func adding(_ entry: PendingActivity, to list: [PendingActivity])
    -> [PendingActivity]
  {
    if let newer = list.first(where: { $0.historyKey == entry.historyKey }),
      newer.lastActiveDate > entry.lastActiveDate
    {
      return list
    }
    return list.filter { $0.historyKey != entry.historyKey } + [entry]
  }
}

/// `scenes/NAME.json`: one scene's storage and its restoration activity.
package struct SceneFile: VersionedFormat, Hashable {
  /// The format this version writes.
  package static let currentFormatVersion = 1
  /// The file's format.
  package var formatVersion = currentFormatVersion
  /// The scene's name; it matches the file's name.
  package var name: SceneName
  /// The scene's storage, every value tagged with its type.
  package var storage: SceneStorageValues
  /// The activity the scene advertised, if any.
  package var activity: UserActivityRecord?
  /// The activities the scene made current that the activity history may not hold yet,
  /// oldest first.
  package var pendingActivities: [PendingActivity] = []
  /// When the scene last came to the front (a launch that put it there, a switch to it), said
  /// by the process that brought it, which then left `session.json` as it was, and kept by the
  /// writes after; nil when the file does not say. The session's front is the scene made
  /// active last (``SessionState/front(among:)``).
  package var activatedAt: Date?

  /// Creates a scene's file.
  ///
  /// - Parameters:
  ///   - name: The scene.
  ///   - storage: Its storage.
  ///   - activity: The activity it advertises, if any.
  package init(name: SceneName, storage: SceneStorageValues, activity: UserActivityRecord? = nil) {
    self.name = name
    self.storage = storage
    self.activity = activity
  }

  /// The file that saves a scene: its storage and the activity it advertises.
  ///
  /// - Parameter scene: The scene.
  package init(_ scene: Scene) {
    self.init(name: scene.name, storage: scene.storage, activity: scene.userActivity)
  }

  /// The file's path in the state directory.
  package static func path(for name: SceneName) -> String { "scenes/\(name.rawValue).json" }

  /// The activities the file keeps that the activity history may not hold: its pending list,
  /// and the activity it advertises when that became current eligible for search (a file of an
  /// earlier version, written before its history's write, holds that one alone).
  package var unsavedActivities: [PendingActivity] {
    guard let activity, activity.isEligibleForSearch, let date = activity.lastActiveDate else {
      return pendingActivities
    }
    return PendingActivity.adding(
      PendingActivity(historyKey: activity.historyKey, lastActiveDate: date),
      to: pendingActivities)
  }

  /// Reads a scene's file, as a launch and a program's state report both do.
  ///
  /// - Parameters:
  ///   - name: The scene.
  ///   - directory: The state directory.
  /// - Returns: The file's contents, or nil when the scene has no file yet.
  /// - Throws: A `StateRestorationError` when the file cannot be read, is malformed, is of a
  ///   newer format, or holds another scene (a file copied or renamed by hand).
  package static func read(_ name: SceneName, in directory: StateDirectory) throws -> SceneFile? {
    let path = directory.path(of: path(for: name))
    guard let data = try DurableFile.read(path, limit: StateDirectory.defaultSizeLimit) else {
      return nil
    }
    let file = try decoded(data, path: path)
    if file.name != name {
      throw StateRestorationError.malformed(
        path: path, detail: "it holds scene '\(file.name)'")
    }
    return file
  }

  /// The files this process decoded, by path, with the bytes they were decoded from: a launch
  /// on a server reads its scenes' files while the server starts the session, and again once
  /// it has claimed them; bytes that did not change are not decoded again. Only small files
  /// are kept, and only a few (a session has a few scenes).
  private static let decodedFiles = Mutex<[String: (data: Data, file: SceneFile)]>([:])

  /// A file's contents decoded, or as decoded before from the same bytes.
  private static func decoded(_ data: Data, path: String) throws -> SceneFile {
    if let known = decodedFiles.withLock({ $0[path] }), known.data == data { return known.file }
    let file = try SceneFile.decoded(from: data, path: path)
    if data.count <= 64 << 10 {
      decodedFiles.withLock { files in
        if files.count >= 16 { files.removeAll() }
        files[path] = (data, file)
      }
    }
    return file
  }
}

/// `session.json`: the open scenes in order and the active one.
package struct SessionFile: VersionedFormat, Hashable {
  /// The format this version writes.
  package static let currentFormatVersion = 1
  /// The file's format.
  package var formatVersion = currentFormatVersion
  /// The open scenes, in order.
  package var scenes: [SceneName]
  /// The active scene.
  package var activeScene: SceneName?
  /// When the active scene became active; nil in a file of an earlier version.
  package var activatedAt: Date?

  /// The file's path in the state directory.
  package static let path = "session.json"

  /// The file that saves a session.
  ///
  /// - Parameter session: The session.
  package init(_ session: SessionState) {
    scenes = session.scenes
    activeScene = session.activeScene
    activatedAt = session.activatedAt
  }

  /// The session the file saves.
  package var session: SessionState {
    SessionState(scenes: scenes, activeScene: activeScene, activatedAt: activatedAt)
  }

  /// Reads the session file.
  ///
  /// - Parameter directory: The state directory.
  /// - Returns: The session; empty when there is no file yet.
  /// - Throws: A `StateRestorationError` when the file cannot be read.
  package static func read(in directory: StateDirectory) throws -> SessionState {
    try directory.load(SessionFile.self, from: path)?.session ?? rebuilt(in: directory)
  }

  /// The session the scene files on disk describe, for when `session.json` is missing or
  /// cannot be read: `main` first, then the others by name; the scene saved last is active.
  ///
  /// - Parameter directory: The state directory.
  /// - Returns: The session; empty when there are no scene files.
  package static func rebuilt(in directory: StateDirectory) -> SessionState {
    var names = sceneNamesOnDisk(in: directory)
    if let main = names.firstIndex(of: .main) { names.insert(names.remove(at: main), at: 0) }
    let newest = names.map { ($0, modificationTime(of: $0, in: directory)) }.max { $0.1 < $1.1 }
    return SessionState(scenes: names, activeScene: newest?.0)
  }

  /// The scenes that have a file in `scenes/`, by name; files whose names are not scene names
  /// are left out.
  ///
  /// - Parameter directory: The state directory.
  /// - Returns: The names, sorted.
  package static func sceneNamesOnDisk(in directory: StateDirectory) -> [SceneName] {
    let files =
      DurableFile.entries(in: directory.path(of: "scenes"))
    return files.compactMap { file in
      file.hasSuffix(".json") ? SceneName(String(file.dropLast(5))) : nil
    }.sorted()
  }

  /// The scene in front of a session as its files say now (``SessionState/front(among:)``):
  /// the session's active scene, or a scene whose file says it was made active later.
  ///
  /// - Parameters:
  ///   - session: The session, as read from its file.
  ///   - directory: The state directory.
  ///   - known: Scenes whose files were read already, with what each says.
  /// - Returns: The scene in front; nil when the session has none and no file says.
  package static func front(
    of session: SessionState, in directory: StateDirectory,
    knowing known: [(scene: SceneName, activatedAt: Date?)] = []
  ) -> SceneName? {
    session.front(among: activations(of: session, in: directory, knowing: known))
  }

  /// What the session's scene files say of when their scenes were made active: those known,
  /// and those of the files written since the newest date known, which are the only ones that
  /// may say a later date, read now.
  ///
  /// - Parameters:
  ///   - session: The session, as read from its file.
  ///   - directory: The state directory.
  ///   - known: Scenes whose files were read already, with what each says.
  /// - Returns: The known scenes' dates, then those read.
  package static func activations(
    of session: SessionState, in directory: StateDirectory,
    knowing known: [(scene: SceneName, activatedAt: Date?)]
  ) -> [(scene: SceneName, activatedAt: Date?)] {
    let newest = ([session.activatedAt] + known.map(\.activatedAt)).compactMap { $0 }.max()
    // A file made active later was written later, by a clock that may lag the file system's
    // by its granularity.
    let since = (newest ?? .distantPast).timeIntervalSince1970 - 2
    var files = known
    for scene in session.scenes where !known.contains(where: { $0.scene == scene }) {
      guard modificationTime(of: scene, in: directory) >= since else { continue }
      files.append((scene, ((try? SceneFile.read(scene, in: directory)) ?? nil)?.activatedAt))
    }
    return files
  }

  private static func modificationTime(of name: SceneName, in directory: StateDirectory)
    -> Double
  {
    var status = stat()
    guard lstat(directory.path(of: SceneFile.path(for: name)), &status) == 0 else { return 0 }
    return Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
  }
}

extension SceneFile {
  private enum CodingKeys: String, CodingKey {
    case formatVersion, name, storage, activity, pendingActivities, activatedAt
  }

  /// Reads a scene's file as its JSON has it, an empty pending list left out.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: What decoding throws.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      name: try container.decode(SceneName.self, forKey: .name),
      storage: try container.decode(SceneStorageValues.self, forKey: .storage),
      activity: try container.decodeIfPresent(UserActivityRecord.self, forKey: .activity))
    formatVersion = try container.decode(Int.self, forKey: .formatVersion)
    pendingActivities =
      try container.decodeIfPresent([PendingActivity].self, forKey: .pendingActivities) ?? []
    activatedAt = try container.decodeIfPresent(Date.self, forKey: .activatedAt)
  }

  /// Writes the file's JSON, an empty pending list left out.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: What encoding throws.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(formatVersion, forKey: .formatVersion)
    try container.encode(name, forKey: .name)
    try container.encode(storage, forKey: .storage)
    try container.encodeIfPresent(activity, forKey: .activity)
    if !pendingActivities.isEmpty {
      try container.encode(pendingActivities, forKey: .pendingActivities)
    }
    try container.encodeIfPresent(activatedAt, forKey: .activatedAt)
  }
}

extension SceneFile: JSONRepresentable {
  /// Reads a scene's file.
  ///
  /// - Parameter json: The file's JSON.
  /// - Throws: ``JSONReadError`` when a member is missing or does not have its type.
  package init(json: JSONValue) throws(JSONReadError) {
    self.init(
      name: try json.read("name") { value throws(JSONReadError) in try SceneName(json: value) },
      storage: try json.read("storage") { value throws(JSONReadError) in
        try SceneStorageValues(json: value)
      },
      activity: try json.readIfPresent("activity") { value throws(JSONReadError) in
        try UserActivityRecord(json: value)
      })
    pendingActivities =
      try json.readIfPresent("pendingActivities") { value throws(JSONReadError) in
        try value.readElements { element throws(JSONReadError) in
          PendingActivity(
            historyKey: try element.readString("historyKey"),
            lastActiveDate: try element.readDate("lastActiveDate"))
        }
      } ?? []
    activatedAt = try json.readIfPresent("activatedAt") { value throws(JSONReadError) in
      try value.dateValue()
    }
    formatVersion = try json.readInt("formatVersion")
  }

  /// The file's JSON.
  package var json: JSONValue {
    var members: [(String, JSONValue)] = [
      ("formatVersion", .int(formatVersion)), ("name", name.json), ("storage", storage.json),
    ]
    if let activity { members.append(("activity", activity.json)) }
    if !pendingActivities.isEmpty {
      members.append(
        (
          "pendingActivities",
          .array(
            pendingActivities.map { entry in
              .object([
                ("historyKey", .string(entry.historyKey)),
                ("lastActiveDate", .date(entry.lastActiveDate)),
              ])
            })
        ))
    }
    if let activatedAt {
      members.append(("activatedAt", .date(activatedAt)))
    }
    return .object(members)
  }
}

extension SessionFile: JSONRepresentable {
  /// Reads the session file.
  ///
  /// - Parameter json: The file's JSON.
  /// - Throws: ``JSONReadError`` when a member is missing or does not have its type.
  package init(json: JSONValue) throws(JSONReadError) {
    self.init(
      SessionState(
        scenes: try json.read("scenes") { value throws(JSONReadError) in
          try value.readElements { element throws(JSONReadError) in try SceneName(json: element) }
        },
        activeScene: try json.readIfPresent("activeScene") { value throws(JSONReadError) in
          try SceneName(json: value)
        },
        activatedAt: try json.readIfPresent("activatedAt") { value throws(JSONReadError) in
          try value.dateValue()
        }))
    formatVersion = try json.readInt("formatVersion")
  }

  /// The file's JSON.
  package var json: JSONValue {
    var members: [(String, JSONValue)] = [
      ("formatVersion", .int(formatVersion)), ("scenes", .array(scenes.map(\.json))),
    ]
    if let activeScene { members.append(("activeScene", activeScene.json)) }
    if let activatedAt {
      members.append(("activatedAt", .date(activatedAt)))
    }
    return .object(members)
  }
}

/// Where lock files live in the state directory.
package enum LockFiles {
  /// The lock a scene's owner holds: `locks/scene-NAME.lock`.
  package static func scene(_ name: SceneName) -> String { "locks/scene-\(name.rawValue).lock" }
  /// The lock held while the session file is read and rewritten.
  package static let session = "locks/session.lock"
  /// The lock held while launches are counted.
  package static let launch = "locks/launch.lock"
}
