import CatalogModel
import Foundation
import StateRestoration

extension Scene {
  /// Drops from a restored path the products no longer in the catalog, and what cannot be
  /// decoded, keeping the longest valid prefix; closes an editor left without its product.
  ///
  /// - Parameter catalog: The catalog.
  /// - Returns: A note on what was dropped, or nil when the scene was intact.
  package mutating func validate(against catalog: Catalog) -> String? {
    var notes: [String] = []
    var routes: [Route] = []
    var decodedWhole = false
    if let data = storage[SceneKeys.navigationState] {
      let decoded = ScenePath.decoding(data)
      routes = decoded.path.routes
      if let problem = decoded.problem { notes.append(problem + "; kept the part before it") }
      decodedWhole = decoded.problem == nil
    } else if let selected = storage[SceneKeys.selectedProduct],
      let identifier = UUID(uuidString: selected)
    {
      routes = [.product(identifier)]
    }
    if let missing = routes.firstIndex(where: { route in
      switch route {
      case .product(let identifier): product(identifier, in: catalog) == nil
      case .year: false
      }
    }) {
      let dropped = routes.count - missing
      notes.append(
        "dropped \(dropped) element\(dropped == 1 ? "" : "s") of the saved path: a product is no longer in the catalog"
      )
      routes = Array(routes[..<missing])
    }
    let restored = ScenePath(routes)
    // Written back unless it was read whole, nothing was dropped and `selectedProduct` mirrors
    // its top: the stored bytes may hold an undecodable tail. (Encoding it again at every
    // launch cost more than reading it.)
    if !(decodedWhole && notes.isEmpty
      && storage[SceneKeys.selectedProduct] == restored.topProduct?.uuidString)
    {
      path = restored
    }
    if isEditing && restored.topProduct == nil {
      closeEditor()
      notes.append("closed the editor, which had no product")
    } else if let top = restored.topProduct, let saved = product(top, in: catalog) {
      agree(withSaved: saved)
    }
    return notes.isEmpty ? nil : notes.joined(separator: "; ")
  }
}
