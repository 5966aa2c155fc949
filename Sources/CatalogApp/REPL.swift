import CatalogCore
import CatalogEngines
import CatalogModel
import Foundation
import LineEditing
import StateRestoration
import SystemSupport

/// One run of the app's read–eval–print loop, or of one command from the shell, which is a
/// loop of one line: the restored state, where lines come from, what other processes deliver,
/// and whether anything failed.
final class REPL {
  private let store: AppStore
  private var state: AppState
  private let output = TextOutput.standardOutput
  private let report: Reporter
  private let presentation: Presentation
  /// Whether a person is at a terminal typing (not a script, not one command).
  private let isInteractive: Bool
  private let reader: LineReader
  private let editor: TerminalLineEditor?
  /// Links and handoffs from other processes; nil for one command, or without a socket.
  private let channel: DeliveryChannel?
  /// Activities the user's other machines hand off, with a catalog on a server: listened for
  /// from the first time the loop would wait for a line.
  private var handoffs: (any HandoffListener)?
  /// Whether the loop is yet to start listening for handoffs; never for one command.
  private var listensForHandoffsWhenWaiting: Bool
  private var failed = false
  private var exitSignal: Int32?
  /// The product whose picture the last command drew, the last thing on the screen: drawn
  /// again to the window's width when the window is resized.
  private var pictureShown: Product?
  /// Why the line history could not be saved, said once.
  private let historyFailure = HistoryFailure()
  /// The reader's ``LineReader/reads`` as the catalog was last read afresh, and how many
  /// refreshes had asked it then (``CatalogSession/refreshes``): a line read before runs on
  /// that read (``CatalogSession/servesNextRefresh``). The launch read it after the input a
  /// script had sent by then.
  private var lastRead: (reads: Int, refreshes: Int)
  /// What commands whose saves were put off printed (``AppStore/hasDeferredSave``), in order,
  /// each on standard error or not: shown once their changes are on disk.
  private var withheld: [(isWarning: Bool, text: String)] = []

  /// Why a line could not be added to the line history; reported once, then kept quiet.
  private final class HistoryFailure {
    var reason: String?
    var isReported = false
  }

  /// Restores the app and readies the loop: the launch's warnings and notices are shown, an
  /// editor restored open shows its draft, and a REPL starts listening for deliveries.
  ///
  /// - Parameters:
  ///   - options: How the app was launched.
  ///   - oneCommand: The one command from the shell; nil for a REPL or a script.
  ///   - presentation: How output looks.
  ///   - environment: The process's environment, for the terminal's capabilities.
  ///   - report: Where errors and warnings go.
  /// - Throws: What the launch throws.
  init(
    _ options: LaunchOptions, command oneCommand: String?, presentation: Presentation,
    environment: [String: String], report: Reporter
  ) throws {
    // A script's lines sent already are taken before the launch reads the catalog: they were
    // sent before that read, and run on it (``lastRead``).
    let reader = oneCommand.map { LineReader(text: $0 + "\n") } ?? LineReader()
    if oneCommand == nil && isatty(0) == 0 { reader.readAvailable() }
    var options = options
    if options.paths.catalogServer != nil {
      // Parsed again as it runs: here only for what a server reads ahead, for the one command
      // or a script's first.
      let first = oneCommand.map { [$0] } ?? reader.bufferedLines(limit: 16)
      options.namedProduct =
        first.lazy.compactMap { try? CommandParser.parse($0) }.first?.namedProduct
    }
    let (store, state, warnings) = try AppStore.launch(options)
    self.reader = reader
    lastRead = (reader.reads, store.environment.catalog.refreshes)
    self.store = store
    self.state = state
    self.report = report
    self.presentation = presentation
    store.environment.presentation = presentation
    for warning in warnings { report.warning(warning) }
    // One command from the shell prints what it was asked for: which scenes other terminals
    // have open, and the view a scene comes back to, are for a person at a terminal or a
    // script's log.
    let isOneCommand = oneCommand != nil
    for notice in store.notices where !isOneCommand {
      if store.passingScene != nil { report.warning(notice) } else { output.line(notice) }
    }
    // An editor restored open shows its draft before the first prompt, as `edit` would.
    if state.activeScene.isEditing && !isOneCommand {
      output.line(
        Renderer(environment: store.environment).location(
          of: state.activeScene, in: state.catalog))
    }
    isInteractive = oneCommand == nil && isatty(0) == 1
    // The whole catalog file is checked while the person reads the first prompt; an edit waits
    // for the verdict, and a damaged file is never written.
    if isInteractive { store.environment.database?.verifyInBackground() }
    let historyDirectory = store.environment.directory
    let historyFailure = self.historyFailure
    editor =
      oneCommand == nil && TerminalLineEditor.isSupported(environment: environment)
      ? TerminalLineEditor(
        history: .init(
          load: { HistoryFile.lines(in: historyDirectory) },
          add: { line in
            do {
              return try HistoryFile.add(line, in: historyDirectory)
            } catch {
              historyFailure.reason = historyFailure.reason ?? error.localizedDescription
              return nil
            }
          }))
      : nil
    Signals.install()
    // Links and handoffs from other processes wake the loop, which applies them between
    // commands. Without a socket (a path too long for one), the REPL works alone. Not for one
    // command from the shell, which exits before it would apply one: a sender finds no one
    // listening and opens the link itself, once the scene is free.
    channel =
      oneCommand == nil
      ? try? DeliveryChannel(in: store.environment.directory) { Signals.wake() } : nil
    // One line each above the prompt (LISTEN/NOTIFY), to continue with 'continue --elsewhere
    // N' (``nextCommand()``). Not for one command from the shell, which would only pay for the
    // connection.
    listensForHandoffsWhenWaiting = oneCommand == nil
  }

