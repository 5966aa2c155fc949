import CatalogModel
import Foundation
import StateRestoration

extension AppState {
  /// Applies a command: the new state and what to print, or an error with nothing changed.
  ///
  /// Apart from the few effects of `environment` (claiming a scene, saving a product), this is
  /// a pure function of the state and the command.
  ///
  /// - Parameters:
  ///   - command: The command.
  ///   - environment: The effects a command may need.
  /// - Returns: The new state and the output.
  /// - Throws: A ``CatalogCoreError`` or `CatalogError` saying what went wrong.
  package func applying(_ command: Command, environment: some AppEnvironment) throws
    -> CommandResult
  {
    do {
      var result = try applyingCommand(command, environment: environment)
      result.state.updateActivities(since: self)
      // Each scene the command opened is claimed by the shell before anything is saved.
      result.effects =
        result.state.scenes.compactMap {
          scene(named: $0.name.rawValue) == nil ? Effect.claimScene($0.name) : nil
        } + result.effects
      return result
    } catch CatalogError.ambiguous(let reference, let candidates, let total, let numbers, nil) {
      // The hint names the command typed, `type 'push 16'`; a link's product is selected.
      throw CatalogError.ambiguous(
        reference, candidates: candidates, total: total, numbers: numbers,
        command: command.productCommandWord)
    } catch CatalogError.wordMatches(let reference, let candidates, let numbers, let more, nil) {
      throw CatalogError.wordMatches(
        reference, candidates: candidates, numbers: numbers, more: more,
        command: command.productCommandWord)
    }
  }

