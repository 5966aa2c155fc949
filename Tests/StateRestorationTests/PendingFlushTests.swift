import Foundation
import StateRestoration
import TestSupport
import Testing

@testable import SystemSupport

/// A prepared file whose flush runs beside its writer's other work, as a scene file's does
/// while the catalog commits.
@Suite struct PendingFlushTests {
  @Test(arguments: [false, true])
  func aPreparedWriteChangesNothingUntilCommittedHoweverItFlushes(_ inBackground: Bool) throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/file.json"
    try DurableFile.write(Data("old".utf8), to: path)
    var dropped: PreparedWrite? = try DurableFile.prepare(
      Data("dropped".utf8), for: path, flushingInBackground: inBackground)
    #expect(dropped != nil)
    dropped = nil
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["file.json"])
    let prepared = try DurableFile.prepare(
      Data("new".utf8), for: path, flushingInBackground: inBackground)
    #expect(try DurableFile.read(path, limit: 100) == Data("old".utf8))
    try prepared.commit()
    #expect(try DurableFile.read(path, limit: 100) == Data("new".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["file.json"])
  }

  @Test func aFailedFlushIsReportedByTheCommitAndLeavesTheOldFile() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/file.json"
    try DurableFile.write(Data("old".utf8), to: path)
    let written = DurableFile.temporaryPath(for: path)
    try Data("new".utf8).write(to: URL(fileURLWithPath: written))
    // A descriptor that is not open: its `fsync` fails as a disk's I/O error would.
    let prepared = PreparedWrite(
      temporaryPath: written, path: path, flush: PendingFlush(descriptor: -1))
    #expect(
      throws: SystemError.cannotWrite(path: path, reason: "Bad file descriptor")
    ) { try prepared.commit() }
    #expect(try DurableFile.read(path, limit: 100) == Data("old".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["file.json"])
  }

  @Test func aFailedFlushIsReportedByCommitIfAbsentToo() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/file.json"
    let written = DurableFile.temporaryPath(for: path)
    try Data("new".utf8).write(to: URL(fileURLWithPath: written))
    let prepared = PreparedWrite(
      temporaryPath: written, path: path, flush: PendingFlush(descriptor: -1))
    #expect(throws: SystemError.self) { _ = try prepared.commitIfAbsent() }
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
  }

  @Test func scenesPreparedWithABackgroundFlushAreSavedByTheCommit() throws {
    let temporary = TemporaryDirectory()
    let session = try SessionStore(directory: temporary.path)
    var scene = Scene(name: .main)
    scene.storage = SceneStorageValues(["n": .int(7)])
    let prepared = try session.prepare(saving: [scene], flushingInBackground: true)
    #expect(try SceneFile.read(.main, in: session.directory) == nil)
    try session.commit(prepared)
    #expect(try SceneFile.read(.main, in: session.directory)?.storage.entries["n"] == .int(7))
  }
}