  /// Runs the loop until the input ends, `quit`, or a signal; then lets the scenes go.
  ///
  /// - Returns: The exit status: 128 + the signal that ended it; a failure when a command of
  ///   a script or the one command failed.
  func run() -> Int32 {
    defer {
      editor?.restoreTerminal()
      channel?.close()
      handoffs?.close()
    }
    for warning in store.markReady() { report.warning(warning) }
    // A person meeting the app for the first time learns where to start.
    if isInteractive && state.scenes.allSatisfy(\.storage.isEmpty) {
      output.line("Type 'help' for commands.")
    }
    while let command = nextCommand() {
      // Pages, tables and pictures fit the window as it is now, resized or not (SIGWINCH).
      store.environment.presentation.fit(
        columns: TerminalLineEditor.columns(of: 1), rows: TerminalLineEditor.rows(of: 1))
      let reads = reader.reads
      let quits = runCommand(command)
      noteRefreshes(atReads: reads)
      if quits { break }
      for warning in store.environment.takeCatalogWarnings() { warn(warning) }
    }
    saveDeferred()
    // Leaving sends every scene to the background phase; each command's changes are already
    // on disk, so there is nothing left to save.
    for note in store.finish(state) + store.environment.closeForExit() {
      report.warning(note)
    }
    if let exitSignal { return 128 + exitSignal }
    guard failed && !isInteractive else { return CatalogMain.ExitStatus.success }
    return CatalogMain.ExitStatus.failure
  }

  /// The next command: what other processes delivered and other machines handed off is shown
  /// first; a line that is blank, a comment, interrupted or wrong is passed over (a wrong one
  /// reported).
  ///
  /// - Returns: The command; nil when the input ended or a signal ends the run.
  private func nextCommand() -> Command? {
    while true {
      // A script's saves wait while its next line is here already and nothing else arrived.
      if !reader.hasBufferedLine || channel?.hasPending == true { saveDeferred() }
      // A scene a failed or declined command claimed is given back.
      store.releaseScenes(notIn: state)
      if let channel {
        CatalogMain.applyDeliveries(from: channel, to: &state, store: store, report: report)
        noteRefreshes(atReads: reader.reads)
        // A read of a delivered command that failed is said, and the next command asks again.
        for warning in store.environment.takeCatalogWarnings() { warn(warning) }
      }
      let handedOff = handoffs?.take() ?? []
      if !handedOff.isEmpty { saveDeferred() }
      for handoff in handedOff {
        let title = handoff.activity.title ?? handoff.activity.activityType
        output.line(
          "Handed off from machine '\(handoff.machine.escapingControlCharacters)': '\(title.escapingControlCharacters)'; type 'activities --elsewhere' to continue it here."
        )
      }
      // Handoffs are listened for once the loop would wait for its next line: a script whose
      // lines are all here ends before a handoff could be announced, and would only pay for a
      // second connection to the server. What is published before is listed, not announced.
      if listensForHandoffsWhenWaiting && (editor != nil || reader.wouldWait) {
        listensForHandoffsWhenWaiting = false
        handoffs = store.environment.database?.handoff?.listenForHandoffs(
          for: LiveEnvironment.handoffParty, onArrival: { Signals.wake() })
      }
      let result = readLine()
      if let signal = Signals.take() {
        if signal == SIGINT && isInteractive {
          if editor == nil { output.write("\n") }
          continue
        }
        exitSignal = signal
        return nil
      }
      switch result {
      case .end:
        if isInteractive && editor == nil { output.write("\n") }
        return nil
      case .interrupted:
        continue
      case .invalid(let error):
        saveDeferred(failing: error)
      case .line(let line):
        do {
          if let command = try CommandParser.parse(line) {
            // A script's line read before the catalog was last read afresh was sent before,
            // and so was anything it follows: it runs on that read. A line the REPL waited
            // for, or a person's, sees what other processes saved.
            store.environment.catalog.servesNextRefresh =
              editor == nil && reader.reads == lastRead.reads
            return command
          }
        } catch {
          saveDeferred(failing: error)
        }
      }
    }
  }

