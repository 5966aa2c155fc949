import Foundation
import StateRestoration
import SystemSupport
import TestSupport
import Testing

/// What a state directory does with files a person, a crash or an attacker left in it:
/// links, FIFOs, directories, loose modes and abandoned temporary files.
@Suite struct HostileFileTests {
  @Test(arguments: ["locks/scene-main.lock", "locks/session.lock", "products.lock"])
  func aSymlinkedLockFileIsRefusedAndItsTargetUntouched(_ lockPath: String) throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path + "/state")
    let victim = temporary.path + "/victim"
    try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
    try FileManager.default.createDirectory(
      atPath: directory.path(of: "locks"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: directory.path(of: lockPath), withDestinationPath: victim)
    #expect(
      throws: SystemError.cannotWrite(
        path: directory.path(of: lockPath),
        reason: "it is a symbolic link; remove it and try again")
    ) {
      try directory.lock(lockPath)
    }
    #expect(throws: SystemError.self) { try directory.lockWaiting(lockPath) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("precious".utf8))
  }

  @Test(arguments: ["scenes", "locks", "quarantine"])
  func aSymlinkedSubfolderIsNeverWrittenThrough(_ folder: String) throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path + "/state")
    let outside = temporary.path + "/outside"
    try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: directory.path(of: folder), withDestinationPath: outside)
    try DurableFile.write(Data("x".utf8), to: directory.path(of: "bad.json"))
    #expect(throws: SystemError.self) {
      switch folder {
      case "scenes": try directory.save(TestSceneFile(storage: .init()), to: "scenes/main.json")
      case "locks": _ = try directory.lock("locks/a.lock")
      default: try directory.quarantine("bad.json")
      }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
  }

  @Test func aFIFOIsReadAsNotARegularFileWithoutWaiting() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    #expect(mkfifo(directory.path(of: "session.json"), 0o600) == 0)
    #expect(
      throws: SystemError.cannotRead(
        path: directory.path(of: "session.json"), reason: "it is not a regular file")
    ) {
      try directory.load(TestSceneFile.self, from: "session.json")
    }
    let destination = try directory.quarantine("session.json")
    var status = stat()
    #expect(lstat(destination, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO)
    #expect(!directory.contains("session.json"))
  }

  @Test func aSymlinkedStateFileIsNotFollowed() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path + "/state")
    try DurableFile.write(
      Data("{\"formatVersion\": 1, \"storage\": {}}".utf8), to: temporary.path + "/elsewhere.json")
    try FileManager.default.createSymbolicLink(
      atPath: directory.path(of: "s.json"), withDestinationPath: temporary.path + "/elsewhere.json")
    #expect(
      throws: SystemError.cannotRead(
        path: directory.path(of: "s.json"), reason: "it is a symbolic link")
    ) {
      try directory.load(TestSceneFile.self, from: "s.json")
    }
    // Quarantine moves the link itself; the file it pointed to stays where it was.
    let destination = try directory.quarantine("s.json")
    #expect(
      (try? FileManager.default.destinationOfSymbolicLink(atPath: destination))
        == temporary.path + "/elsewhere.json")
    #expect(FileManager.default.fileExists(atPath: temporary.path + "/elsewhere.json"))
  }

  @Test func aDirectoryIsQuarantinedWhole() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    try FileManager.default.createDirectory(
      atPath: directory.path(of: "launch.json/inner"), withIntermediateDirectories: true)
    #expect(throws: SystemError.self) {
      try directory.load(TestSceneFile.self, from: "launch.json")
    }
    let destination = try directory.quarantine("launch.json")
    #expect(FileManager.default.fileExists(atPath: destination + "/inner"))
    #expect(!directory.contains("launch.json"))
    // A second one of the same name at the same instant gets its own name.
    try FileManager.default.createDirectory(
      atPath: directory.path(of: "launch.json"), withIntermediateDirectories: true)
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    let first = try directory.quarantine("launch.json", at: date)
    try FileManager.default.createDirectory(
      atPath: directory.path(of: "launch.json"), withIntermediateDirectories: true)
    let second = try directory.quarantine("launch.json", at: date)
    #expect(first != second)
  }

  @Test func aQuarantinedFileIsMadePrivate() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    let file = directory.path(of: "session.json")
    try Data("junk".utf8).write(to: URL(fileURLWithPath: file))
    #expect(chmod(file, 0o644) == 0)
    let destination = try directory.quarantine("session.json")
    let mode = try FileManager.default.attributesOfItem(atPath: destination)[.posixPermissions]
    #expect(mode as? Int == 0o600)
  }

  @Test func looseModesAreTightenedAndReported() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/loose"
    #expect(mkdir(path, 0o755) == 0)
    #expect(chmod(path, 0o755) == 0)
    #expect(try DurableFile.tightenPermissions(of: path, to: 0o700) == 0o755)
    #expect(try DurableFile.tightenPermissions(of: path, to: 0o700) == nil)
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]
    #expect(mode as? Int == 0o700)
  }

  @Test func abandonedTemporaryFilesOfDeadProcessesAreSwept() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path)
    let dead = deadProcessIdentifier()
    let names = [
      ".main.json.\(dead).12345.tmp",  // a dead writer's: removed
      ".catalog.sqlite.\(dead).9.tmp-wal",  // its temporary database's log: removed
      ".catalog.sqlite.\(dead).9.tmp-shm",  // and the log's index: removed
      ".main.json.\(getpid()).777.tmp",  // this live process's: kept
      ".catalog.sqlite.\(getpid()).8.tmp-wal",  // kept
      ".notes.tmp",  // not named by a writer: kept
      ".x.\(dead).1.tmp-other",  // not a SQLite companion: kept
      "main.json",
    ]
    for name in names {
      try DurableFile.write(Data("x".utf8), to: directory.path(of: name))
    }
    #expect(directory.removeAbandonedTemporaryFiles() == 3)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted()
        == names.dropFirst(3).sorted())
  }

  @Test func aPreparedWriteChangesNothingUntilCommitted() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/file.json"
    try DurableFile.write(Data("old".utf8), to: path)
    var prepared: PreparedWrite? = try DurableFile.prepare(Data("new".utf8), for: path)
    #expect(try DurableFile.read(path, limit: 100) == Data("old".utf8))
    prepared = nil
    #expect(try DurableFile.read(path, limit: 100) == Data("old".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["file.json"])
    let committed = try DurableFile.prepare(Data("new".utf8), for: path)
    try committed.commit()
    #expect(try DurableFile.read(path, limit: 100) == Data("new".utf8))
    #expect(prepared == nil)
  }

  @Test func aProcessIdentityKnowsWhetherItsProcessRuns() {
    #expect(ProcessIdentity.current.isRunning)
    #expect(ProcessIdentity.current.startTime != nil)
    // The same pid with another start time is a process that reused the identifier.
    var reused = ProcessIdentity.current
    reused.startTime = (reused.startTime ?? 0) + 1
    #expect(!reused.isRunning)
    #expect(!ProcessIdentity(pid: deadProcessIdentifier(), startTime: nil).isRunning)
  }
}
