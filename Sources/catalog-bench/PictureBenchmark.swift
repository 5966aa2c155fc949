import CImageCodecs
import Foundation
import Imaging

/// `catalog-bench pictures [--runs N]`: decoding and drawing a 4,000 × 3,000 JPEG and PNG
/// (`ImageDecoder` through libjpeg-turbo and libpng, then the half-block renderer at 40
/// columns, in process), beside a decoder of the system run on the same file as a whole
/// process: `djpeg` and `pngtopnm` where they are installed, ImageMagick's `convert` (to PPM,
/// thrown away) otherwise.
func pictureBenchmark() throws {
  let runs = option("--runs", default: 7)
  let root = temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: root) }
  let (width, height) = (4000, 3000)
  // A photograph's worth of detail: smooth colour with some grain.
  var rgb = [UInt8](repeating: 0, count: width * height * 3)
  var state: UInt32 = 7
  for y in 0..<height {
    for x in 0..<width {
      state = state &* 1_664_525 &+ 1_013_904_223
      let grain = Int(state >> 28)
      let offset = (y * width + x) * 3
      rgb[offset] = UInt8(clamping: x * 255 / width + grain)
      rgb[offset + 1] = UInt8(clamping: y * 255 / height + grain)
      rgb[offset + 2] = UInt8(clamping: (x + y) * 255 / (width + height) + grain)
    }
  }
  var message = [CChar](repeating: 0, count: 256)
  var output: UnsafeMutablePointer<UInt8>?
  var size = 0
  guard
    codec_jpeg_encode(rgb, Int32(width), Int32(height), 3, 0, 90, 0, &output, &size, &message) == 0
  else { throw CatalogBenchError("cannot encode the JPEG") }
  let jpegPath = root + "/photo.jpg"
  try Data(UnsafeBufferPointer(start: output, count: size)).write(
    to: URL(fileURLWithPath: jpegPath))
  codec_free(output)
  guard
    codec_png_encode(
      rgb, Int32(width), Int32(height), 2, 8, 0, nil, 0, nil, 0, &output, &size, &message) == 0
  else { throw CatalogBenchError("cannot encode the PNG") }
  let pngPath = root + "/photo.png"
  try Data(UnsafeBufferPointer(start: output, count: size)).write(to: URL(fileURLWithPath: pngPath))
  codec_free(output)

  func tool(_ names: [String]) -> URL? {
    for directory in ["/usr/bin", "/usr/local/bin", "/bin"] {
      for name in names where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
        return URL(fileURLWithPath: "\(directory)/\(name)")
      }
    }
    return nil
  }
  let convert = tool(["convert"])
  let clock = ContinuousClock()
  var report: [String] = []
  for (name, path, native) in [("jpeg", jpegPath, "djpeg"), ("png", pngPath, "pngtopnm")] {
    var decode: [Double] = []
    var render: [Double] = []
    var drawn: [Double] = []
    for _ in 0..<runs {
      // As the photo tab does: decoded no larger than 40 half-block columns need, then drawn.
      let started = clock.now
      let small = try ImageDecoder().decode(contentsOf: path, minimumSide: 320)
      withExtendedLifetime(HalfBlockRenderer(depth: .trueColor, maximumColumns: 40).render(small)) {
      }
      drawn.append(milliseconds(clock.now - started))
      var start = clock.now
      let image = try ImageDecoder().decode(contentsOf: path)
      decode.append(milliseconds(clock.now - start))
      start = clock.now
      let lines = HalfBlockRenderer(depth: .trueColor, maximumColumns: 40).render(image)
      render.append(milliseconds(clock.now - start))
      withExtendedLifetime(lines) {}
    }
    var baseline: [Double] = []
    var baselineName = "none"
    if let program = tool([native]) {
      baselineName = native
      for _ in 0..<runs { baseline.append(try measure(program, [path]).milliseconds) }
    } else if let convert {
      // Where ImageMagick is only a stand-in that cannot read the file, there is no baseline.
      baselineName = "convert"
      for _ in 0..<runs {
        guard let run = try? measure(convert, [path, "ppm:/dev/null"]) else {
          (baseline, baselineName) = ([], "none")
          break
        }
        baseline.append(run.milliseconds)
      }
    }
    report.append(
      String(
        format:
          "\"%@\": {\"bytes\": %d, \"decode_p50_ms\": %.1f, \"render_p50_ms\": %.1f, \"photo_tab_p50_ms\": %.1f, \"baseline\": \"%@\", \"baseline_p50_ms\": %.1f}",
        name, (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0,
        median(decode), median(render), median(drawn), baselineName,
        baseline.isEmpty ? 0 : median(baseline)))
  }
  print(
    "{\"benchmark\": \"pictures\", \"width\": \(width), \"height\": \(height), \"runs\": \(runs), "
      + report.joined(separator: ", ") + "}")
}
