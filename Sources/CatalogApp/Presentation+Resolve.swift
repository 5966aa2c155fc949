import CatalogCore
import Imaging

extension Presentation {
  /// Decides from `--color`, the environment and the terminals.
  ///
  /// `auto` colours a stream only when it is a terminal, `NO_COLOR` is unset or empty and
  /// `TERM` is not `dumb`. With `--pictures auto`, pictures are drawn only on a terminal with
  /// colour on: with the kitty graphics protocol in kitty (`TERM=xterm-kitty` or
  /// `KITTY_WINDOW_ID`), with sixels where the terminal lists them among its device
  /// attributes, else with half blocks, in 24-bit colour when `COLORTERM` is `truecolor` or
  /// `24bit` and in 256 colours otherwise; another `--pictures` is followed as asked.
  ///
  /// - Parameters:
  ///   - mode: `--color`.
  ///   - pictures: `--pictures`.
  ///   - environment: The process environment.
  ///   - outputIsTerminal: Whether standard output is a terminal.
  ///   - errorsIsTerminal: Whether standard error is a terminal.
  ///   - columns: The terminal's width.
  ///   - rows: The terminal's height, when output is a terminal.
  ///   - askTerminal: Asks the terminal its device attributes (`TerminalQuery`), only when
  ///     it matters.
  /// - Returns: The presentation.
  package static func resolve(
    _ mode: CommandLineOptions.ColorMode, pictures: CommandLineOptions.PictureMode = .auto,
    environment: [String: String], outputIsTerminal: Bool,
    errorsIsTerminal: Bool, columns: Int, rows: Int? = nil,
    askTerminal: () -> [Int]? = { nil }
  ) -> Presentation {
    let allowed =
      (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    func colors(_ isTerminal: Bool) -> Bool {
      switch mode {
      case .always: true
      case .never: false
      case .auto: isTerminal && allowed
      }
    }
    var presentation = Presentation()
    presentation.colorsOutput = colors(outputIsTerminal)
    presentation.colorsErrors = colors(errorsIsTerminal)
    presentation.followsTerminal = outputIsTerminal
    presentation.fit(columns: columns, rows: rows)
    let colorTerm = environment["COLORTERM"]?.lowercased() ?? ""
    let depth: HalfBlockRenderer.ColorDepth =
      colorTerm == "truecolor" || colorTerm == "24bit" ? .trueColor : .palette256
    switch pictures {
    case .auto:
      // On a terminal with colour only: a script gets none.
      guard outputIsTerminal && presentation.colorsOutput else { break }
      presentation.pictureDepth = depth
      let isKitty =
        environment["TERM"] == "xterm-kitty" || !(environment["KITTY_WINDOW_ID"] ?? "").isEmpty
      // A terminal that lists sixel graphics (attribute 4) among its device attributes.
      presentation.pictureKind =
        isKitty ? .kitty : askTerminal()?.dropFirst().contains(4) == true ? .sixel : .blocks
    case .blocks: presentation.pictureDepth = depth
    case .kitty:
      presentation.pictureDepth = depth
      presentation.pictureKind = .kitty
    case .sixel:
      presentation.pictureDepth = depth
      presentation.pictureKind = .sixel
    case .none: break
    }
    return presentation
  }
}
