import CatalogModel
import Foundation
import LineEditing
import StateRestoration
import SystemSupport

/// Turns state into the text the REPL prints. Pure: the same state gives the same text.
package struct Renderer<Environment: AppEnvironment> {
  /// Where product pictures are described.
  package let environment: Environment

  /// A renderer for an environment.
  ///
  /// - Parameter environment: Where product pictures are described.
  package init(environment: Environment) {
    self.environment = environment
  }

  /// The product grid: number, name, year, price; one page, with the total and how to see
  /// more, or every product.
  ///
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - page: The page, or all.
  /// - Returns: The table, one product a line.
  /// - Throws: ``CatalogCoreError/invalidArgument(_:expected:)`` for a page past the last.
  package func productList(_ catalog: Catalog, page: ListPage) throws -> String {
    let count = catalog.count
    guard count > 0 else { return "The catalog is empty; type 'add NAME' to add a product." }
    guard case .page(let number) = page else { return "" }
    let paging = Paging(total: count, size: environment.pageSize)
    guard let numbers = paging.numbers(onPage: number) else {
      throw CatalogCoreError.invalidArgument(
        String(number), expected: "a page from 1 to \(paging.pages.grouped)")
    }
    return productTable(catalog.page(number, size: paging.size))
      + "\n" + footer(paging, numbers: numbers, page: number, command: "list", noun: "products")
  }

  /// A page of a year's products, numbered as in the whole catalog so that `select` and `push`
  /// take the numbers shown.
  ///
  /// - Parameters:
  ///   - year: The year.
  ///   - page: The page, from 1.
  ///   - catalog: The catalog.
  /// - Returns: A heading and the table.
  package func yearList(_ year: Int, page: Int = 1, in catalog: Catalog) -> String {
    let count = catalog.count(year: year)
    guard count > 0 else { return "No products from \(year); type 'back' to leave this list." }
    let paging = Paging(total: count, size: environment.pageSize)
    let rows = catalog.page(page, size: paging.size, year: year)
    guard !rows.isEmpty, let numbers = paging.numbers(onPage: page) else {
      return
        "Products from \(year) have \(paging.pages.grouped) page(s); type 'year \(year)' for the first."
    }
    return "Products from \(year) (\(count.grouped)):\n" + productTable(rows) + "\n"
      + footer(paging, numbers: numbers, page: page, command: "year \(year)", noun: "products")
  }

  private func footer(
    _ paging: Paging, numbers: ClosedRange<Int>, page: Int, command: String, noun: String
  ) -> String {
    let (count, pages) = (paging.total, paging.pages)
    guard pages > 1 else { return "\(count.grouped) \(count == 1 ? "product" : noun)." }
    let (first, last) = (numbers.lowerBound, numbers.upperBound)
    let next =
      page < pages
      ? "type '\(command) \(page + 1)' for the next page"
      : "type '\(command) 1' for the first page"
    let all = command == "list" ? ", 'list --all' for every product" : ""
    return
      "\(first.grouped)–\(last.grouped) of \(count.grouped) \(noun) (page \(page.grouped) of \(pages.grouped)); \(next)\(all)."
  }

  private func productTable(_ rows: [(number: Int, product: Product)]) -> String {
    CatalogListing.table(rows, widths: [])
  }

  /// A scene's navigation path, one element a line from the root.
  ///
  /// - Parameters:
  ///   - path: The path.
  ///   - scene: The scene it belongs to.
  ///   - catalog: The catalog.
  /// - Returns: The elements, or where the scene is when the path is empty.
  package func path(_ path: ScenePath, of scene: Scene, in catalog: Catalog) -> String {
    guard !path.routes.isEmpty else {
      return "Scene '\(scene.name)' is at the product list; the path is empty."
    }
    let rows = path.routes.enumerated().map { index, route in
      switch route {
      case .product(let identifier):
        [String(index + 1), "product", catalog[identifier]?.name ?? identifier.canonicalText]
      case .year(let year):
        [String(index + 1), "year", String(year)]
      }
    }
    let count = path.routes.count
    return "Path of scene '\(scene.name)' (\(count) element\(count == 1 ? "" : "s"), root first):\n"
      + Table.render(rows: rows, rightAligned: [0], indent: 2)
  }

  /// A product's detail on a tab.
  ///
  /// - Parameters:
  ///   - product: The product.
  ///   - tab: The tab shown.
  /// - Returns: The detail.
  package func detail(_ product: Product, tab: Tabs) -> String {
    let tabs = Tabs.allCases.map { $0 == tab ? "[\($0.rawValue)]" : $0.rawValue }.joined(
      separator: " ")
    switch tab {
    case .detail:
      var rows = [["Year", String(product.year)], ["Price", product.price.formatted]]
      if !product.keywords.isEmpty {
        rows.append(["Keywords", product.keywords.joined(separator: ", ")])
      }
      rows.append(["Tabs", tabs])
      return product.name + "\n" + Table.render(rows: rows, indent: 2)
    case .photo:
      if let picture = environment.picture(of: product) {
        let indent = String(repeating: " ", count: Presentation.pictureIndent)
        return product.name + "\n" + picture.map { indent + $0 }.joined(separator: "\n") + "\n"
          + Table.render(rows: [["Tabs", tabs]], indent: 2)
      }
      let rows = [["Photo", environment.photoDescription(of: product)], ["Tabs", tabs]]
      return product.name + "\n" + Table.render(rows: rows, indent: 2)
    }
  }

  /// The editor with its draft.
  ///
  /// - Parameters:
  ///   - draft: The draft.
  ///   - product: The product being edited.
  /// - Returns: The editor's fields and what to do next.
  package func editor(_ draft: ProductEdit, of product: Product) -> String {
    var rows = [["Name", draft.name], ["Year", draft.year], ["Price", draft.price]]
    let image = draft.image ?? product.imageName
    if !image.isEmpty { rows.append(["Image", image]) }
    let keywords = draft.keywords ?? product.keywords.joined(separator: ", ")
    // Keywords the draft cleared are shown cleared; a product without any shows no row.
    if !keywords.isEmpty || draft.keywords != nil {
      rows.append(["Keywords", keywords.isEmpty ? "(none)" : keywords])
    }
    return "Editing \(product.name)\n" + Table.render(rows: rows, indent: 2)
      + "\n" + Describe.editorHint
  }

  /// Where a scene is: its product's detail, or the product list.
  ///
  /// - Parameters:
  ///   - scene: The scene.
  ///   - catalog: The catalog.
  /// - Returns: The scene's current view.
  package func location(of scene: Scene, in catalog: Catalog) -> String {
    if let year = scene.path.topYear { return yearList(year, in: catalog) }
    guard let product = scene.path.topProduct.flatMap({ scene.product($0, in: catalog) }) else {
      return
        "At the product list (\(catalog.count.grouped) products); type 'list' to see them."
    }
    if scene.isEditing { return editor(scene.draft, of: product) }
    return detail(product, tab: scene.selectedTab)
  }

  /// A page of the saved activity history: number, title, product, when.
  ///
  /// - Parameters:
  ///   - records: The page's entries, newest first.
  ///   - firstNumber: The number of the first entry.
  ///   - total: Entries in the whole history.
  ///   - page: The page.
  ///   - pages: Pages in all.
  ///   - catalog: The catalog, for the products' names.
  /// - Returns: The table and how to see more or forget one.
  package func savedActivities(
    _ records: [UserActivityRecord], firstNumber: Int, total: Int, page: Int, pages: Int,
    catalog: Catalog
  ) -> String {
    guard !records.isEmpty else {
      return "No saved activities; showing a product saves one."
    }
    let rows = records.enumerated().map { offset, record in
      let product = record.targetContentIdentifier.flatMap(UUID.init(canonical:)).flatMap {
        catalog[$0]?.name
      }
      return [
        String(firstNumber + offset), record.title ?? record.activityType, product ?? "—",
        record.lastActiveDate.map { localTimestamp($0) } ?? "—",
      ]
    }
    let more = page < pages ? "; type 'activities \(page + 1)' for more" : ""
    return Table.render(
      header: ["#", "Activity", "Product", "When"], rows: rows, rightAligned: [0])
      + "\n\(total.grouped) saved activit\(total == 1 ? "y" : "ies")\(more); 'forget N' deletes one."
  }

  /// The open scenes, the active one marked with `*`, then the session's scenes other
  /// processes have open (with the process and its terminal) or none has.
  ///
  /// - Parameters:
  ///   - state: The state.
  ///   - others: The session's other scenes.
  ///   - all: Whether to list scene files the session lost too, and when closed ones were
  ///     saved.
  /// - Returns: One scene a line, with where it is.
  package func sceneList(_ state: AppState, others: [OtherScene] = [], all: Bool = false)
    -> String
  {
    // Without --all, the scenes the session lists; with it, also scene files left unlisted,
    // and when each closed one was saved.
    let others = others.filter { all || $0.isListed || $0.owner != nil }
    var rows = state.scenes.map { scene in
      [
        scene.name == state.activeSceneName ? "*" : " ", scene.name.rawValue,
        Describe.place(of: scene, in: state.catalog).joined(separator: " › "),
      ] + (others.isEmpty ? [] : ["here"])
    }
    rows += others.map { other in
      [
        " ", other.name.rawValue, other.place.joined(separator: " › "),
        other.owner.map { $0.place + ($0.isFront ? ", in front" : "") }
          ?? "closed"
          + (all
            ? other.savedAt.map { ", saved " + Describe.age(of: $0, now: environment.now) }
              ?? "" : ""),
      ]
    }
    let closed = others.filter { $0.owner == nil }.count
    let hint =
      closed == 0
      ? ""
      : "\n'scene switch NAME' opens a closed scene with its state; 'scene close NAME' discards it."
    return Table.render(rows: rows) + hint
  }

  /// The active scene's storage: every key, its value and its type.
  ///
  /// - Parameter scene: The scene.
  /// - Returns: One key a line, sorted by key.
  package func storage(of scene: Scene) -> String {
    guard !scene.storage.isEmpty else { return "Scene '\(scene.name)' has no stored values." }
    // The editor's draft by its fields' names, as the editor shows them; `state --json` keeps
    // the storage keys.
    let draftFields = [
      (SceneKeys.editTitle.name, "Name"), (SceneKeys.editYear.name, "Year"),
      (SceneKeys.editPrice.name, "Price"), (SceneKeys.editImage.name, "Image"),
      (SceneKeys.editKeywords.name, "Keywords"),
    ]
    let draftKeys = Set(draftFields.map(\.0))
    let rows = scene.storage.keys.filter { !draftKeys.contains($0) }.compactMap { key in
      scene.storage.entries[key].map { [key, $0.typeName, Describe.describe($0)] }
    }
    let draft = draftFields.compactMap { key, label in
      scene.storage.entries[key].map { [label, Describe.describe($0)] }
    }
    return "Scene '\(scene.name)' (\(scene.phase.rawValue)):\n"
      + Table.render(rows: rows, indent: 2)
      + (draft.isEmpty ? "" : "\nThe editor's draft:\n" + Table.render(rows: draft, indent: 2))
  }
}

