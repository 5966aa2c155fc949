import CatalogModel
import StateRestoration
import Testing

@testable import CatalogCore

@Suite struct EditorTests {
  @Test func theFirstEditCopiesTheProductIntoTheDraft() throws {
    let (state, output) = try run(["select cher", "edit"])
    let scene = state.activeScene
    #expect(scene.isEditing)
    #expect(scene.useSavedValues == false)
    #expect(scene.draft == ProductEdit(name: "Cherries", year: "2015", price: "10.99"))
    #expect(output.contains("Editing Cherries"))
    #expect(Describe.prompt(for: state) == "main › Cherries › edit › ")
  }

  @Test func doneSavesTheDraftAndClosesTheEditor() throws {
    let environment = FakeEnvironment()
    let (state, output) = try run(
      ["select 9", "edit", "name Morello", "year 2016", "price 11.49", "done"],
      environment: environment)
    #expect(environment.saved.map(\.edited.name) == ["Morello"])
    #expect(state.catalog[environment.saved[0].identifier]?.price == Price(cents: 1149))
    #expect(
      environment.saved[0].base
        == ProductFields(
          name: "Cherries", year: 2015, price: Price(cents: 1099), imageName: "Cherries",
          keywords: ["樱桃", "车厘子", "cerises", "fruit"]))
    #expect(!state.activeScene.isEditing)
    #expect(state.activeScene.useSavedValues)
    #expect(state.activeScene.storage.entries["EditView.editTitle"] == nil)
    #expect(output.hasPrefix("Saved Morello."))
  }

  @Test func cancelLeavesTheProductUnchanged() throws {
    let environment = FakeEnvironment()
    let (state, _) = try run(
      ["select 9", "edit", "name Morello", "cancel"], environment: environment)
    #expect(environment.saved.isEmpty)
    #expect(state.shownProduct?.name == "Cherries")
    #expect(!state.activeScene.isEditing)
  }

  @Test(arguments: [
    ("name  ", "missing argument; usage: name TEXT"),
    ("year 1899", "the year '1899' is not a year from 1900 to 2100"),
    ("year 2101", "the year '2101' is not a year from 1900 to 2100"),
    ("year soon", "the year 'soon' is not a year from 1900 to 2100"),
    ("price 10.999", "the price '10.999' has more than two digits after the point"),
    ("price 1000000.01", "the price '1000000.01' is more than $1,000,000.00"),
    ("price ten", "the price 'ten' is not a number like 10.99"),
    ("name " + String(repeating: "a", count: 101), "the name has 101 characters; the limit is 100"),
  ])
  func aFailedDoneKeepsTheEditorAndTheProduct(_ change: String, _ message: String) throws {
    let environment = FakeEnvironment()
    let (editing, _) = try run(["select cher", "edit"], environment: environment)
    do {
      let (changed, _) = try run([change], from: editing, environment: environment)
      _ = try changed.applying(.done(force: false), environment: environment)
      Issue.record("'\(change)' then done was accepted")
    } catch {
      #expect(error.localizedDescription == message)
    }
    #expect(environment.saved.isEmpty)
    #expect(editing.activeScene.isEditing)
    #expect(editing.catalog == bundledCatalog)
  }

  @Test func doneIsRefusedWhileTheNameIsEmpty() throws {
    var (state, _) = try run(["select cher", "edit"])
    var scene = state.activeScene
    scene.draft.name = "  "
    state.activeScene = scene
    #expect(throws: CatalogCoreError.emptyName) {
      try state.applying(.done(force: false), environment: FakeEnvironment())
    }
  }

  @Test func aProductChangedElsewhereSinceEditIsMergedOrRefused() throws {
    let (editing, _) = try run(["select cher", "edit", "name Morello"])
    // Another process changed the price meanwhile: the draft changed only the name.
    var state = editing
    var cherries = try #require(state.shownProduct)
    cherries.price = Price(cents: 500)
    state.catalog.replace(cherries)
    let (saved, _) = try run(["done"], from: state)
    #expect(saved.shownProduct?.name == "Morello")
    #expect(saved.shownProduct?.price == Price(cents: 500))

    // Another process renamed it too: the same field, another value.
    cherries.name = "Renamed by B"
    state.catalog.replace(cherries)
    #expect(
      throws: CatalogError.editConflict(
        product: "Renamed by B", field: "name", theirs: "'Renamed by B'", yours: "'Morello'",
        keepTheirs: "name Renamed by B")
    ) {
      try run(["done"], from: state)
    }
    let (forced, _) = try run(["done --force"], from: state)
    #expect(forced.shownProduct?.name == "Morello")
    #expect(forced.shownProduct?.price == Price(cents: 500))
  }

  @Test func editorCommandsOutsideTheEditorAreRefused() throws {
    #expect(throws: CatalogCoreError.editorNotOpen(command: "name")) {
      try run(["select cher", "name X"])
    }
    #expect(throws: CatalogCoreError.editorNotOpen(command: "done")) {
      try run(["select cher", "done"])
    }
    #expect(throws: CatalogCoreError.noProductShown(command: "edit")) { try run(["edit"]) }
    #expect(throws: CatalogCoreError.editorOpen(command: "select")) {
      try run(["select cher", "edit", "select mango"])
    }
    // `edit` in an open editor shows the draft.
    let (_, draft) = try run(["select cher", "edit", "name Morello", "edit"])
    #expect(draft.hasPrefix("Editing Cherries"), "\(draft)")
    #expect(draft.contains("Morello"), "\(draft)")
  }
}