  private func applyingCommand(_ command: Command, environment: some AppEnvironment) throws
    -> CommandResult
  {
    var state = self
    var scene = state.activeScene
    let render = Renderer(environment: environment)
    switch command {
    case .list(let page):
      return CommandResult(
        state: state, output: try render.productList(catalog, page: page),
        continuation: page == .all && !catalog.isEmpty
          ? CatalogListing.all(catalog) : nil)

    case .add(let name):
      try scene.refuseWhileEditing("add")
      let product = try newProduct(named: name, environment: environment)
      try scene.push(.product(product.identifier))
      scene.newProduct = product
      scene.presentEditor(for: product)
      // A new product has no saved values for a field to conflict with.
      scene.storage[SceneKeys.editBase] = nil
      state.activeScene = scene
      return CommandResult(state: state, output: render.editor(scene.draft, of: product))

    case .delete(let reference):
      let product = try environment.product(matching: reference, in: catalog)
      if scene.isEditing, scene.path.topProduct == product.identifier {
        throw CatalogCoreError.editorOpen(command: "delete")
      }
      state.catalog.remove(product.identifier)
      var notes: [String] = []
      for index in state.scenes.indices {
        if let note = state.scenes[index].validate(against: state.catalog) {
          notes.append("Scene '\(state.scenes[index].name)': \(note).")
        }
      }
      return CommandResult(
        state: state,
        output: (["Deleted \(product.name)."] + notes).joined(separator: "\n"),
        catalogChanges: [.delete(product.identifier, name: product.name)])

    case .navigation(.year(let text)) where scene.isEditing:
      return try applyingDraft(.year, text, environment: environment)

    case .navigation(let navigation):
      return try applyingNavigation(navigation, environment: environment)

    case .activity(let activity):
      return try applyingActivity(activity, environment: environment)

    case .tab(let tab):
      try scene.refuseWhileEditing("tab")
      let product = try shownProduct(for: "tab")
      scene.selectedTab = tab
      state.activeScene = scene
      return CommandResult(state: state, output: render.detail(product, tab: tab))

    case .edit:
      let product = try shownProduct(for: "edit")
      // In an open editor (a restored one, say), `edit` shows the draft.
      guard !scene.isEditing else {
        return CommandResult(state: state, output: render.editor(scene.draft, of: product))
      }
      scene.presentEditor(for: product)
      state.activeScene = scene
      return CommandResult(state: state, output: render.editor(scene.draft, of: product))

    case .setName(let text):
      return try applyingDraft(.name, text, environment: environment)

    case .setPrice(let text):
      return try applyingDraft(.price, text, environment: environment)

    case .setImage(let text):
      return try applyingDraft(.image, text, environment: environment)

    case .setKeywords(let text):
      return try applyingDraft(.keywords, text, environment: environment)

    case .done(let force):
      guard scene.isEditing else { throw CatalogCoreError.editorNotOpen(command: "done") }
      let product = try shownProduct(for: "done")
      guard !scene.draft.isNameEmpty else { throw CatalogCoreError.emptyName }
      // The catalog on disk changes when the command is committed, with the scene's files.
      let change = try scene.change(to: product, force: force)
      let saved = try change.applied(to: product)
      let isNew =
        scene.newProduct?.identifier == product.identifier && catalog[product.identifier] == nil
      if !isNew { state.catalog.replace(saved) }
      scene.closeEditor()
      // A product added stands on its own, as if selected: not on top of what was shown when
      // `add` began (which `cancel` goes back to).
      if isNew { scene.path = ScenePath([.product(saved.identifier)]) }
      state.activeScene = scene
      return CommandResult(
        state: state,
        output: (isNew ? "Added \(saved.name)." : "Saved \(saved.name).") + "\n"
          + render.detail(saved, tab: scene.selectedTab),
        catalogChanges: [isNew ? .insert(saved) : .edit(change)])

    case .cancel:
      guard scene.isEditing else { throw CatalogCoreError.editorNotOpen(command: "cancel") }
      let discarded = scene.newProduct.flatMap { catalog[$0.identifier] == nil ? $0 : nil }
      scene.closeEditor()
      if let discarded, scene.path.topProduct == discarded.identifier {
        // The product `add` began was never saved: it leaves the path with its draft.
        scene.path = ScenePath(scene.path.routes.dropLast())
      }
      state.activeScene = scene
      let product = state.shownProduct
      return CommandResult(
        state: state,
        output: "Discarded the draft.\n"
          + (product.map { render.detail($0, tab: scene.selectedTab) }
            ?? render.location(of: scene, in: state.catalog)))

    case .scenes(let all):
      return CommandResult(
        state: state,
        output: render.sceneList(
          state, others: environment.otherScenes(in: state.catalog), all: all))

    case .newScene(let name, let reference):
      guard state.scene(named: name.rawValue) == nil else {
        throw CatalogCoreError.sceneAlreadyOpen(name.rawValue)
      }
      if let owner = environment.otherScenes(in: catalog).first(where: { $0.name == name })?
        .owner
      {
        throw CatalogCoreError.sceneElsewhere(name.rawValue, owner: owner.place)
      }
      // A closed window's scene is reopened with its state, never replaced by a fresh one.
      guard !environment.hasSavedScene(name) else {
        throw CatalogCoreError.sceneSaved(name.rawValue)
      }
      let product = try reference.map { try environment.product(matching: $0, in: catalog) }
      try state.openScene(name, environment: environment)
      // As the sample's drag does: the new scene continues a "Dropped product" activity.
      if let product {
        try state.continueActivity(
          ProductActivity.dropped(product), in: name, environment: environment)
      }
      let newScene = state.activeScene
      let shown = product.map { "\n" + render.detail($0, tab: newScene.selectedTab) } ?? ""
      return CommandResult(state: state, output: "Opened scene '\(name)'." + shown)

    case .switchScene(let name):
      guard let target = state.scene(named: name) else {
        // A saved scene no process has open is opened here with everything it had.
        let note = try state.openSavedScene(named: name, environment: environment)
        let opened = state.activeScene
        return CommandResult(
          state: state,
          output: (note.map { "Note: \($0)\n" } ?? "") + "Opened saved scene '\(name)'.\n"
            + render.location(of: opened, in: state.catalog))
      }
      state.activeSceneName = target.name
      state.updatePhases()
      return CommandResult(
        state: state,
        output: "Switched to scene '\(name)'.\n" + render.location(of: target, in: catalog))

    case .closeScene(let requested, let discard):
      let name = requested ?? activeSceneName.rawValue
      var active = state.activeSceneName
      if state.scene(named: name) == nil {
        // Closing a saved scene for good: opened (to read its draft), then closed.
        _ = try state.openSavedScene(named: name, environment: environment)
        state.activeSceneName = active
        active = state.activeSceneName
      }
      guard let index = state.scenes.firstIndex(where: { $0.name.rawValue == name }) else {
        throw CatalogCoreError.noSuchScene(name, open: state.scenes.map(\.name.rawValue))
      }
      if !discard, let draft = state.scenes[index].unsavedDraftName(in: state.catalog) {
        throw CatalogCoreError.unsavedDraft(scene: name, draft: draft)
      }
      let closed = state.scenes.remove(at: index)
      var message = "Closed scene '\(closed.name)'."
      if state.scenes.isEmpty {
        try Self.refuseIfOpenElsewhere(.main, environment: environment)
        state.scenes = [Scene(name: .main)]
        state.activeSceneName = .main
        message += " Opened a fresh scene 'main'."
      } else if closed.name == active {
        state.activeSceneName = state.scenes[max(0, index - 1)].name
        message += " Scene '\(state.activeSceneName)' is active."
      }
      state.updatePhases()
      return CommandResult(state: state, output: message)

    case .state:
      return CommandResult(state: state, output: render.storage(of: scene))

    case .help(let topic):
      return CommandResult(
        state: state, output: try Help.text(for: topic, width: environment.columns))

    case .quit:
      return CommandResult(state: state, output: "", quits: true)
    }
  }