/// The product grid, shared by the pages the renderer shows and the whole list.
package enum CatalogListing {
  /// Every product, for scripts: the columns are measured in a first pass, then the rows are
  /// rendered and handed out a thousand at a time, so that no table of the whole catalog is
  /// held.
  ///
  /// - Parameter catalog: The catalog.
  /// - Returns: The table's parts, then the total.
  package static func all(_ catalog: Catalog) -> OutputContinuation {
    OutputContinuation { emit in
      guard catalog.count > 0 else { return }
      // A read that fails part way is an error after the rows so far, never a short list
      // with its total.
      try all(catalog.source, emit)
      emit("\(catalog.count.grouped) products.")
    }
  }

  /// Every product of a catalog, as ``table(_:widths:)`` renders them: rows whose bytes show
  /// they keep the editor's rules (``ProductBytes``, a name of printable ASCII) are written from
  /// those bytes, the others through the table.
  private static func all(_ database: any CatalogSource, _ emit: (String) -> Void) throws {
    let widest = try database.widestNameAndPrice(width: { DisplayWidth.of($0) })
    let widths = [
      String(database.count).count, max(4, widest.name), 4,
      max(5, Price(cents: widest.cents).formatted.count),
    ]
    var chunk: [UInt8] = []
    func pad(_ count: Int) { chunk.append(contentsOf: repeatElement(0x20, count: max(0, count))) }
    // A row as the table lays it out: the number, the name (padded by its display width), the
    // year and the price, right-aligned, two spaces apart.
    func appendRow(
      _ number: Int, _ name: some Collection<UInt8>, width: Int, _ year: Int, _ cents: Int
    ) {
      let digits = String(number).utf8
      pad(widths[0] - digits.count)
      chunk.append(contentsOf: digits)
      pad(2)
      chunk.append(contentsOf: name)
      pad(widths[1] - width + 2)
      let year = String(year).utf8
      pad(widths[2] - year.count)
      chunk.append(contentsOf: year)
      pad(2)
      let price = Price(cents: cents).formatted.utf8
      pad(widths[3] - price.count)
      chunk.append(contentsOf: price)
      chunk.append(0x0A)
    }
    let header = table([], widths: widths)
    emit(header + "\n")
    defer { emit(String(decoding: chunk, as: UTF8.self)) }
    try database.forEachRecord { number, record in
      switch record {
      case .bytes(let row):
        // Printable ASCII is a column a byte; other plain UTF-8 is measured.
        let width =
          row.name.allSatisfy { $0 < 0x80 }
          ? row.name.count : DisplayWidth.of(String(decoding: row.name, as: UTF8.self))
        appendRow(number, row.name, width: width, row.year, row.cents)
      case .product(let product):
        // Kept to the editor's rules, so escaping changes nothing; it is the table's rule.
        let name = product.name.escapingControlCharacters
        appendRow(
          number, name.utf8, width: DisplayWidth.of(name), product.year, product.price.cents)
      }
      if chunk.count > 1 << 16 {
        emit(String(decoding: chunk, as: UTF8.self))
        chunk.removeAll(keepingCapacity: true)
      }
    }
  }

  /// Product rows as a table: number, name, year, price.
  static func table(_ rows: [(number: Int, product: Product)], widths: [Int]) -> String {
    Table.render(
      header: ["#", "Name", "Year", "Price"],
      rows: rows.map { number, product in
        [String(number), product.name, String(product.year), product.price.formatted]
      }, rightAligned: [0, 2, 3], minimumWidths: widths)
  }
}

/// A date as `2026-11-22 05:40`, in the local time zone.
func localTimestamp(_ date: Date) -> String {
  let parts = Calendar.current.dateComponents(
    [.year, .month, .day, .hour, .minute], from: date)
  func two(_ value: Int?) -> String {
    let value = value ?? 0
    return value < 10 ? "0\(value)" : String(value)
  }
  return
    "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute))"
}