@Suite struct AddProductTests {
  @Test func cancellingAnAdditionLeavesThePathAsItWas() throws {
    let (added, output) = try run(["select cher", "add Kiwi"])
    #expect(output.hasPrefix("Editing Kiwi"))
    #expect(added.activeScene.newProduct?.name == "Kiwi")
    let (cancelled, shown) = try run(["cancel"], from: added)
    #expect(shown.hasPrefix("Discarded the draft.\nCherries"))
    #expect(cancelled.activeScene.newProduct == nil)
    #expect(cancelled.shownProduct?.name == "Cherries")
  }

  @Test func anAddedProductIsShownOnItsOwn() throws {
    let (editing, _) = try run(["select cher", "add Kiwi", "price 2.50"])
    let kiwi = try #require(editing.activeScene.newProduct)
    #expect(editing.activeScene.path.routes.count == 2)
    let (added, output) = try run(["done"], from: editing)
    #expect(output.hasPrefix("Added Kiwi."))
    #expect(added.activeScene.path.routes == [.product(kiwi.identifier)])
  }

  @Test func doneInsertsTheNewProductOnce() throws {
    let environment = FakeEnvironment()
    let (state, output) = try run(
      ["add  Kiwi ", "price 2.50", "done"], environment: environment)
    #expect(output.hasPrefix("Added Kiwi."))
    #expect(state.activeScene.newProduct == nil)
    #expect(environment.catalogChanges.count == 1)
    guard case .insert(let product) = environment.catalogChanges.first else {
      Issue.record("not an insertion: \(environment.catalogChanges)")
      return
    }
    #expect(product.name == "Kiwi")
    #expect(product.price == Price(cents: 250))
  }

  @Test(arguments: ["", "  ", "Bad\u{1B}name"])
  func anAdditionNeedsAValidName(_ name: String) {
    #expect(throws: (any Error).self) { try run(["add \(name)"]) }
  }
}

@Suite struct BidiNameTests {
  /// Bidirectional controls reorder what a terminal shows: refused in names like other control
  /// characters.
  @Test(arguments: ["\u{202A}", "\u{202E}", "\u{2066}", "\u{2069}"])
  func bidirectionalControlsAreRefusedInNames(_ control: String) {
    #expect(throws: (any Error).self) {
      try run(["select cher", "edit", "name Cher\(control)ries", "done"])
    }
    #expect(throws: (any Error).self) { try run(["add Ki\(control)wi"]) }
  }
}