  /// Opens a scene this process does not have open yet and makes it active.
  ///
  /// - Parameters:
  ///   - name: The scene.
  ///   - environment: Where it is asked whether another process has the scene open; the
  ///     command's result then asks the shell to claim it (``Effect/claimScene(_:)``).
  /// - Throws: ``CatalogCoreError/sceneOwned(_:pid:terminal:)`` when another process owns it.
  mutating func openScene(_ name: SceneName, environment: some AppEnvironment) throws {
    // A saved scene no process has open comes back with its state: a link or `continue` to a
    // closed window's scene reopens it, as Apple's systems do.
    if environment.hasSavedScene(name) {
      _ = try openSavedScene(name, environment: environment)
      return
    }
    try Self.refuseIfOpenElsewhere(name, environment: environment)
    scenes.append(Scene(name: name))
    activeSceneName = name
    updatePhases()
  }

  /// Refuses to open a scene another running process has open.
  ///
  /// - Throws: ``CatalogCoreError/sceneOwned(_:pid:terminal:)``.
  static func refuseIfOpenElsewhere(_ name: SceneName, environment: some AppEnvironment) throws {
    if let owner = environment.owner(ofScene: name) {
      throw CatalogCoreError.sceneOwned(
        name.rawValue, pid: owner.process.pid, terminal: owner.terminal)
    }
  }

  /// Opens a saved scene no process has open, restoring what it had (path, tab, editor and
  /// draft), and makes it active.
  ///
  /// - Parameters:
  ///   - name: The scene.
  ///   - environment: Where the scene is found as the shell read it.
  /// - Returns: A note when part of it could not be kept (its file unreadable, a product gone).
  /// - Throws: ``CatalogCoreError/sceneToRestore(_:)`` when the shell has not read it yet.
  @discardableResult
  mutating func openSavedScene(_ name: SceneName, environment: some AppEnvironment) throws
    -> String?
  {
    guard var (scene, note) = environment.restoredScene(name) else {
      throw CatalogCoreError.sceneToRestore(name)
    }
    if let dropped = scene.validate(against: catalog) {
      note = [note, "scene '\(name)': \(dropped)"].compactMap { $0 }.joined(separator: "; ")
    }
    scenes.append(scene)
    activeSceneName = name
    updatePhases()
    return note
  }

  /// Opens a scene by the name typed: a saved one no process has open; otherwise says where it
  /// is (another terminal's) or that there is none.
  mutating func openSavedScene(named name: String, environment: some AppEnvironment) throws
    -> String?
  {
    if let owner = environment.otherScenes(in: catalog).first(where: {
      $0.name.rawValue == name
    })?.owner {
      throw CatalogCoreError.sceneElsewhere(name, owner: owner.place)
    }
    guard let sceneName = SceneName(name), environment.hasSavedScene(sceneName) else {
      throw CatalogCoreError.noSuchScene(name, open: scenes.map(\.name.rawValue))
    }
    return try openSavedScene(sceneName, environment: environment)
  }

  /// A product `add` begins: a new identifier, the name given, this year, price 0.00, no
  /// picture of its own.
  private func newProduct(named name: String, environment: some AppEnvironment) throws -> Product {
    let trimmed = name.trimmingSpacesAndNewlines
    if let reason = Product.nameViolation(trimmed) {
      throw CatalogError.invalidName(reason: reason)
    }
    let year = Calendar(identifier: .gregorian).component(.year, from: environment.now)
    return Product(
      identifier: UUID(), name: trimmed, imageName: "",
      year: min(max(year, ProductEdit.years.lowerBound), ProductEdit.years.upperBound),
      price: Price(cents: 0))
  }

  func shownProduct(for command: String) throws -> Product {
    guard let product = shownProduct else {
      throw CatalogCoreError.noProductShown(command: command)
    }
    return product
  }
}

extension AppState {
  /// A field of the editor's draft.
  enum DraftField {
    case name, year, price, image, keywords

    /// The command that sets it.
    var word: String {
      switch self {
      case .name: "name"
      case .year: "year"
      case .price: "price"
      case .image: "image"
      case .keywords: "keywords"
      }
    }
  }

