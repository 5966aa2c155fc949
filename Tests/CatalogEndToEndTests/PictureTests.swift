import CImageCodecs
import Foundation
import Imaging
import Testing

/// Products whose pictures are the user's own files, beside the file they were imported from.
@Suite(.serialized) struct PictureTests {
  /// A JPEG file of a smooth picture, encoded through libjpeg-turbo.
  static func jpeg(width: Int, height: Int) throws -> [UInt8] {
    var samples: [UInt8] = []
    for y in 0..<height {
      for x in 0..<width { samples += [UInt8(x * 255 / width), UInt8(y * 255 / height), 90] }
    }
    return try encodeJPEG(
      samples, width: width, height: height, components: 3, progressive: true, orientation: 6)
  }

  /// Samples (RGB, or CMYK with 4 components) encoded through libjpeg-turbo.
  static func encodeJPEG(
    _ samples: [UInt8], width: Int, height: Int, components: Int, progressive: Bool,
    orientation: Int
  ) throws -> [UInt8] {
    var output: UnsafeMutablePointer<UInt8>?
    var size = 0
    var message = [CChar](repeating: 0, count: 256)
    let code = codec_jpeg_encode(
      samples, Int32(width), Int32(height), Int32(components), progressive ? 1 : 0, 90,
      Int32(orientation), &output, &size, &message)
    try #require(code == 0)
    defer { codec_free(output) }
    return Array(UnsafeBufferPointer(start: output, count: size))
  }

  /// libpng and libjpeg are loaded when a picture is first read, not at every start: a session
  /// that selects a product has mapped neither; its photo tab, which reads the PNG's size, loads
  /// libpng and still not libjpeg.
  @Test func theImageLibrariesAreLoadedWhenAPictureIsFirstRead() throws {
    let sandbox = CatalogSandbox()
    let process = sandbox.start()
    defer { process.finishInput() }
    // Read to its end: a file in /proc says it is empty, and a read of its size stops short.
    func mapped() -> String {
      let maps = FileHandle(forReadingAtPath: "/proc/\(process.processIdentifier)/maps")
      defer { try? maps?.close() }
      return String(decoding: (try? maps?.readToEnd()) ?? Data(), as: UTF8.self)
    }
    process.send("select cherries")
    process.readOutput(until: "Keywords")
    #expect(mapped().contains("[stack]"), "the check reads the process's mappings")
    #expect(!mapped().contains("libpng"))
    #expect(!mapped().contains("libjpeg"))
    process.send("tab photo")
    process.readOutput(until: "64×64 pixels")
    #expect(mapped().contains("libpng16"))
    #expect(!mapped().contains("libjpeg"))
  }

