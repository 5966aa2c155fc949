import ActivityIndex
import CatalogCore
import CatalogEngines
import CatalogModel
import CatalogResources
import Foundation
import LineEditing
import PostgreSQL
import StateRestoration
import SystemSupport

/// The program: parses the command line, then runs the REPL or prints the state. The one place
/// that turns errors into `error: …` lines and exit statuses.
package enum CatalogMain {
  /// The program's version.
  package static let version = "0.1.0"

  /// Exit statuses: success, failure, usage error.
  package enum ExitStatus {
    package static let success: Int32 = 0
    package static let failure: Int32 = 1
    package static let usage: Int32 = 64
    /// Stopped by Ctrl-C: 128 + SIGINT, as a shell reports it.
    package static let interrupted: Int32 = 130
  }

  /// Runs the program.
  ///
  /// - Parameters:
  ///   - arguments: The arguments after the program name.
  ///   - environment: The process environment.
  /// - Returns: The exit status.
  package static func run(arguments: [String], environment: [String: String]) -> Int32 {
    let output = TextOutput.standardOutput
    let options: CommandLineOptions
    do {
      options = try CommandLineOptions(arguments)
    } catch let error as CommandLineError {
      // Colour is not known before the options are: the message goes out plain.
      Reporter(colors: false).error("\(error.message); see 'catalog --help'")
      return ExitStatus.usage
    } catch {
      return ExitStatus.usage
    }
    // What touches no directory is answered before the directories are resolved: without
    // HOME or XDG variables, `--version` and `--help` still answer.
    switch options.action {
    case .help:
      output.line(CommandLineOptions.usage)
      return ExitStatus.success
    case .completionScript(let shell):
      output.write(CompletionScripts.script(for: shell) ?? "")
      return ExitStatus.success
    case .version:
      output.line("catalog \(version)")
      return ExitStatus.success
    default:
      break
    }
    // A command that opens a catalog on a server loads libpq meanwhile, on the other core.
    if options.action.opensCatalog,
      AppPaths.serverURL(options.catalogURL, environment: environment) != nil
    {
      PostgresConnection.loadClientLibraryInBackground()
    }
    // A script (the REPL reading a file or a pipe) gets no colour unless asked for.
    let isScript = options.action == .repl() && isatty(0) != 1
    let presentation = Presentation.resolve(
      options.color, pictures: options.pictures, environment: environment,
      outputIsTerminal: isatty(1) == 1 && !isScript,
      errorsIsTerminal: isatty(2) == 1 && !isScript, columns: TerminalLineEditor.columns(of: 1),
      rows: TerminalLineEditor.rows(of: 1),
      // Only the REPL draws pictures, and only it may read the terminal's answer from stdin.
      askTerminal: { options.action == .repl() ? TerminalQuery.deviceAttributes() : nil })
    let report = Reporter(colors: presentation.colorsErrors)
    if let warning = CommandLineSecrets.warning(catalogURL: options.catalogURL) {
      report.warning(warning)
    }
    do {
      // A background `catalog reindex` this process starts reads the same catalog: the URL
      // goes to it in the environment, never on a command line that `ps` shows.
      if let url = options.catalogURL { setenv("CATALOG_URL", url, 1) }
      let paths = try AppPaths(
        stateDirectory: options.stateDirectory, dataDirectory: options.dataDirectory,
        catalogURL: options.catalogURL, environment: environment)
      switch options.action {
      case .help, .completionScript, .version:
        return ExitStatus.success  // answered above
      case .completions(let word, let line):
        return completions(of: word, in: line, environment: environment)
      case .state(let json):
        let snapshot = try StateSnapshot(paths: paths)
        for warning in snapshot.warnings { report.warning(warning) }
        output.line(
          json
            ? snapshot.json.rendered
            : StateText.render(
              snapshot.state, owners: snapshot.owners, savedAt: snapshot.savedAt))
        return ExitStatus.success
      case .importFile(let file, let options):
        return try importProducts(file, options: options, paths: paths, report: report)
      case .export(let file, let format, let byteOrderMark):
        return try exportProducts(
          file, format: format, byteOrderMark: byteOrderMark, paths: paths, report: report)
      case .reindex:
        return try reindex(paths: paths, report: report)
      case .search(let query, let json, let limit):
        return try search(query, json: json, limit: limit, paths: paths, report: report)
      case .open(let link):
        var launch = LaunchOptions(
          paths: paths, scene: options.scene, isFresh: options.isFresh, isInteractive: false)
        launch.leavesFrontAlone = true
        launch.readsLineHistory = false
        launch.indexBuilder = SearchService.thisExecutable
        return try openLink(link, launch, report: report)
      case .repl(let command):
        var launch = LaunchOptions(
          paths: paths, scene: options.scene, isFresh: options.isFresh,
          isInteractive: command == nil && isatty(0) == 1)
        launch.readsLineHistory = command == nil
        launch.indexBuilder = SearchService.thisExecutable
        return try REPL(
          launch, command: command, presentation: presentation, environment: environment,
          report: report
        ).run()
      }
    } catch {
      report.error(error.localizedDescription)
      return ExitStatus.failure
    }
  }

  /// `catalog search QUERY`: reads the catalog and the activity history, changes nothing.
  private static func search(
    _ query: String, json: Bool, limit: Int, paths: AppPaths, report: Reporter
  ) throws -> Int32 {
    let store = CatalogStore.bundled(paths)
    let loaded = try store.loadForReading()
    for warning in loaded.warnings { report.warning(warning) }
    // Read only when something matches.
    let now = Date()
    func viewed(_ text: String, limit: Int) -> [ActivityHistory.Entry] {
      let directory = StateDirectory(existing: paths.stateDirectory)
      let saved = ActivityHistory(directory: directory)
      do {
        return ActivityHistoryMerge.merged(
          SceneFileActivities(in: directory).read(),
          with: try EarlierActivityFile.entries(
            of: saved, matching: text, limit: limit, at: now, note: report.note),
          history: saved)
      } catch {
        // Without the history, what it forgot is not known: nothing counts as viewed.
        report.warning("\(error.localizedDescription); searching the products alone")
        return []
      }
    }
    let service = SearchService(
      indexPath: store.searchIndexPath, dataDirectory: paths.dataDirectory,
      builder: SearchService.thisExecutable, note: report.note)
    // The JSON is the results alone: their count is for a person reading the table.
    let found = try service.search(loaded.catalog) { search in
      json
        ? SearchResults(try search.results(for: query, viewed: viewed, now: now, limit: limit))
        : try search.counted(for: query, viewed: viewed, now: now, limit: limit)
    }
    let results = found.results
    for row in loaded.catalog.source.takeSkippedRows() {
      report.warning(row)
    }
    if json {
      let array = JSONValue.array(
        results.map { result in
          StateSnapshot.activityJSON(
            result.activity,
            extra: [
              ("score", .double(result.score)), ("product", .string(result.product.name)),
              ("kind", .string(result.isViewed ? "activity" : "item")),
              ("why", .string(result.why)),
            ])
        })
      TextOutput.standardOutput.line(array.rendered)
    } else {
      TextOutput.standardOutput.line(
        Describe.searchResults(
          found, columns: isatty(1) == 1 ? TerminalLineEditor.columns(of: 1) : nil, hint: false))
    }
    return ExitStatus.success
  }

  /// `catalog open URL`: restores the state, delivers the link, saves, and prints the result.
  private static func openLink(_ link: String, _ options: LaunchOptions, report: Reporter) throws
    -> Int32
  {
    let parsed = try DeepLink.parse(link)
    if let linked = parsed.scene, let option = options.scene, linked != option {
      throw CatalogCoreError.linkSceneMismatch(link: linked.rawValue, option: option.rawValue)
    }
    // A running catalog that has the scene open gets the link, as a running app does.
    if let owner = linkReceiver(for: parsed, scene: options.scene, paths: options.paths) {
      if let status = try deliverLink(
        link, scene: parsed.scene ?? options.scene, to: owner, paths: options.paths,
        report: report)
      {
        return status
      }
      report.warning(
        "the catalog process \(owner.place) has the scene open but does not answer on its socket; opening the link here instead"
      )
    }
    var options = options
    options.namedProduct = parsed.namedProduct
    let (store, state, warnings) = try AppStore.launch(options)
    // The link is opened as soon as the launch has read the catalog, as one command is.
    store.environment.catalog.servesNextRefresh = true
    // Where the link goes (a new scene, when every one is open elsewhere) is said, not silent.
    for warning in warnings + store.notices + store.markReady() { report.warning(warning) }
    var next = state
    let result = try store.perform(.open(link), on: &next, warn: report.warning)
    // From a shell there is no `continue`: the REPL's hint would send the user nowhere.
    var output = result.output
    if output.hasSuffix("\n" + Describe.continueHint) {
      output.removeLast(Describe.continueHint.count + 1)
    }
    TextOutput.standardOutput.line(output)
    for note in result.warnings + store.finish(next) + store.environment.closeForExit() {
      report.warning(note)
    }
    return ExitStatus.success
  }
}

/// Writes `error: …` and `warning: …` lines to standard error, in colour when it should be.
package struct Reporter: Sendable {
  /// Whether standard error gets colour.
  package var colors: Bool

  /// Reports an error: one line, `error: ` then what went wrong and what to do.
  ///
  /// Messages quote outside text (a link, a file's contents): what could drive the terminal
  /// or break the line is shown escaped.
  package func error(_ message: String) {
    TextOutput.standardError.line(
      Presentation.paint("error:", "1;31", enabled: colors) + " "
        + message.escapingControlCharacters)
  }

  /// Reports a note, on a terminal only: one line, `note: ` then the message.
  package func note(_ message: String) {
    guard isatty(STDERR_FILENO) == 1 else { return }
    TextOutput.standardError.line(
      Presentation.paint("note:", "1", enabled: colors) + " " + message.escapingControlCharacters)
  }

  /// Reports a warning: one line, `warning: ` then the message, escaped as errors are.
  package func warning(_ message: String) {
    TextOutput.standardError.line(
      Presentation.paint("warning:", "1;33", enabled: colors) + " "
        + message.escapingControlCharacters)
  }
}