  /// Notes whether the catalog was read afresh since the last call: at `reads`, the input the
  /// reader had then. A refresh not asked for is not served later.
  private func noteRefreshes(atReads reads: Int) {
    let catalog = store.environment.catalog
    catalog.servesNextRefresh = false
    if catalog.refreshes != lastRead.refreshes { lastRead = (reads, catalog.refreshes) }
  }

  /// A line from the editor, with the prompt and completion, or from the input.
  private func readLine() -> LineReader.Result {
    guard let editor else {
      if isInteractive { output.write(Describe.prompt(for: state)) }
      return reader.next()
    }
    if let reason = historyFailure.reason, !historyFailure.isReported {
      historyFailure.isReported = true
      report.warning(
        "cannot save the line history (\(reason)); the lines typed now are kept for this session only"
      )
    }
    let current = state
    let store = self.store
    return editor.readLine(
      prompt: Describe.prompt(for: current, colors: presentation.colorsOutput),
      plainPrompt: Describe.prompt(for: current),
      complete: {
        Completion.complete(
          $0, cursor: $1, state: current,
          otherScenes: store.environment.otherScenes(in: current.catalog).map(\.name.rawValue))
      },
      redrawn: { [pictureShown] in
        guard let product = pictureShown else { return nil }
        store.environment.presentation.fit(
          columns: TerminalLineEditor.columns(of: 1), rows: TerminalLineEditor.rows(of: 1))
        return Renderer(environment: store.environment).detail(product, tab: .photo)
      })
  }

  /// Runs a command, asking a person at a terminal before a draft is discarded.
  ///
  /// - Returns: Whether the run ends (`quit`).
  private func runCommand(_ command: Command) -> Bool {
    pictureShown = nil
    // A person at a terminal is asked before a product goes, as before a draft is discarded;
    // a script is not (it asked for it).
    if isInteractive, case .delete(let reference) = command,
      let product = try? store.environment.product(matching: reference, in: state.catalog)
    {
      let name = product.name.escapingControlCharacters
      guard confirms("delete '\(name)' and its saved activities? [y/N] ") else {
        output.line("Kept '\(name)'.")
        return false
      }
    }
    do {
      return try perform(command)
    } catch CatalogCoreError.unsavedDraft(let scene, let draft) where isInteractive {
      // A person at a terminal is asked; a script is refused (it must say --discard).
      guard confirms("discard the draft of '\(draft.escapingControlCharacters)'? [y/N] ") else {
        output.line("Kept scene '\(scene)' and its draft.")
        return false
      }
      store.releaseScenes(notIn: state)
      do {
        return try perform(.closeScene(scene, discard: true))
      } catch {
        report.error(error.localizedDescription)
        failed = true
      }
    } catch {
      // The commands before it are saved before the error is shown.
      saveDeferred(failing: error)
    }
    return false
  }