  /// `image PATH` is checked as it is typed: a missing file, a directory, a file that is not a
  /// picture are each a warning naming the absolute path (the picture may arrive later), never
  /// a refusal; a PNG cut short says so in the photo tab.
  @Test func anImagePathIsCheckedWhenTypedAndWarnedAbout() throws {
    let sandbox = CatalogSandbox()
    let folder = sandbox.root + "/pics"
    try FileManager.default.createDirectory(
      atPath: folder + "/a-folder", withIntermediateDirectories: true)
    try Data("just text\n".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
    let png = try PNGEncoder.encode(RGBAImage(width: 64, height: 48, fill: (10, 200, 60, 255)))
    try Data(png.prefix(60)).write(to: URL(fileURLWithPath: folder + "/cut.png"))
    for (path, reason) in [
      ("missing.jpg", "No such file or directory"), ("a-folder", "not a regular file"),
      ("notes.txt", "it is not a picture (a PNG or JPEG file)"),
      ("cut.png", "not a valid PNG image"),
    ] {
      let result = try sandbox.run(
        input: "select cherries\nedit\nimage \(folder)/\(path)\ndone\n")
      let warnings = result.errorLines.filter { $0.hasPrefix("warning: the picture") }
      #expect(warnings.count == 1, "\(path): \(result.errors)")
      #expect(warnings.first?.contains("'\(folder)/\(path)'") == true, "\(result.errors)")
      #expect(warnings.first?.contains(reason) == true, "\(path): \(result.errors)")
      #expect(result.output.contains("Saved Cherries."), "\(path): \(result.errors)")
    }
    let tab = try sandbox.run(input: "select cherries\ntab photo\n")
    #expect(tab.output.contains("64×48 pixels, but it cannot be shown"), "\(tab.output)")
  }

  @Test func importedPicturesBesideTheFileAreDrawnAndMissingOnesNoted() throws {
    let sandbox = CatalogSandbox()
    let folder = sandbox.root + "/shop"
    try FileManager.default.createDirectory(
      atPath: folder + "/pictures", withIntermediateDirectories: true)
    let png = try PNGEncoder.encode(RGBAImage(width: 30, height: 20, fill: (200, 30, 60, 255)))
    try Data(png).write(to: URL(fileURLWithPath: folder + "/pictures/plum.png"))
    // Stored on its side, with EXIF orientation 6: shown 24 wide and 40 high.
    try Data(try Self.jpeg(width: 40, height: 24)).write(
      to: URL(fileURLWithPath: folder + "/pictures/fig.jpg"))
    let file = folder + "/more.json"
    try Data(
      """
      [{"name": "Plum", "imageName": "pictures/plum.png", "year": 2020, "price": 1.5},
       {"name": "Fig", "imageName": "pictures/fig.jpg", "year": 2021, "price": 2.5},
       {"name": "Quince", "imageName": "pictures/none.png", "year": 2022, "price": 3}]
      """.utf8
    ).write(to: URL(fileURLWithPath: file))
    let imported = try sandbox.run(["import", file])
    #expect(imported.status == 0, "\(imported.errors)")
    // Without a terminal, the photo tab says what the picture is; a missing one is a note.
    let script = try sandbox.run(
      input: "select plum\ntab photo\nselect fig\nselect quince\n")
    #expect(script.status == 0, "\(script.errors)")
    #expect(script.output.contains("Photo  \(folder)/pictures/plum.png, 30×20 pixels"))
    #expect(script.output.contains("Photo  \(folder)/pictures/fig.jpg, 24×40 pixels"))
    #expect(
      script.output.contains(
        "Photo  \(folder)/pictures/none.png (cannot read '\(folder)/pictures/none.png': No such file or directory)"
      ), "\(script.output)")
    // The paths are kept as given: an export beside the imported file writes them so, one
    // elsewhere (standard output, here not in that folder) writes them absolute; each imports
    // back to the same pictures.
    #expect(
      try sandbox.run(["export"]).output.contains("\"imageName\": \"\(folder)/pictures/fig.jpg\""))
    #expect(try sandbox.run(["export", folder + "/exported.json"]).status == 0)
    let beside = try String(contentsOfFile: folder + "/exported.json", encoding: .utf8)
    #expect(beside.contains("\"imageName\": \"pictures/fig.jpg\""), "\(beside)")
    let other = CatalogSandbox()
    #expect(try other.run(["import", folder + "/exported.json"]).status == 0)
    let again = try other.run(input: "select fig\ntab photo\n")
    #expect(again.output.contains("Photo  \(folder)/pictures/fig.jpg, 24×40 pixels"))
    // Moved with its pictures, the catalog's folder keeps working: nothing stored names the
    // old place.
    let moved = sandbox.root + "/moved"
    #expect(rename(folder, moved) == 0)
    let fresh = CatalogSandbox()
    #expect(try fresh.run(["import", moved + "/exported.json"]).status == 0)
    #expect(
      try fresh.run(input: "select fig\ntab photo\n").output.contains(
        "Photo  \(moved)/pictures/fig.jpg, 24×40 pixels"))
    #expect(rename(moved, folder) == 0)
    // On a terminal with colour, both are drawn.
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, environment: ["COLORTERM": "truecolor"])
    pty.read(until: "Quince")
    pty.type("select plum\r")
    let plum = pty.read(until: "Tabs")
    #expect(plum.contains("▀"), "\(plum)")
    pty.type("select fig\r")
    let fig = pty.read(until: "Tabs")
    #expect(fig.contains("▀"), "\(fig)")
    #expect(pty.quit(process) == 0)
  }

  /// A product photo in CMYK, as print and design work hand them over (YCCK with Adobe's
  /// marker, what Photoshop writes), is drawn on a terminal in its colours: a red one in red.
  @Test func aCMYKPhotoIsDrawnInItsColours() throws {
    let sandbox = CatalogSandbox()
    // Adobe's inverted samples: no cyan ink (255), full magenta and yellow (0), no black (255).
    let samples = [UInt8]((0..<(32 * 16)).flatMap { _ in [255, 0, 0, 255] as [UInt8] })
    let jpeg = Data(
      try Self.encodeJPEG(
        samples, width: 32, height: 16, components: 4, progressive: false, orientation: 0))
    let path = sandbox.root + "/red.jpg"
    try jpeg.write(to: URL(fileURLWithPath: path))
    let file = try sandbox.writeFile(
      "red.json", #"[{"name": "Red Card", "imageName": "red.jpg", "year": 2020, "price": 1}]"#)
    #expect(try sandbox.run(["import", file]).status == 0)
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, environment: ["COLORTERM": "truecolor"])
    pty.read(until: "›")
    pty.type("select red card\r")
    pty.read(until: "Tabs")
    pty.type("tab photo\r")
    let shown = pty.read(until: "Tabs")
    #expect(shown.contains("▀"), "\(shown)")
    #expect(!shown.contains("not shown"), "\(shown)")
    // Red, as the ink stands for (a level or two off for JPEG's rounding at most).
    let colours = shown.matches(of: /[34]8;2;(\d+);(\d+);(\d+)m/).map {
      (Int($0.1) ?? 0, Int($0.2) ?? 0, Int($0.3) ?? 0)
    }
    #expect(!colours.isEmpty, "\(shown)")
    #expect(colours.allSatisfy { $0.0 >= 250 && $0.1 <= 5 && $0.2 <= 5 }, "\(colours)")
    #expect(pty.quit(process) == 0)
  }

  /// A terminal that answers the device-attributes query with sixel graphics (attribute 4)
  /// gets sixels; `--pictures kitty` gets the kitty graphics protocol.
  @Test func sixelsWhereTheTerminalSaysSoAndKittyWhenAsked() throws {
    let sandbox = CatalogSandbox()
    _ = try sandbox.run(input: "select cherries\ntab photo\n")
    let pty = try PseudoTerminal()
    let process = try pty.start(sandbox, environment: ["COLORTERM": "truecolor"])
    pty.read(until: "\u{1B}[c")
    pty.type("\u{1B}[?62;4;22c")
    pty.read(until: "[photo]")
    pty.type("tab photo\r")
    let shown = pty.read(until: "Tabs")
    #expect(shown.contains("\u{1B}Pq"), "\(shown.debugDescription)")
    #expect(pty.quit(process) == 0)
    let kittyTerminal = try PseudoTerminal()
    let kitty = try kittyTerminal.start(sandbox, arguments: ["--pictures", "kitty"])
    kittyTerminal.read(until: "[photo]")
    kittyTerminal.type("tab photo\r")
    let drawn = kittyTerminal.read(until: "Tabs")
    #expect(drawn.contains("\u{1B}_Ga=T,f=100"), "\(drawn.debugDescription)")
    #expect(kittyTerminal.quit(kitty) == 0)
  }
}
