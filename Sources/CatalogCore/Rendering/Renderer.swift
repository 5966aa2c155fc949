import CatalogModel
import Foundation
import StateRestoration

/// Turns state into the text the REPL prints. Pure: the same state gives the same text.
package struct Renderer<Environment: AppEnvironment> {
  /// Where product pictures are described.
  package let environment: Environment

  /// The product grid: number, name, year, price.
  ///
  /// - Parameter catalog: The catalog.
  /// - Returns: The table, one product a line.
  package func productList(_ catalog: Catalog) -> String {
    guard !catalog.products.isEmpty else { return "The catalog is empty." }
    return productTable(catalog, where: { _ in true })
  }

  /// The list of a year's products, numbered as in the whole catalog so that `select` and
  /// `push` take the numbers shown.
  ///
  /// - Parameters:
  ///   - year: The year.
  ///   - catalog: The catalog.
  /// - Returns: A heading and the table.
  package func yearList(_ year: Int, in catalog: Catalog) -> String {
    let count = catalog.products.count { $0.year == year }
    guard count > 0 else { return "No products from \(year); type 'back' to leave this list." }
    return "Products from \(year) (\(count)):\n" + productTable(catalog, where: { $0.year == year })
  }

  private func productTable(_ catalog: Catalog, where include: (Product) -> Bool) -> String {
    let rows = catalog.products.enumerated().filter { include($0.element) }.map {
      index, product in
      [String(index + 1), product.name, String(product.year), product.price.formatted]
    }
    return Table.render(
      header: ["#", "Name", "Year", "Price"], rows: rows, rightAligned: [0, 2, 3])
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
        [String(index + 1), "product", catalog[identifier]?.name ?? identifier.uuidString]
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
        return product.name + "\n" + picture.map { "  " + $0 }.joined(separator: "\n") + "\n"
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
    let rows = [["Name", draft.name], ["Year", draft.year], ["Price", draft.price]]
    return "Editing \(product.name)\n" + Table.render(rows: rows, indent: 2)
      + "\nChange a field with 'name', 'year' or 'price'; 'done' saves, 'cancel' discards."
  }

  /// Where a scene is: its product's detail, or the product list.
  ///
  /// - Parameters:
  ///   - scene: The scene.
  ///   - catalog: The catalog.
  /// - Returns: The scene's current view.
  package func location(of scene: Scene, in catalog: Catalog) -> String {
    if let year = scene.path.topYear { return yearList(year, in: catalog) }
    guard let product = scene.path.topProduct.flatMap({ catalog[$0] }) else {
      return "At the product list (\(catalog.products.count) products); type 'list' to see them."
    }
    if scene.isEditing { return editor(scene.draft, of: product) }
    return detail(product, tab: scene.selectedTab)
  }

  /// The open scenes, the active one marked with `*`.
  ///
  /// - Parameter state: The state.
  /// - Returns: One scene a line, with where it is.
  package func sceneList(_ state: AppState) -> String {
    let rows = state.scenes.map { scene in
      [
        scene.name == state.activeSceneName ? "*" : " ", scene.name.rawValue,
        Describe.place(of: scene, in: state.catalog).joined(separator: " › "),
      ]
    }
    return Table.render(rows: rows)
  }

  /// The active scene's storage: every key, its value and its type.
  ///
  /// - Parameter scene: The scene.
  /// - Returns: One key a line, sorted by key.
  package func storage(of scene: Scene) -> String {
    guard !scene.storage.isEmpty else { return "Scene '\(scene.name)' has no stored values." }
    let rows = scene.storage.keys.compactMap { key in
      scene.storage.entries[key].map { [key, $0.typeName, Describe.describe($0)] }
    }
    return "Scene '\(scene.name)' (\(scene.phase.rawValue)):\n"
      + Table.render(rows: rows, indent: 2)
  }
}
