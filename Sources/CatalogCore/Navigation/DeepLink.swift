import Foundation
import StateRestoration

/// A `catalog:` URL (SPEC section 6), parsed and checked in form; the product it names is
/// looked up when it is applied.
package struct DeepLink: Sendable, Hashable {
  /// What the link shows.
  package enum Destination: Sendable, Hashable {
    /// `catalog://products`: the product list.
    case products
    /// `catalog://product/ID[/edit][?tab=…]`: a product by UUID or name.
    case product(String, tab: Tabs?, edit: Bool)
    /// `catalog://year/YYYY`: the year's list.
    case year(Int)
    /// `catalog://search?q=TEXT`: a search.
    case search(String)
    /// `catalog://scene/NAME`: the scene alone, as it is.
    case scene
  }

  /// The scene the link targets; nil for the active scene.
  package var scene: SceneName?
  /// What it shows there.
  package var destination: Destination

  /// What the link names its product by, as written (`catalog://product/ID`); nil for a link
  /// to no product.
  package var namedProduct: String? {
    guard case .product(let product, _, _) = destination else { return nil }
    return product
  }

  /// The longest URL accepted, in bytes.
  package static let maximumLength = 4096

  /// Parses a URL.
  ///
  /// - Parameter text: The URL as typed.
  /// - Returns: The link.
  /// - Throws: ``CatalogCoreError/invalidLink(_:problem:)`` naming the bad part.
  package static func parse(_ text: String) throws -> DeepLink {
    func fail(_ problem: String) -> CatalogCoreError {
      .invalidLink(text, problem: problem)
    }
    guard text.utf8.count <= maximumLength else {
      throw fail("it is \(text.utf8.count) bytes long; the limit is \(maximumLength)")
    }
    guard let colon = text.firstIndex(of: ":") else {
      throw fail("it has no scheme; links look like 'catalog://product/Cherries'")
    }
    let scheme = text[..<colon]
    guard scheme.lowercased() == "catalog" else {
      throw fail("the scheme '\(scheme)' is not 'catalog'")
    }
    var rest = text[text.index(after: colon)...]
    guard rest.hasPrefix("//") else {
      throw fail("'catalog:' must be followed by '//', as in 'catalog://products'")
    }
    rest = rest.dropFirst(2)
    if let hash = rest.firstIndex(of: "#") {
      throw fail("the fragment '\(rest[hash...])' is not allowed")
    }
    var query: [String: String] = [:]
    if let question = rest.firstIndex(of: "?") {
      query = try parseQuery(rest[rest.index(after: question)...], fail: fail)
      rest = rest[..<question]
    }
    var segments = try rest.split(separator: "/", omittingEmptySubsequences: false).map {
      raw -> String in
      guard let decoded = String(raw).removingPercentEncoding else {
        throw fail("'\(raw)' has a bad percent-encoding")
      }
      guard decoded != "..", decoded != "." else {
        throw fail("'\(decoded)' segments are not allowed")
      }
      return decoded
    }
    // One trailing slash is harmless: `catalog://products/`.
    if segments.count > 1, segments.last == "" { segments.removeLast() }
    if let empty = segments.firstIndex(of: "") {
      throw fail(empty == 0 ? "it names no destination" : "it has an empty path segment")
    }
    if let at = segments[0].firstIndex(of: "@") {
      throw fail("user information ('\(segments[0][..<at])@') is not allowed")
    }
    var scene: SceneName?
    if segments[0].lowercased() == "scene" {
      guard segments.count >= 2 else { throw fail("'scene' needs a scene name") }
      guard let name = SceneName(segments[1]) else {
        throw fail("'\(segments[1])' is not a valid scene name")
      }
      scene = name
      segments.removeFirst(2)
      if segments.first?.lowercased() == "scene" { throw fail("a scene link cannot nest another") }
    }
    let destination = try parseDestination(segments, query: query, fail: fail)
    return DeepLink(scene: scene, destination: destination)
  }

  private static func parseDestination(
    _ segments: [String], query: [String: String], fail: (String) -> CatalogCoreError
  ) throws -> Destination {
    func allowQuery(_ keys: Set<String>) throws {
      if let unknown = query.keys.sorted().first(where: { !keys.contains($0) }) {
        throw fail("the query parameter '\(unknown)' is not allowed here")
      }
    }
    func noMoreSegments(after count: Int) throws {
      if segments.count > count {
        throw fail("unexpected '\(segments[count...].joined(separator: "/"))'")
      }
    }
    guard let kind = segments.first else {
      try allowQuery([])
      return .scene
    }
    switch kind.lowercased() {
    case "products":
      try noMoreSegments(after: 1)
      try allowQuery([])
      return .products
    case "product":
      guard segments.count >= 2 else { throw fail("'product' needs a product UUID or name") }
      let reference = segments[1]
      if Int(reference) != nil {
        throw fail("'\(reference)' is a list number; links name a product by UUID or name")
      }
      var edit = false
      if segments.count >= 3 {
        guard segments[2].lowercased() == "edit" else {
          throw fail(
            "unexpected '\(segments[2...].joined(separator: "/"))'; only 'edit' may follow")
        }
        edit = true
      }
      try noMoreSegments(after: 3)
      try allowQuery(["tab"])
      var tab: Tabs?
      if let name = query["tab"] {
        guard let parsed = Tabs(rawValue: name.lowercased()) else {
          throw fail("the tab '\(name)' is not 'detail' or 'photo'")
        }
        tab = parsed
      }
      return .product(reference, tab: tab, edit: edit)
    case "year":
      guard segments.count >= 2 else { throw fail("'year' needs a year") }
      try noMoreSegments(after: 2)
      try allowQuery([])
      guard segments[1].allSatisfy(\.isASCII), let year = Int(segments[1]) else {
        throw fail("'\(segments[1])' is not a year")
      }
      guard Route.years.contains(year) else {
        throw fail(
          "the year \(year) is outside \(Route.years.lowerBound)...\(Route.years.upperBound)")
      }
      return .year(year)
    case "search":
      try noMoreSegments(after: 1)
      try allowQuery(["q"])
      guard let text = query["q"], !text.trimmed.isEmpty else {
        throw fail("'search' needs a query, as in 'catalog://search?q=cherries'")
      }
      return .search(text)
    default:
      throw fail(
        "the destination '\(kind)' is unknown; use products, product, year, search or scene")
    }
  }

  private static func parseQuery(_ text: Substring, fail: (String) -> CatalogCoreError) throws
    -> [String: String]
  {
    var query: [String: String] = [:]
    for pair in text.split(separator: "&", omittingEmptySubsequences: false) {
      guard !pair.isEmpty else { throw fail("the query has an empty parameter") }
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      func decode(_ part: Substring) throws -> String {
        guard
          let decoded = String(part).replacingOccurrences(of: "+", with: " ")
            .removingPercentEncoding
        else {
          throw fail("'\(part)' has a bad percent-encoding")
        }
        return decoded
      }
      let key = try decode(parts[0])
      guard parts.count == 2, !parts[1].isEmpty else {
        throw fail("the query parameter '\(key)' has no value")
      }
      guard query[key] == nil else { throw fail("the query parameter '\(key)' is repeated") }
      query[key] = try decode(parts[1])
    }
    return query
  }
}
