import CatalogModel
import Foundation
import LineEditing
import StateRestoration

/// Links and activities delivered between running processes (SPEC sections 5 and 8): each REPL
/// listens on `PID.socket` in the state directory; `catalog open URL` and `handoff` reach the
/// process that has the target scene open.
extension CatalogMain {
  /// Who this process is, for a receiver's note: `pid 14739, /dev/pts/3`.
  static var senderDescription: String {
    "pid \(getpid())" + (SceneOwner.currentTerminal.map { ", \($0)" } ?? "")
  }

  /// The process to deliver a link to: the one that has the link's scene open or, for a link
  /// naming no scene, the one whose scene was in front most recently. Nil when no other running
  /// process has it.
  static func linkReceiver(
    for link: DeepLink, scene option: SceneName?, paths: AppPaths
  ) -> SceneOwner? {
    let directory = StateDirectory(existing: paths.stateDirectory)
    let scene = link.scene ?? option ?? (try? SessionFile.read(in: directory))?.activeScene
    guard let scene,
      let owner = SceneOwner(lockFile: directory.path(of: LockFiles.scene(scene))),
      !owner.isThisProcess
    else { return nil }
    return owner
  }

  /// `catalog open URL` when another process has the target scene open: delivers the link
  /// there and prints what that process did.
  ///
  /// - Returns: The exit status, or nil when the receiver does not listen (an older version):
  ///   the link is then opened here.
  static func deliverLink(
    _ link: String, scene: SceneName?, to owner: SceneOwner, paths: AppPaths, report: Reporter
  ) throws -> Int32? {
    let directory = StateDirectory(existing: paths.stateDirectory)
    let message = DeliveryChannel.Message(
      kind: .openURL, url: link, scene: scene, sender: senderDescription)
    do {
      let reply = try DeliveryChannel.deliver(message, to: owner.process.pid, in: directory)
      // What a peer sends is shown, never obeyed: control characters come out escaped.
      guard reply.ok else {
        report.error(reply.text.escapingControlCharacters)
        return ExitStatus.failure
      }
      TextOutput.standardOutput.line(reply.text.escapingControlCharacters)
      return ExitStatus.success
    } catch .notListening {
      return nil
    } catch {
      report.error("cannot open '\(link)' in the catalog process \(owner.place): \(error)")
      return ExitStatus.failure
    }
  }

  /// Applies what other processes delivered, one message at a time, each made durable before
  /// its sender hears of it; prints one line for each.
  static func applyDeliveries(
    from channel: DeliveryChannel, to state: inout AppState, store: AppStore,
    report: Reporter
  ) {
    for delivery in channel.takePending() {
      let message = delivery.message
      let (before, notes) = store.refreshed(state)
      for note in notes { report.warning(note) }
      do {
        var next: AppState
        var changes: [CatalogChange] = []
        let done: String
        let here: String
        switch message.kind {
        case .openURL:
          let url = message.url ?? ""
          let result = try before.applying(.open(url), environment: store.environment)
          next = result.state
          changes = result.catalogChanges
          done = "Opened '\(url.escapingControlCharacters)'"
          here = "in scene '\(next.activeSceneName)'"
        case .continueActivity:
          guard let activity = message.activity, let scene = message.scene,
            before.scene(named: scene.rawValue) != nil
          else {
            throw CatalogCoreError.noSuchScene(
              message.scene?.rawValue ?? "", open: before.scenes.map(\.name.rawValue))
          }
          next = before
          try next.continueActivity(activity, in: scene, environment: store.environment)
          next.activeSceneName = scene
          next.updatePhases()
          done =
            "Continued '\((activity.title ?? activity.activityType).escapingControlCharacters)'"
          here = "in scene '\(scene)'"
        }
        let warnings = try store.commit(from: state, to: &next, catalogChanges: changes)
        state = next
        // Durable now: only then does the sender hear that it was done.
        delivery.reply(.init(ok: true, text: "\(done) \(here) (\(senderDescription))."))
        TextOutput.standardOutput.line(
          "\(done) from \(message.sender.escapingControlCharacters).")
        for warning in warnings { report.warning(warning) }
      } catch {
        state = before
        store.releaseScenes(notIn: state)
        delivery.reply(.init(ok: false, text: error.localizedDescription))
        report.warning(
          "\(message.sender.escapingControlCharacters) sent something that could not be done: \(error.localizedDescription)"
        )
      }
    }
  }
}
