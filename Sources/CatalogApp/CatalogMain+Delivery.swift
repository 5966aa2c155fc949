import CatalogCore
import CatalogModel
import Foundation
import LineEditing
import StateRestoration
import SystemSupport

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
    let scene =
      link.scene ?? option
      ?? (try? SessionFile.read(in: directory)).flatMap { SessionFile.front(of: $0, in: directory) }
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
      do {
        let command: Command
        switch message.kind {
        case .openURL:
          command = .open(message.url ?? "")
        case .continueActivity:
          guard let activity = message.activity, let scene = message.scene else {
            throw CatalogCoreError.noSuchScene(
              message.scene?.rawValue ?? "", open: state.scenes.map(\.name.rawValue))
          }
          command = .continueDelivered(activity, in: scene)
        }
        let result = try store.perform(command, on: &state, warn: report.warning)
        let title = (message.activity.map { $0.title ?? $0.activityType } ?? "")
          .escapingControlCharacters
        let link = (message.url ?? "").escapingControlCharacters
        // Durable now: only then does the sender hear that it was done. Each side says it as
        // the one typing there would: the sender handed off, this process continued.
        let scene = "scene '\(state.activeSceneName)' (\(senderDescription))"
        delivery.reply(
          .init(
            ok: true,
            text: message.kind == .openURL
              ? "Opened '\(link)' in \(scene)." : "Handed off '\(title)' to \(scene)."))
        let sender = message.sender.escapingControlCharacters
        TextOutput.standardOutput.line(
          message.kind == .openURL
            ? "Opened '\(link)' from \(sender)." : "Continued '\(title)' from \(sender).")
        // What the link or the activity shows, as if typed here.
        if !result.output.isEmpty { TextOutput.standardOutput.line(result.output) }
        for warning in result.warnings { report.warning(warning) }
      } catch {
        store.releaseScenes(notIn: state)
        delivery.reply(.init(ok: false, text: error.localizedDescription))
        report.warning(
          "\(message.sender.escapingControlCharacters) sent something that could not be done: \(error.localizedDescription)"
        )
      }
    }
  }
}
