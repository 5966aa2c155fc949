import CatalogModel
import Foundation
import StateRestoration
import SystemSupport

extension Scene {
  /// Drops from a restored path the products no longer in the catalog, and what cannot be
  /// decoded, keeping the longest valid prefix; closes an editor left without its product; and
  /// sets the activity the scene advertises (``advertisedActivity(in:)``) from the products
  /// read for the check, rather than reading the top one again.
  ///
  /// A product whose read failed (``Catalog/failedReads``) is not known to be gone: the scene
  /// is then left as it was, to be checked when the catalog can be read.
  ///
  /// - Parameter catalog: The catalog.
  /// - Returns: A note on what was dropped, or nil when the scene was intact or could not be
  ///   checked.
  package mutating func validate(against catalog: Catalog) -> String? {
    var notes: [String] = []
    let (decoded, problem) = savedRoutes
    var routes = decoded
    if let problem { notes.append(problem + "; kept the part before it") }
    let decodedWhole = storage[SceneKeys.navigationState] != nil && problem == nil
    // Each product of the path as the catalog has it, read once.
    var read: [Product] = []
    let failedBefore = catalog.failedReads
    if let missing = routes.firstIndex(where: { route in
      switch route {
      case .product(let identifier):
        if let saved = catalog[identifier] {
          read.append(saved)
          return false
        }
        // A new product in the editor is on the path before the catalog has it.
        return newProduct?.identifier != identifier
      case .year: return false
      }
    }) {
      guard catalog.failedReads == failedBefore else { return nil }
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
    let top = restored.topProduct.flatMap { identifier in
      read.last { $0.identifier == identifier }
    }
    if isEditing && restored.topProduct == nil {
      closeEditor()
      notes.append("closed the editor, which had no product")
    } else if isEditing, let identifier = restored.topProduct,
      let saved = top ?? product(identifier, in: catalog)
    {
      // Only an editor's draft has anything to agree with.
      agree(withSaved: saved)
    }
    userActivity = top.map(ProductActivity.show)
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
