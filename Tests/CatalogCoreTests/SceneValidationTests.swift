import CatalogModel
import CatalogTestSupport
import Foundation
import StateRestoration
import TestSupport
import Testing

@testable import CatalogCore

@Suite struct SceneValidationTests {
  let cherries = "FA542E3D-4895-44B6-942F-E112101D5160"

  private func scene(navigationState json: String) -> Scene {
    var scene = Scene(name: .main)
    scene.storage[SceneKeys.navigationState] = Data(json.utf8)
    return scene
  }

  /// An intact scene keeps its storage, and advertises its product from the read the check
  /// made (``Scene/advertisedActivity(in:)`` reads it again).
  @Test func anIntactSceneIsLeftAloneAndAdvertisesItsProduct() {
    var scene = scene(navigationState: #"["Foundation.UUID","\"\#(cherries)\""]"#)
    scene.storage[SceneKeys.selectedProduct] = cherries
    let before = scene
    #expect(scene.validate(against: bundledCatalog) == nil)
    #expect(scene.storage == before.storage)
    #expect(scene.userActivity != nil)
    #expect(scene.userActivity == before.advertisedActivity(in: bundledCatalog))
  }

  /// A path read whole is not encoded again at launch: its bytes stay as they were written,
  /// white space included.
  @Test func aPathReadWholeKeepsItsBytes() {
    let written = #"[ "Foundation.UUID", "\"\#(cherries)\"" ]"#
    var scene = scene(navigationState: written)
    scene.storage[SceneKeys.selectedProduct] = cherries
    #expect(scene.validate(against: bundledCatalog) == nil)
    #expect(scene.storage[SceneKeys.navigationState] == Data(written.utf8))
  }

  /// The root is the last pair; an unknown type above it is dropped, and the stored bytes are
  /// rewritten so that the next launch does not warn again.
  @Test func anUndecodableTailIsDroppedAndTheStoredPathRewritten() throws {
    var scene = scene(navigationState: #"["Bogus.Type","1","Foundation.UUID","\"\#(cherries)\""]"#)
    scene.storage[SceneKeys.selectedProduct] = cherries  // as the app writes it beside the path
    let result = scene.validate(against: bundledCatalog)
    let note = try #require(result)
    #expect(note.contains("unknown type 'Bogus.Type'"))
    #expect(scene.path.routes == [.product(try #require(UUID(uuidString: cherries)))])
    let stored = String(
      decoding: try #require(scene.storage[SceneKeys.navigationState]), as: UTF8.self)
    #expect(stored == #"["Foundation.UUID","\"\#(cherries)\""]"#)
    #expect(scene.storage[SceneKeys.selectedProduct] == cherries)
    #expect(scene.validate(against: bundledCatalog) == nil)
  }

  @Test func aProductThatLeftTheCatalogIsDroppedAndItsEditorClosed() throws {
    var scene = scene(navigationState: #"["Foundation.UUID","\"\#(cherries)\""]"#)
    scene.isEditing = true
    scene.useSavedValues = false
    var products = bundledProducts
    products.removeAll { $0.name == "Cherries" }
    let result = scene.validate(against: Catalog(products))
    let note = try #require(result)
    #expect(note.contains("a product is no longer in the catalog"))
    #expect(note.contains("closed the editor"))
    #expect(scene.path.routes.isEmpty)
    #expect(scene.storage.entries["navigationState"] == nil)
    #expect(!scene.isEditing)
  }

  @Test func selectedProductAloneRestoresAOneElementPath() {
    var scene = Scene(name: .main)
    scene.storage[SceneKeys.selectedProduct] = cherries
    _ = scene.validate(against: bundledCatalog)
    #expect(scene.path.topProduct == UUID(uuidString: cherries))
  }

  /// A product whose read failed is not known to be gone: the path, the editor and its draft
  /// stay as saved, with no note, to be checked when the catalog can be read.
  @Test func aProductThatCouldNotBeReadLeavesTheSceneAsSaved() throws {
    var scene = scene(navigationState: #"["Foundation.UUID","\"\#(cherries)\""]"#)
    scene.storage[SceneKeys.selectedProduct] = cherries
    scene.isEditing = true
    let before = scene
    let source = WatchedSource(failing: [try #require(UUID(uuidString: cherries))])
    #expect(scene.validate(against: Catalog(source: source)) == nil)
    #expect(source.failedReads == 1)
    #expect(scene.storage == before.storage)
    #expect(scene.isEditing)
    #expect(scene.path.routes == [.product(try #require(UUID(uuidString: cherries)))])
  }

  /// A read that failed before the check does not save a product the catalog no longer has.
  @Test func anEarlierFailedReadDoesNotKeepAProductThatIsGone() throws {
    let gone = UUID()
    var scene = scene(navigationState: #"["Foundation.UUID","\"\#(gone.uuidString)\""]"#)
    let source = WatchedSource(failing: [])
    source.fail()
    let result = scene.validate(against: Catalog(source: source))
    let note = try #require(result)
    #expect(note.contains("a product is no longer in the catalog"))
    #expect(scene.path.routes.isEmpty)
  }
}