  /// Applies `name`, `year`, `price`, `image` or `keywords` in the editor: the draft's field set as typed,
  /// checked when it is saved.
  private func applyingDraft(
    _ field: DraftField, _ text: String, environment: some AppEnvironment
  ) throws -> CommandResult {
    var state = self
    var scene = state.activeScene
    let render = Renderer(environment: environment)
    guard scene.isEditing else { throw CatalogCoreError.editorNotOpen(command: field.word) }
    let product = try shownProduct(for: field.word)
    var draft = scene.draft
    switch field {
    case .name: draft.name = text
    case .year: draft.year = text
    case .price:
      // Shown as it will be saved (`1,299` as `1299.00`); kept as typed when it is not a price.
      draft.price = (try? Price(parsing: text))?.plainText ?? text
    case .image:
      // A relative path is relative to where the user is, kept absolute.
      draft.image = Product.resolvingImagePath(text, against: environment.currentDirectory)
    case .keywords:
      draft.keywords = ProductEdit.keywords(of: text).joined(separator: ", ")
    }
    scene.draft = draft
    scene.useSavedValues = false
    state.activeScene = scene
    var result = CommandResult(state: state, output: render.editor(draft, of: product))
    // A value checked as it is typed: the draft keeps it, and `done` refuses it until changed.
    let problem: CatalogError? =
      switch field {
      case .year: ProductEdit.year(of: text) == nil ? .invalidYear(text) : nil
      case .price: draft.problems.first { if case .invalidPrice = $0 { true } else { false } }
      case .keywords: draft.problems.first { if case .invalidKeywords = $0 { true } else { false } }
      case .name, .image: nil
      }
    if let problem {
      result.warnings.append(
        "\(problem.localizedDescription); the draft keeps it, and 'done' refuses it until it is changed"
      )
    }
    // Checked as it is typed, not refused: the picture may arrive later.
    if field == .image, let path = draft.image, Product.isImagePath(path),
      let problem = environment.pictureProblem(at: path)
    {
      result.warnings.append(
        "the picture '\(path)' cannot be shown now: \(problem); it is kept, and shown once it can be"
      )
    }
    return result
  }
}

extension Scene {
  func refuseWhileEditing(_ command: String) throws {
    if isEditing { throw CatalogCoreError.editorOpen(command: command) }
  }
}

extension Command {
  /// The command that takes a product's number in place of what this one was given: itself,
  /// or `select` for a link, which takes no number.
  var productCommandWord: String {
    switch self {
    case .navigation(.open): "select"
    default: word
    }
  }

  /// The word that starts the command, for messages.
  package var word: String {
    switch self {
    case .list: "list"
    case .navigation(let navigation): navigation.word
    case .activity(let activity): activity.word
    case .tab: "tab"
    case .edit: "edit"
    case .setName: "name"
    case .setPrice: "price"
    case .setImage: "image"
    case .setKeywords: "keywords"
    case .done: "done"
    case .cancel: "cancel"
    case .scenes: "scenes"
    case .newScene, .switchScene, .closeScene: "scene"
    case .state: "state"
    case .help: "help"
    case .add: "add"
    case .delete: "delete"
    case .quit: "quit"
    }
  }
}

extension NavigationCommand {
  /// The word that starts the command, for messages.
  package var word: String {
    switch self {
    case .select: "select"
    case .push: "push"
    case .year: "year"
    case .back: "back"
    case .root: "root"
    case .path: "path"
    case .open: "open"
    }
  }
}

extension ActivityCommand {
  /// The word that starts the command, for messages.
  package var word: String {
    switch self {
    case .search: "search"
    case .continueResult, .continueElsewhere: "continue"
    case .handoff, .continueDelivered, .handoffToMachine: "handoff"
    case .activities, .activitiesElsewhere: "activities"
    case .forget: "forget"
    }
  }
}

extension AppState {
  /// Whether a command needs the catalog's server: it reads products the scenes do not show,
  /// checks a scene's products, or saves. The others — the scenes, the path, stored values,
  /// help, the tab, the editor's fields, the activity history and its search — run on the
  /// products read before while the server cannot be reached.
  ///
  /// - Parameter command: The command.
  /// - Returns: Whether it runs only when the server answers.
  package func needsCatalogServer(for command: Command) -> Bool {
    switch command {
    case .list, .navigation(.select), .navigation(.push), .navigation(.open), .done, .add,
      .delete, .activity(.continueResult), .activity(.handoff), .activity(.handoffToMachine),
      .activity(.activitiesElsewhere), .activity(.continueElsewhere),
      .activity(.continueDelivered):
      true
    case .navigation(.year): !activeScene.isEditing
    case .newScene(_, let product): product != nil
    // A saved scene's products are checked as it opens.
    case .switchScene(let name): scene(named: name) == nil
    case .activity(.forget(.product)): true
    case .navigation(.back), .navigation(.root), .navigation(.path), .tab, .edit, .setName,
      .setPrice, .setImage, .setKeywords, .cancel, .activity(.search), .scenes, .closeScene, .state,
      .help,
      .activity(.activities), .activity(.forget), .quit:
      false
    }
  }
}
