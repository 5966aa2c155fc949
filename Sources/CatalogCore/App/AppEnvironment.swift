import CatalogModel
import Foundation
import StateRestoration

/// The effects a command may need beyond changing the state, behind a protocol so that the
/// core runs on plain values in tests.
/// A scene of the session that another process has open, or no process.
package struct OtherScene: Sendable, Hashable {
  /// The scene.
  package var name: SceneName
  /// Who has it open; nil when no running process has.
  package var owner: SceneOwner?
  /// What it shows, as `Describe.place` says it.
  package var place: [String]
  /// When its file was last saved.
  package var savedAt: Date?
  /// Whether the session lists it; a scene file left unlisted (by a crash, or a script's
  /// scene kept for its draft) is still a saved scene.
  package var isListed = true

  package init(
    name: SceneName, owner: SceneOwner?, place: [String], savedAt: Date? = nil,
    isListed: Bool = true
  ) {
    self.name = name
    self.owner = owner
    self.place = place
    self.savedAt = savedAt
    self.isListed = isListed
  }
}

package protocol AppEnvironment {
  /// The scenes of the session this process does not have open: other terminals' windows, and
  /// scenes no running process has open, with what each shows as last saved.
  ///
  /// - Parameter catalog: The catalog, to name what the scenes show.
  /// - Returns: The scenes, in the session's order.
  func otherScenes(in catalog: Catalog) -> [OtherScene]

  /// Whether a scene of this name was saved and no running process has it open: a closed
  /// window's scene, which opening restores with its state.
  ///
  /// - Parameter name: The scene.
  /// - Returns: Whether its file is there and no running process owns it.
  func hasSavedScene(_ name: SceneName) -> Bool

  /// The running process, other than this one, that has a scene open, if any: opening the
  /// scene here is then refused, and an activity for it is handed off there.
  ///
  /// - Parameter name: The scene.
  /// - Returns: The owner, or nil when no other process has the scene open.
  func owner(ofScene name: SceneName) -> SceneOwner?

  /// A saved scene no process had open, as the shell claimed and read it for the command being
  /// applied — reopening a closed window restores its scene storage. Nil when it has not been
  /// read yet: the command then throws ``CatalogCoreError/sceneToRestore(_:)``, and the shell
  /// claims and reads the scene (it must hold the scene's lock while it reads the file) and
  /// applies the command again. The core itself claims and reads nothing.
  ///
  /// - Parameter name: The scene.
  /// - Returns: The scene as saved (not yet checked against the catalog), and a note when its
  ///   file could not be read (it was set aside in quarantine and the scene starts fresh).
  func restoredScene(_ name: SceneName) -> (scene: Scene, note: String?)?

  /// The description of a product's picture: its path and pixel size.
  ///
  /// - Parameter product: The product.
  /// - Returns: One line, such as `Images/Cherries.png, 64×64 pixels`.
  func photoDescription(of product: Product) -> String

  /// Why an image file cannot be shown now, checked when its path is typed: missing, a
  /// directory, not a picture, damaged; nil when it can be.
  ///
  /// - Parameter path: The file's absolute path.
  /// - Returns: The reason, in words.
  func pictureProblem(at path: String) -> String?

  /// A product's picture drawn for the terminal, one string a row; nil when pictures are not
  /// drawn (output is not a terminal, or colour is off) or the picture cannot be read.
  ///
  /// - Parameter product: The product.
  /// - Returns: The rows, or nil.
  func picture(of product: Product) -> [String]?

  /// Searches the activity history and the catalog's products.
  ///
  /// - Parameters:
  ///   - text: The query.
  ///   - catalog: The catalog to search, as the command sees it.
  /// - Returns: The best results, best first, and how many products match.
  /// - Throws: ``CatalogCoreError/invalidSearch(_:)``.
  func search(_ text: String, in catalog: Catalog) throws -> SearchResults

  /// A page of the saved activity history, newest first, and how many entries it has.
  ///
  /// - Parameters:
  ///   - page: The page, from 1.
  ///   - size: Entries a page.
  ///   - catalog: The catalog, whose products' activities the history saves.
  /// - Returns: The page's entries and the total.
  /// - Throws: An error naming the history when it cannot be read.
  func savedActivities(page: Int, size: Int, in catalog: Catalog) throws -> (
    records: [UserActivityRecord], total: Int
  )

  /// The current time, for activities' expiry.
  var now: Date { get }
  /// The activities the user's other machines handed off, newest first.
  ///
  /// - Throws: `CatalogError.handoffNeedsServer` when the catalog is on this machine alone.
  func handoffsElsewhere() throws -> [MachineHandoff]

  /// The directory relative paths the user types are relative to.
  var currentDirectory: String { get }

  /// Products a page of `list` shows: sized to the terminal, 20 in a script.
  var pageSize: Int { get }

  /// The columns text is wrapped to: the terminal's width, 80 in a script.
  var columns: Int { get }

  /// The terminal's width when output goes to one, which a table's rows are cut to fit; nil
  /// in a script, whose rows are whole.
  var terminalColumns: Int? { get }
}

extension AppEnvironment {
  /// Every path can be shown.
  package func pictureProblem(at path: String) -> String? { nil }

  /// No saved scenes.
  package func hasSavedScene(_ name: SceneName) -> Bool { false }

  /// A fresh scene.
  package func restoredScene(_ name: SceneName) -> (scene: Scene, note: String?)? {
    (Scene(name: name), nil)
  }

  /// Twenty products a page.
  package var pageSize: Int { 20 }

  /// Eighty columns.
  package var columns: Int { 80 }

  /// No terminal.
  package var terminalColumns: Int? { nil }
}