extension EditorTests {
  /// `image PATH` changes the draft's picture: a relative path is made absolute against the
  /// current directory, and `done` saves it with the other fields.
  @Test func theImageCommandSetsTheDraftsPicture() throws {
    let environment = FakeEnvironment()
    let (state, output) = try run(
      ["select 9", "edit", "image ../shots/cherries.jpg"], environment: environment)
    #expect(output.contains("Image     /home/user/shots/cherries.jpg"), "\(output)")
    #expect(state.activeScene.draft.image == "/home/user/shots/cherries.jpg")
    let (saved, _) = try run(["done"], from: state, environment: environment)
    #expect(environment.saved.last?.edited.imageName == "/home/user/shots/cherries.jpg")
    #expect(
      saved.catalog[environment.saved[0].identifier]?.imageName == "/home/user/shots/cherries.jpg")
    #expect(throws: CatalogCoreError.editorNotOpen(command: "image")) {
      try run(["select 9", "image /x.png"])
    }
    let long = "/" + String(repeating: "a", count: 5000) + ".png"
    #expect(throws: CatalogError.self) { try run(["select 9", "edit", "image \(long)", "done"]) }
  }
}

/// A value is checked as it is typed (a warning; the draft keeps it), `done` names every
/// problem at once, and prices are read by the importer's rule (SPEC section 4).
@Suite struct DraftCheckTests {
  func editing() throws -> AppState {
    try run(["select 9", "edit"]).state
  }

  @Test(arguments: [
    (Command.setPrice("12.345"), "the price '12.345' has more than two digits after the point"),
    (.setPrice("abc"), "the price 'abc' is not a number like 10.99"),
    (.setPrice("-5"), "the price '-5' is negative"),
    (.year("1800"), "the year '1800' is not a year from 1900 to 2100"),
    (
      .setKeywords((1...65).map { "k\($0)" }.joined(separator: ",")),
      "the keywords are not valid: it has 65 keywords; the limit is 64"
    ),
  ])
  func aBadValueIsNamedAsItIsTypedAndKept(_ command: Command, _ problem: String) throws {
    let result = try editing().applying(command, environment: FakeEnvironment())
    #expect(
      result.warnings == [
        problem + "; the draft keeps it, and 'done' refuses it until it is changed"
      ])
    #expect(result.state.activeScene.isEditing)
  }

  @Test func doneNamesEveryProblemAtOnce() throws {
    var state = try editing()
    for command in [Command.year("1800"), .setPrice("abc")] {
      state = try state.applying(command, environment: FakeEnvironment()).state
    }
    #expect(
      throws: CatalogError.invalidDraft([
        "the year '1800' is not a year from 1900 to 2100",
        "the price 'abc' is not a number like 10.99",
      ])
    ) { try state.applying(.done(force: false), environment: FakeEnvironment()) }
  }

  @Test(arguments: ["1,299.00", "$1,299", "1299"])
  func aPriceIsReadAsTheImporterReadsIt(_ typed: String) throws {
    let environment = FakeEnvironment()
    let typedPrice = try editing().applying(.setPrice(typed), environment: environment)
    #expect(typedPrice.warnings.isEmpty)
    // Shown as it will be saved.
    #expect(typedPrice.state.activeScene.draft.price == "1299.00")
    let saved = try typedPrice.state.applying(.done(force: false), environment: environment)
    #expect(saved.output.contains("$1,299.00"), "\(saved.output)")
  }
}

extension EditorTests {
  /// `keywords WORDS` sets the draft's keywords, separated by commas; with none, clears them; too
  /// many is a warning as typed and refused by `done`.
  @Test func theKeywordsCommandSetsTheDraftsKeywords() throws {
    let environment = FakeEnvironment()
    let (state, output) = try run(
      ["select 9", "edit", "keywords  sour , cerises,,"], environment: environment)
    #expect(output.contains("Keywords  sour, cerises"), "\(output)")
    let (saved, _) = try run(["done"], from: state, environment: environment)
    #expect(environment.saved.last?.edited.keywords == ["sour", "cerises"])
    #expect(saved.catalog[environment.saved[0].identifier]?.keywords == ["sour", "cerises"])
    let (cleared, _) = try run(["select 9", "edit", "keywords", "done"], environment: environment)
    #expect(cleared.catalog[environment.saved[0].identifier]?.keywords == [])
    let many = (1...65).map { "k\($0)" }.joined(separator: ",")
    let typed = try run(["select 9", "edit", "keywords \(many)"]).state
    #expect(throws: CatalogError.invalidKeywords(reason: "it has 65 keywords; the limit is 64")) {
      try run(["done"], from: typed)
    }
  }
}
