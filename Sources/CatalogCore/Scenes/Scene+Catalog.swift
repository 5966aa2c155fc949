import CatalogModel
import Foundation
import StateRestoration
import SystemSupport

extension Scene {
  /// The navigation path, read from and written to `navigationState`; writing it also mirrors
  /// the product on top into `ContentView.selectedProduct`.
  package var path: ScenePath {
    get { storage[SceneKeys.navigationState].map { ScenePath.decoding($0).path } ?? ScenePath() }
    set {
      storage[SceneKeys.navigationState] =
        newValue.routes.isEmpty ? nil : newValue.codableRepresentation
      storage[SceneKeys.selectedProduct] = newValue.topProduct?.canonicalText
    }
  }

  /// The detail tab.
  package var selectedTab: Tabs {
    get { storage[SceneKeys.selectedTab] }
    set { storage[SceneKeys.selectedTab] = newValue }
  }

  /// Whether the editor is presented.
  package var isEditing: Bool {
    get { storage[SceneKeys.showEditView] }
    set { storage[SceneKeys.showEditView] = newValue }
  }

  /// The editor's draft.
  package var draft: ProductEdit {
    get {
      ProductEdit(
        name: storage[SceneKeys.editTitle], year: storage[SceneKeys.editYear],
        price: storage[SceneKeys.editPrice], image: storage[SceneKeys.editImage],
        keywords: storage[SceneKeys.editKeywords])
    }
    set {
      storage[SceneKeys.editTitle] = newValue.name
      storage[SceneKeys.editYear] = newValue.year
      storage[SceneKeys.editPrice] = newValue.price
      storage[SceneKeys.editImage] = newValue.image
      storage[SceneKeys.editKeywords] = newValue.keywords
    }
  }

  /// Whether the editor shows the product's saved values; false while a draft is in progress.
  package var useSavedValues: Bool {
    get { storage[SceneKeys.useSavedValues] }
    set { storage[SceneKeys.useSavedValues] = newValue }
  }

  /// The product `add` is creating, until it is saved or discarded.
  package var newProduct: Product? {
    get { storage[SceneKeys.newProduct] }
    set { storage[SceneKeys.newProduct] = newValue }
  }

  /// A product on this scene's path: from the catalog, or the one `add` is creating.
  ///
  /// - Parameters:
  ///   - identifier: The product's identifier.
  ///   - catalog: The catalog.
  /// - Returns: The product, or nil when neither has it.
  package func product(_ identifier: UUID, in catalog: Catalog) -> Product? {
    if let product = catalog[identifier] { return product }
    guard let created = newProduct, created.identifier == identifier else { return nil }
    return created
  }

  /// Presents the editor: the first time, the draft starts from the product's saved values; a
  /// draft in progress is kept, as Apple's `EditView` does with `useSavedValues`.
  package mutating func presentEditor(for product: Product) {
    if useSavedValues {
      draft = ProductEdit(product: product)
      storage[SceneKeys.editBase] = ProductFields(product)
      useSavedValues = false
    }
    isEditing = true
  }

  /// The edit the draft makes to a product: its validated values and what the edit began from.
  ///
  /// - Parameters:
  ///   - product: The product being edited, as saved now.
  ///   - force: Whether the draft wins over another process's change to the same field.
  /// - Returns: The change to save.
  /// - Throws: A `CatalogError` naming the first bad field of the draft.
  package func change(to product: Product, force: Bool) throws -> ProductChange {
    let edited = try draft.applied(to: product)
    return ProductChange(
      identifier: product.identifier, base: storage[SceneKeys.editBase],
      edited: ProductFields(edited), overridesConflicts: force)
  }

  /// Moves the edit's base to the product's saved values in every field where the draft holds
  /// them already. A `done` killed after the catalog was saved and before its scene file was
  /// replaced leaves the editor open on a draft the catalog already holds: that save was this
  /// editor's own, not another process's change to conflict with.
  ///
  /// - Parameter product: The product being edited, as saved now.
  package mutating func agree(withSaved product: Product) {
    guard isEditing, var base = storage[SceneKeys.editBase],
      let edited = try? draft.applied(to: product)
    else { return }
    let (draft, saved) = (ProductFields(edited), ProductFields(product))
    if draft.name == saved.name { base.name = saved.name }
    if draft.year == saved.year { base.year = saved.year }
    if draft.price == saved.price { base.price = saved.price }
    if self.draft.image != nil, draft.imageName == saved.imageName {
      base.imageName = saved.imageName
    }
    if self.draft.keywords != nil, draft.keywords == saved.keywords {
      base.keywords = saved.keywords
    }
    if base != storage[SceneKeys.editBase] { storage[SceneKeys.editBase] = base }
  }

  /// The name in the draft when the editor holds changes not saved: a new product not yet
  /// added, or a draft that differs from the product as saved (or cannot be read as one).
  ///
  /// - Parameter catalog: The catalog, for the product being edited.
  /// - Returns: The draft's name, or nil when closing loses nothing.
  package func unsavedDraftName(in catalog: Catalog) -> String? {
    guard isEditing else { return nil }
    let name = draft.name.isEmpty ? "an unnamed product" : draft.name
    if newProduct != nil { return name }
    guard let top = path.topProduct, let product = product(top, in: catalog) else { return nil }
    guard let edited = try? draft.applied(to: product) else { return name }
    return ProductFields(edited) == ProductFields(product) ? nil : name
  }

  /// Closes the editor and forgets the draft, as `done` and `cancel` do.
  package mutating func closeEditor() {
    isEditing = false
    useSavedValues = true
    for key in [
      SceneKeys.editTitle.name, SceneKeys.editYear.name, SceneKeys.editPrice.name,
      SceneKeys.editImage.name, SceneKeys.editKeywords.name, SceneKeys.editBase.name,
      SceneKeys.newProduct.name,
    ] {
      storage.removeValue(forKey: key)
    }
  }
}
