import CatalogModel
import Foundation
import LineEditing
import StateRestoration
import TestSupport
import Testing

@testable import CatalogApp
@testable import CatalogCore

@Suite struct PresentationTests {
  @Test(arguments: [
    (CommandLineOptions.ColorMode.auto, [String: String](), true, true),
    (.auto, ["NO_COLOR": "1"], true, false),
    (.auto, ["NO_COLOR": ""], true, true),
    (.auto, ["TERM": "dumb"], true, false),
    (.auto, [:], false, false),
    (.always, ["NO_COLOR": "1"], false, true),
    (.never, [:], true, false),
  ])
  func decidesColour(
    mode: CommandLineOptions.ColorMode, environment: [String: String], terminal: Bool, colors: Bool
  ) {
    let presentation = Presentation.resolve(
      mode, environment: environment, outputIsTerminal: terminal, errorsIsTerminal: terminal,
      columns: 100)
    #expect(presentation.colorsOutput == colors)
    #expect((presentation.pictureDepth != nil) == (colors && terminal))
  }

  @Test func picksTheColourDepthAndWidth() {
    let true24 = Presentation.resolve(
      .auto, environment: ["COLORTERM": "truecolor"], outputIsTerminal: true,
      errorsIsTerminal: true, columns: 30)
    // The picture and its indent fit the 30 columns.
    #expect(true24.pictureDepth == .trueColor && true24.pictureColumns == 28)
    let palette = Presentation.resolve(
      .auto, environment: [:], outputIsTerminal: true, errorsIsTerminal: true, columns: 200)
    #expect(palette.pictureDepth == .palette256 && palette.pictureColumns == 40)
  }

  /// `--pictures`: kitty graphics in kitty, none in a script unless asked for, and what is
  /// asked for otherwise.
  @Test(arguments: [
    (
      CommandLineOptions.PictureMode.auto, ["TERM": "xterm-kitty"], true,
      Presentation.PictureKind?.some(.kitty)
    ),
    (.auto, ["KITTY_WINDOW_ID": "3"], true, .kitty),
    (.auto, [:], true, .blocks),
    (.auto, ["TERM": "xterm-kitty"], false, nil),
    (.none, [:], true, nil),
    (.sixel, [:], true, .sixel),
    (.kitty, [:], false, .kitty),
    (.blocks, [:], true, .blocks),
  ])
  func decidesHowPicturesAreDrawn(
    mode: CommandLineOptions.PictureMode, environment: [String: String], terminal: Bool,
    kind: Presentation.PictureKind?
  ) {
    let presentation = Presentation.resolve(
      .auto, pictures: mode, environment: environment, outputIsTerminal: terminal,
      errorsIsTerminal: terminal, columns: 100)
    #expect(presentation.pictureDepth.map { _ in presentation.pictureKind } == kind)
  }
}