  /// Saves what commands put off and shows what they printed, then the error of the command
  /// that failed after them, if one did. When the save fails, one line says so instead (with
  /// that error), and the state goes back to what is on disk.
  ///
  /// - Parameter commandError: The error of the command that failed after them, if one did.
  /// - Returns: Whether what was put off, if anything, is saved.
  @discardableResult
  private func saveDeferred(failing commandError: (any Error)? = nil) -> Bool {
    if commandError != nil { failed = true }
    do {
      let notes = try store.saveDeferred()
      withheld += notes.map { (true, $0) }
    } catch {
      withheld.removeAll()
      failed = true
      let reason = error.localizedDescription
      guard let (saved, commands) = store.dropDeferredSave() else {
        report.error(reason)
        return false
      }
      state = saved
      func notSaved(_ count: Int, _ which: String) -> String {
        count == 1
          ? "the \(which) command was not saved (its output is not shown)"
          : "the \(which) \(count) commands were not saved (their output is not shown)"
      }
      if let commandError, commandError.localizedDescription != reason {
        report.error(
          "\(commandError.localizedDescription); also \(reason): \(notSaved(commands, "earlier"))")
      } else {
        // A command whose own save failed is one more not saved.
        report.error("\(reason); \(notSaved(commands + (commandError == nil ? 0 : 1), "last"))")
      }
      return false
    }
    for (isWarning, text) in withheld {
      if isWarning { report.warning(text) } else { output.write(text) }
    }
    withheld.removeAll()
    if let commandError { report.error(commandError.localizedDescription) }
    return true
  }

  /// Prints output or a warning, or keeps it for when the commands whose saves were put off
  /// are saved.
  private func show(_ text: String, isWarning: Bool = false) {
    guard !store.hasDeferredSave else { return withheld.append((isWarning, text)) }
    saveDeferred()
    if isWarning { report.warning(text) } else { output.write(text) }
  }

  /// Shows a warning, or keeps it as ``show(_:isWarning:)`` keeps output.
  private func warn(_ text: String) {
    show(text, isWarning: true)
  }

  /// Asks a yes-or-no question; anything but `y` or `yes` is no.
  private func confirms(_ question: String) -> Bool {
    let answer: LineReader.Result
    if let editor {
      answer = editor.readLine(
        prompt: question, plainPrompt: question,
        complete: { _, cursor in LineCompletion(start: cursor, candidates: []) })
    } else {
      output.write(question)
      answer = reader.next()
    }
    guard case .line(let line) = answer else { return false }
    return ["y", "yes"].contains(line.trimmed.lowercased())
  }

  /// Performs a command and prints its output.
  ///
  /// - Returns: Whether it quits.
  /// - Throws: What applying or saving it throws; nothing was saved.
  private func perform(_ command: Command) throws -> Bool {
    // What reads or changes the activity history (search, `activities`, `forget`, a deletion)
    // sees the activities of the commands before it there.
    switch command {
    case .activity, .delete: saveDeferred()
    default: break
    }
    // A script whose next line is here already may save this command with the next ones.
    store.mayDeferNextSave = !isInteractive && editor == nil && reader.hasBufferedLine
    defer { store.mayDeferNextSave = false }
    let result = try store.perform(command, on: &state, warn: warn)
    if let continuation = result.continuation {
      // Output that streams is not held back: what was put off is saved first.
      guard saveDeferred() else { return result.quits }
      if !result.output.isEmpty { output.write(result.output) }
      do {
        try continuation.produce { output.write($0) }
      } catch {
        // The parts so far are out and the command's change is saved; what could not be read
        // is an error, not a short answer.
        output.write("\n")
        report.error(
          "the output stopped part way: the catalog cannot be read (\(error.localizedDescription))"
        )
        failed = true
        return result.quits
      }
      output.write("\n")
    } else {
      // A command that says nothing (`quit`) prints no empty line.
      show(result.output.isEmpty ? "" : result.output + "\n")
    }
    for note in result.warnings { warn(note) }
    pictureShown = Self.picture(shownBy: state, environment: store.environment)
    return result.quits
  }

  /// The product whose picture the state's active scene shows, when pictures are drawn.
  private static func picture(shownBy state: AppState, environment: LiveEnvironment) -> Product? {
    let scene = state.activeScene
    guard scene.selectedTab == .photo, !scene.isEditing,
      let identifier = scene.path.topProduct, let product = state.catalog[identifier],
      environment.picture(of: product) != nil
    else { return nil }
    return product
  }
}
