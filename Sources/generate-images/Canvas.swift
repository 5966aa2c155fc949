import Foundation
import Imaging

/// A colour with components from 0 to 1.
struct Color {
  var red: Double
  var green: Double
  var blue: Double
  var alpha = 1.0

  init(_ hex: UInt32, alpha: Double = 1) {
    red = Double((hex >> 16) & 0xFF) / 255
    green = Double((hex >> 8) & 0xFF) / 255
    blue = Double(hex & 0xFF) / 255
    self.alpha = alpha
  }
}

/// A point in image coordinates, from the top left.
struct Point {
  var x: Double
  var y: Double
}

/// A small anti-aliased rasterizer: shapes are tested at 4×4 samples per pixel and blended by
/// coverage, which is plenty for simple, recognisable pictures.
struct Canvas {
  let width: Int
  let height: Int
  private var pixels: [Color]

  init(width: Int, height: Int, background: Color) {
    self.width = width
    self.height = height
    pixels = Array(repeating: background, count: width * height)
  }

  /// Fills the pixels inside a shape, described by a test and a bounding box.
  mutating func fill(
    _ color: Color, bounds: (Double, Double, Double, Double), contains: (Point) -> Bool
  ) {
    let samples = 4
    let minX = max(0, Int(bounds.0.rounded(.down)))
    let minY = max(0, Int(bounds.1.rounded(.down)))
    let maxX = min(width - 1, Int(bounds.2.rounded(.up)))
    let maxY = min(height - 1, Int(bounds.3.rounded(.up)))
    guard minX <= maxX, minY <= maxY else { return }
    for y in minY...maxY {
      for x in minX...maxX {
        var inside = 0
        for sy in 0..<samples {
          for sx in 0..<samples {
            let point = Point(
              x: Double(x) + (Double(sx) + 0.5) / Double(samples),
              y: Double(y) + (Double(sy) + 0.5) / Double(samples))
            if contains(point) { inside += 1 }
          }
        }
        guard inside > 0 else { continue }
        blend(color, coverage: Double(inside) / Double(samples * samples), at: y * width + x)
      }
    }
  }

  /// An ellipse centred at `center`, turned by `angle` degrees.
  mutating func ellipse(
    _ center: Point, _ rx: Double, _ ry: Double, angle: Double = 0, _ color: Color
  ) {
    let radians = angle * .pi / 180
    let (c, s) = (cos(radians), sin(radians))
    let reach = max(rx, ry)
    fill(color, bounds: (center.x - reach, center.y - reach, center.x + reach, center.y + reach)) {
      p in
      let dx = p.x - center.x
      let dy = p.y - center.y
      let u = (dx * c + dy * s) / rx
      let v = (-dx * s + dy * c) / ry
      return u * u + v * v <= 1
    }
  }

  /// A circle.
  mutating func circle(_ center: Point, _ radius: Double, _ color: Color) {
    ellipse(center, radius, radius, color)
  }

  /// A thick line with round ends.
  mutating func line(_ from: Point, _ to: Point, width lineWidth: Double, _ color: Color) {
    let half = lineWidth / 2
    let bounds = (
      min(from.x, to.x) - half, min(from.y, to.y) - half, max(from.x, to.x) + half,
      max(from.y, to.y) + half
    )
    let dx = to.x - from.x
    let dy = to.y - from.y
    let lengthSquared = max(dx * dx + dy * dy, 1e-9)
    fill(color, bounds: bounds) { p in
      let t = min(1, max(0, ((p.x - from.x) * dx + (p.y - from.y) * dy) / lengthSquared))
      let nx = from.x + t * dx - p.x
      let ny = from.y + t * dy - p.y
      return nx * nx + ny * ny <= half * half
    }
  }

  /// A closed polygon, filled by the even-odd rule.
  mutating func polygon(_ points: [Point], _ color: Color) {
    let xs = points.map(\.x)
    let ys = points.map(\.y)
    let bounds = (xs.min() ?? 0, ys.min() ?? 0, xs.max() ?? 0, ys.max() ?? 0)
    fill(color, bounds: bounds) { p in
      var inside = false
      var j = points.count - 1
      for i in points.indices {
        let a = points[i]
        let b = points[j]
        if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
          inside.toggle()
        }
        j = i
      }
      return inside
    }
  }

  private mutating func blend(_ color: Color, coverage: Double, at index: Int) {
    let alpha = color.alpha * coverage
    var base = pixels[index]
    let outAlpha = alpha + base.alpha * (1 - alpha)
    guard outAlpha > 0 else { return }
    base.red = (color.red * alpha + base.red * base.alpha * (1 - alpha)) / outAlpha
    base.green = (color.green * alpha + base.green * base.alpha * (1 - alpha)) / outAlpha
    base.blue = (color.blue * alpha + base.blue * base.alpha * (1 - alpha)) / outAlpha
    base.alpha = outAlpha
    pixels[index] = base
  }

  /// The picture as an 8-bit RGBA image.
  var image: RGBAImage {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(width * height * 4)
    for pixel in pixels {
      for component in [pixel.red, pixel.green, pixel.blue, pixel.alpha] {
        bytes.append(UInt8((min(1, max(0, component)) * 255).rounded()))
      }
    }
    return RGBAImage(width: width, height: height, pixels: bytes)
      ?? RGBAImage(width: width, height: height)
  }
}
