// Draws the product pictures: `swift run generate-images [RESOURCES_DIR]`.
//
// For each product of RESOURCES_DIR/products.json, writes RESOURCES_DIR/Images/<imageName>.png
// from the drawing in ProductArt.swift. The output is deterministic: the same source always
// writes the same bytes, so the committed pictures can be checked against it.
import CatalogModel
import Foundation
import Imaging
import StateRestoration

let resources = CommandLine.arguments.dropFirst().first ?? "Resources"
do {
  guard let data = try DurableFile.read("\(resources)/products.json", limit: 1 << 20) else {
    throw StateRestorationError.cannotRead(path: "\(resources)/products.json", reason: "missing")
  }
  let products = try CatalogFile.parse(data, path: "\(resources)/products.json").products
  try DurableFile.createDirectory("\(resources)/Images", permissions: 0o755)
  for product in products {
    guard let draw = ProductArt.drawings[product.imageName] else {
      throw StateRestorationError.cannotWrite(
        path: product.imageName, reason: "no drawing for '\(product.imageName)' in ProductArt.swift"
      )
    }
    var canvas = Canvas(
      width: ProductArt.size, height: ProductArt.size,
      background: Color(ProductArt.backgrounds[product.imageName] ?? 0xFFFFFF))
    draw(&canvas)
    let png = try PNGEncoder.encode(canvas.image)
    let path = "\(resources)/Images/\(product.imageName).png"
    try DurableFile.write(Data(png), to: path, permissions: 0o644)
    print("wrote \(path) (\(png.count) bytes)")
  }
} catch {
  FileHandle.standardError.write(Data("error: \(error.localizedDescription)\n".utf8))
  exit(1)
}
