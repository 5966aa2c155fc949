import CatalogModel
import Foundation
import StateRestoration
import SystemSupport

/// The sample's one activity type and its payload (SPEC section 7).
package enum ProductActivity {
  /// The activity type the app declares; continuing any other is an error.
  package static let type = "com.example.apple-samplecode.staterestore.product"

  /// The types the app continues.
  package static let declaredTypes: Set<String> = [type]

  /// The typed payload: its coding keys are the user-info keys.
  package struct Payload: Codable, Hashable, Sendable {
    package var identifier: UUID
    package var name: String
    package var imageName: String
    package var year: Int
    package var price: Price

    package init(_ product: Product) {
      identifier = product.identifier
      name = product.name
      imageName = product.imageName
      year = product.year
      price = product.price
    }
  }

  /// *Show NAME product*: what a scene advertises while the product's detail is on top.
  ///
  /// - Parameter product: The product.
  /// - Returns: The activity, eligible for search and handoff.
  package static func show(_ product: Product) -> UserActivityRecord {
    var record = activity(for: product, title: "Show \(product.name) product")
    record.isEligibleForSearch = true
    record.isEligibleForHandoff = true
    record.persistentIdentifier = product.identifier.canonicalText
    return record
  }

  /// *Dropped product NAME*: what dragging a product to a new scene hands it.
  ///
  /// - Parameter product: The product.
  /// - Returns: The activity, not saved for search.
  package static func dropped(_ product: Product) -> UserActivityRecord {
    var record = activity(for: product, title: "Dropped product \(product.name)")
    record.isEligibleForSearch = false
    return record
  }

  /// The payload as user info: what `setTypedPayload(Payload(product))` makes, built without
  /// its round trip through JSON, because a search builds one for each result and that round
  /// trip is a large part of a search started from the shell. A price in whole dollars is an
  /// integer, as the JSON of its decimal reads back.
  ///
  /// - Parameter product: The product.
  /// - Returns: The user info.
  package static func userInfo(_ product: Product) -> [String: PropertyListValue] {
    let cents = product.price.cents
    return [
      "identifier": .string(product.identifier.canonicalText), "name": .string(product.name),
      "imageName": .string(product.imageName), "year": .int(product.year),
      // Both the quotient and the parsed decimal are the double nearest to cents / 100.
      "price": cents % 100 == 0 ? .int(cents / 100) : .double(Double(cents) / 100),
    ]
  }

  private static func activity(for product: Product, title: String) -> UserActivityRecord {
    var record = UserActivityRecord(activityType: type)
    record.title = title
    record.userInfo = userInfo(product)
    record.requiredUserInfoKeys = ["identifier"]
    record.targetContentIdentifier = product.identifier.canonicalText
    record.keywords = Set(product.keywords)
    return record
  }
}

/// Continues product activities into a scene's path: the product's detail, as the sample's
/// `onContinueUserActivity` handler does. A payload naming a product no longer in the catalog
/// is an error.
package struct ProductActivityProcessor: UserActivityProcessor {
  /// Where products are looked up.
  package var catalog: Catalog

  package init(catalog: Catalog) {
    self.catalog = catalog
  }

  package func process(_ activity: NSUserActivity, path: inout [Route]) throws -> Bool {
    guard activity.activityType == ProductActivity.type else { return false }
    let payload = try activity.typedPayload(ProductActivity.Payload.self)
    guard catalog[payload.identifier] != nil else {
      throw CatalogCoreError.activityProductGone(name: payload.name)
    }
    path = [.product(payload.identifier)]
    return true
  }
}

extension Scene {
  /// The activity this scene advertises: *Show NAME product* while a product's detail is on
  /// top of its path.
  package func advertisedActivity(in catalog: Catalog) -> UserActivityRecord? {
    path.topProduct.flatMap { catalog[$0] }.map(ProductActivity.show)
  }
}
