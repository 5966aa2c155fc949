import Foundation

/// One drawing for each product of the bundled catalog, keyed by image name.
enum ProductArt {
  static let size = 64

  static let drawings: [String: @Sendable (inout Canvas) -> Void] = [
    "Ginger": ginger, "Gladiolus": gladiolus, "Orchid": orchid, "Poinsettia": poinsettia,
    "RedRose": { rose(&$0, petal: Color(0xC8102E), shade: Color(0x7A0A1C)) },
    "WhiteRose": { rose(&$0, petal: Color(0xFAF7EE), shade: Color(0xC9C2AE)) },
    "Mango": mango, "Peanuts": peanuts, "Cherries": cherries, "Artichoke": artichoke,
  ]

  static let backgrounds: [String: UInt32] = [
    "Ginger": 0xF3E9D2, "Gladiolus": 0xE8F4EA, "Orchid": 0xEDE7F6, "Poinsettia": 0xE9F2E4,
    "RedRose": 0xFCE8E6, "WhiteRose": 0x9DB4C8, "Mango": 0xFFF4D6, "Peanuts": 0xE3F0F7,
    "Cherries": 0xFFF1F1, "Artichoke": 0xF1F5E6,
  ]

  static let leaf = Color(0x3C8D2F)
  static let darkLeaf = Color(0x2A6322)
  static let stem = Color(0x4F7A28)

  static func p(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }

  static func ginger(_ c: inout Canvas) {
    let skin = Color(0xC9A26B)
    let shade = Color(0xA87F4A)
    c.ellipse(p(30, 38), 18, 9, angle: -10, skin)
    c.ellipse(p(17, 28), 7, 11, angle: -25, skin)
    c.ellipse(p(44, 27), 6, 12, angle: 20, skin)
    c.ellipse(p(49, 43), 8, 6, angle: 30, skin)
    for x in stride(from: 18.0, through: 42, by: 8) {
      c.line(p(x, 33), p(x + 2, 44), width: 1.2, shade)
    }
    c.ellipse(p(17, 18), 3, 2, angle: -25, Color(0xE8C99B))
    c.ellipse(p(45, 16), 3, 2, angle: 20, Color(0xE8C99B))
  }

  static func gladiolus(_ c: inout Canvas) {
    c.line(p(32, 60), p(32, 6), width: 2.5, stem)
    c.polygon([p(30, 60), p(22, 30), p(31, 44)], leaf)
    c.polygon([p(34, 60), p(44, 26), p(33, 44)], darkLeaf)
    let bloom = Color(0xE8467C)
    let heart = Color(0xFFD3E1)
    for (index, y) in stride(from: 12.0, through: 44, by: 8).enumerated() {
      let x = index.isMultiple(of: 2) ? 27.0 : 37.0
      let r = 7.0 - Double(index) * 0.3
      c.circle(p(x, y), r, bloom)
      c.circle(p(x, y), r * 0.35, heart)
    }
    c.ellipse(p(32, 6), 2.5, 4, Color(0x7FB069))
  }

  static func orchid(_ c: inout Canvas) {
    let petal = Color(0xF4E8F8)
    let edge = Color(0xC77DDB)
    c.line(p(32, 62), p(32, 44), width: 2, stem)
    for angle in [0.0, 72, 144, 216, 288] {
      let radians = (angle - 90) * .pi / 180
      let center = p(32 + cos(radians) * 13, 30 + sin(radians) * 13)
      c.ellipse(center, 12, 7, angle: angle - 90, edge)
      c.ellipse(center, 10.5, 5.5, angle: angle - 90, petal)
    }
    c.ellipse(p(32, 36), 6, 8, Color(0x8E2C9A))
    c.circle(p(32, 29), 3.5, Color(0xF2C14E))
  }

  static func poinsettia(_ c: inout Canvas) {
    for angle in stride(from: 20.0, to: 360, by: 72) {
      let radians = angle * .pi / 180
      c.ellipse(p(32 + cos(radians) * 20, 32 + sin(radians) * 20), 11, 5, angle: angle, leaf)
    }
    for angle in stride(from: 0.0, to: 360, by: 45) {
      let radians = angle * .pi / 180
      c.ellipse(
        p(32 + cos(radians) * 13, 32 + sin(radians) * 13), 13, 5, angle: angle, Color(0xD7263D))
    }
    for (dx, dy) in [(0.0, 0.0), (3, 2), (-3, 2), (2, -3), (-2, -3)] {
      c.circle(p(32 + dx, 32 + dy), 2, Color(0xF5D547))
    }
  }

