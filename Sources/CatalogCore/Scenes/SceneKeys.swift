import CatalogModel
import Foundation
import StateRestoration

/// The detail view's tabs, stored by raw value as in Apple's sample.
package enum Tabs: String, Sendable, CaseIterable {
  /// The product's facts.
  case detail
  /// The product's picture.
  case photo
}

/// The scene-storage keys of the sample; the first seven are Apple's own.
package enum SceneKeys {
  /// The UUID of the product whose detail is on top of the path.
  package static let selectedProduct = SceneStorageKey<String?>("ContentView.selectedProduct")
  /// The detail tab.
  package static let selectedTab = SceneStorageKey("DetailView.selectedTab", default: Tabs.detail)
  /// Whether the editor is presented.
  package static let showEditView = SceneStorageKey("DetailView.showEditView", default: false)
  /// False while an edit is in progress: the draft keys hold the user's text.
  package static let useSavedValues = SceneStorageKey("EditView.useSavedValues", default: true)
  /// The draft name.
  package static let editTitle = SceneStorageKey("EditView.editTitle", default: "")
  /// The draft year, as typed.
  package static let editYear = SceneStorageKey("EditView.editYear", default: "")
  /// The draft price, as typed.
  package static let editPrice = SceneStorageKey("EditView.editPrice", default: "")
  /// The draft picture, when the draft changes it: a bundled name or an image file's path.
  package static let editImage = SceneStorageKey<String?>("EditView.editImage")
  /// The draft's keywords as typed, separated by commas; nil to keep the product's.
  package static let editKeywords = SceneStorageKey<String?>("EditView.editKeywords")
  /// The product's name, year and price when the edit began, to save only what the draft
  /// changed and to notice another process's change to the same field.
  package static let editBase = SceneStorageKey<ProductFields?>("EditView.editBase")
  /// The product `add` is creating, until `done` inserts it or `cancel` discards it.
  package static let newProduct = SceneStorageKey<Product?>("EditView.newProduct")
  /// The navigation path, in its codable representation.
  package static let navigationState = SceneStorageKey<Data?>("navigationState")
}
