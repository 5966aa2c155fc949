import CatalogModel
import Foundation
import StateRestoration
import SystemSupport

extension Scene {
  /// Drops from a restored path the products no longer in the catalog, and what cannot be
  /// decoded, keeping the longest valid prefix; closes an editor left without its product.
  ///
  /// - Parameter catalog: The catalog.
  /// - Returns: A note on what was dropped, or nil when the scene was intact.
  package mutating func validate(against catalog: Catalog) -> String? {
    var notes: [String] = []
    let (decoded, problem) = savedRoutes
    var routes = decoded
    if let problem { notes.append(problem + "; kept the part before it") }
    let decodedWhole = storage[SceneKeys.navigationState] != nil && problem == nil
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
      && storage[SceneKeys.selectedProduct] == restored.topProduct?.canonicalText)
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

  /// The products of the saved path, as ``validate(against:)`` checks them: what a launch
  /// may read from the catalog ahead of restoring the scene.
  package var savedProducts: [UUID] {
    savedRoutes.routes.compactMap { route in
      guard case .product(let identifier) = route else { return nil }
      return identifier
    }
  }

  /// The saved path's routes, as far as they can be decoded, and why not further.
  private var savedRoutes: (routes: [Route], problem: String?) {
    if let data = storage[SceneKeys.navigationState] {
      let decoded = ScenePath.decoding(data)
      return (decoded.path.routes, decoded.problem)
    }
    if let selected = storage[SceneKeys.selectedProduct],
      let identifier = UUID(canonical: selected)
    {
      return ([.product(identifier)], nil)
    }
    return ([], nil)
  }
}