  static func rose(_ c: inout Canvas, petal: Color, shade: Color) {
    c.line(p(32, 62), p(32, 36), width: 2.5, stem)
    c.ellipse(p(24, 50), 7, 3.5, angle: -30, leaf)
    c.ellipse(p(40, 46), 7, 3.5, angle: 30, leaf)
    c.circle(p(32, 26), 17, shade)
    c.circle(p(32, 26), 15.5, petal)
    c.ellipse(p(32, 27), 11, 10, shade)
    c.ellipse(p(32, 26), 10, 9, petal)
    c.ellipse(p(31, 25), 6.5, 6, shade)
    c.ellipse(p(31, 24.5), 5.5, 5, petal)
    c.ellipse(p(32.5, 24), 2.5, 2.5, shade)
  }

  static func mango(_ c: inout Canvas) {
    c.ellipse(p(31, 36), 22, 17, angle: -25, Color(0xE7A33E))
    c.ellipse(p(26, 40), 15, 11, angle: -25, Color(0xF2C14E))
    c.ellipse(p(40, 28), 10, 7, angle: -25, Color(0xE4572E, alpha: 0.75))
    c.line(p(46, 18), p(49, 12), width: 2, Color(0x6B4226))
    c.ellipse(p(54, 13), 7, 3, angle: -15, leaf)
  }

  static func peanuts(_ c: inout Canvas) {
    let shell = Color(0xD9B77E)
    let line = Color(0xB08A52)
    for (x, y, angle) in [(20.0, 22.0, -35.0), (44.0, 44.0, 25.0)] {
      let radians = angle * .pi / 180
      let (dx, dy) = (cos(radians) * 7, sin(radians) * 7)
      c.circle(p(x - dx, y - dy), 9, shell)
      c.circle(p(x + dx, y + dy), 9, shell)
      c.ellipse(p(x, y), 5, 7, angle: angle, shell)
      c.line(p(x - dx - 3, y - dy + 3), p(x - dx + 3, y - dy - 3), width: 1, line)
      c.line(p(x + dx - 3, y + dy + 3), p(x + dx + 3, y + dy - 3), width: 1, line)
    }
  }

  static func cherries(_ c: inout Canvas) {
    let stemColor = Color(0x5B7F2A)
    c.line(p(21, 44), p(34, 8), width: 2, stemColor)
    c.line(p(43, 46), p(34, 8), width: 2, stemColor)
    c.ellipse(p(41, 12), 9, 4, angle: -20, leaf)
    c.circle(p(20, 46), 11, Color(0xB0102A))
    c.circle(p(43, 48), 11, Color(0xC8102E))
    c.circle(p(16, 42), 3, Color(0xFF8A8A, alpha: 0.8))
    c.circle(p(39, 44), 3, Color(0xFF8A8A, alpha: 0.8))
  }

  static func artichoke(_ c: inout Canvas) {
    c.line(p(32, 62), p(32, 50), width: 4, stem)
    let rows: [(y: Double, count: Int, spread: Double, color: UInt32)] = [
      (48, 4, 7, 0x5E8C31), (40, 5, 6.5, 0x6F9E3B), (32, 5, 6, 0x7FAE45), (24, 4, 5.5, 0x8DBB50),
      (16, 3, 5, 0x9CC85C), (10, 1, 4, 0xA9D16A),
    ]
    for row in rows {
      let half = Double(row.count - 1) / 2
      for index in 0..<row.count {
        let x = 32 + (Double(index) - half) * row.spread * 1.6
        c.ellipse(p(x, row.y), row.spread, row.spread * 1.3, Color(0x3F6B22))
        c.ellipse(p(x, row.y - 0.8), row.spread - 1, row.spread * 1.3 - 1.2, Color(row.color))
      }
    }
  }
}
