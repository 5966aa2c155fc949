import Observation

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Turns a URL into a change of a navigation path: one step of deep-link handling.
///
/// A processor claims the URLs it understands and ignores the rest, so that a
/// ``RouteManager`` can ask several in turn.
public protocol URLProcessor<Route> {
  /// The elements of the path.
  associatedtype Route: Hashable & Sendable

  /// Rewrites the path for a URL, if the URL is one this processor handles.
  ///
  /// - Parameters:
  ///   - url: The URL.
  ///   - path: The path, root first; changes to it are kept only when this returns true.
  /// - Returns: Whether this processor handled the URL.
  /// - Throws: An error naming what is wrong with a URL it handles; the path is then left
  ///   as it was.
  func process(_ url: URL, path: inout [Route]) throws -> Bool
}

/// Turns a user activity into a change of a navigation path: one step of continuing an
/// activity, as `onContinueUserActivity` handlers do in SwiftUI apps.
public protocol UserActivityProcessor<Route> {
  /// The elements of the path.
  associatedtype Route: Hashable & Sendable

  /// Rewrites the path for an activity, if it is one this processor handles.
  ///
  /// - Parameters:
  ///   - activity: The activity being continued.
  ///   - path: The path, root first; changes to it are kept only when this returns true.
  /// - Returns: Whether this processor handled the activity.
  /// - Throws: An error saying why an activity it handles cannot be continued (its payload
  ///   names something that is gone, say); the path is then left as it was.
  func process(_ activity: UserActivity, path: inout [Route]) throws -> Bool
}

/// Owns a scene's navigation path and routes deep links into it, like the route managers of
/// SwiftUI apps.
///
/// Deep links go through ``urlProcessors`` and continued activities through
/// ``userActivityProcessors``; each is asked in turn until one handles it, and a processor that
/// throws leaves the path unchanged.
///
/// The manager is `Observable`: views (and anything else) that read ``path`` inside
/// `withObservationTracking` hear of each change, and ``onPathChange(_:)`` handlers run after
/// each change with the new path, which is how a scene saves its path on every change:
///
/// ```swift
/// let routes = RouteManager<Route>(urlProcessors: [ProductLinks()])
/// routes.onPathChange { _ in
///   storage[navigationStateKey] = try? routes.toData()
/// }
/// try routes.open(url)
/// ```
@Observable
public final class RouteManager<Route: Hashable & Sendable> {
  /// The navigation path, root first.
  public var path: [Route] {
    didSet {
      guard path != oldValue else { return }
      for handler in changeHandlers { handler(path) }
    }
  }

  /// The processors ``open(_:)`` asks, in order.
  @ObservationIgnored public var urlProcessors: [any URLProcessor<Route>]

  /// The processors ``continueActivity(_:)`` asks, in order.
  @ObservationIgnored public var userActivityProcessors: [any UserActivityProcessor<Route>]

  @ObservationIgnored private var changeHandlers: [([Route]) -> Void] = []

  /// Creates a manager.
  ///
  /// - Parameters:
  ///   - path: The initial path, root first.
  ///   - urlProcessors: The processors for ``open(_:)``, asked in order.
  ///   - userActivityProcessors: The processors for ``continueActivity(_:)``, asked in order.
  public init(
    path: [Route] = [], urlProcessors: [any URLProcessor<Route>] = [],
    userActivityProcessors: [any UserActivityProcessor<Route>] = []
  ) {
    self.path = path
    self.urlProcessors = urlProcessors
    self.userActivityProcessors = userActivityProcessors
  }

  /// Calls a handler after every change of ``path``, with the new path.
  ///
  /// - Parameter handler: The handler; it is kept as long as the manager.
  public func onPathChange(_ handler: @escaping ([Route]) -> Void) {
    changeHandlers.append(handler)
  }

  /// Pushes a route.
  ///
  /// - Parameter route: The route to show on top.
  public func push(_ route: Route) {
    path.append(route)
  }

  /// Pops routes off the path.
  ///
  /// - Parameter count: How many; the path stops at the root.
  public func pop(_ count: Int = 1) {
    path.removeLast(min(max(count, 0), path.count))
  }

  /// Pops to the root.
  public func popToRoot() {
    path.removeAll()
  }

  /// Routes a URL through the processors; the first that handles it changes the path.
  ///
  /// - Parameter url: The URL.
  /// - Returns: Whether a processor handled it; false leaves the path as it was.
  /// - Throws: The error of a processor that rejected the URL; the path is left as it was.
  @discardableResult
  public func open(_ url: URL) throws -> Bool {
    try route(through: urlProcessors.map { processor in { try processor.process(url, path: &$0) } })
  }

  /// Continues an activity through the processors; the first that handles it changes the path.
  ///
  /// - Parameter activity: The activity.
  /// - Returns: Whether a processor handled it; false leaves the path as it was.
  /// - Throws: The error of a processor that rejected the activity; the path is left as it was.
  @discardableResult
  public func continueActivity(_ activity: UserActivity) throws -> Bool {
    try route(
      through: userActivityProcessors.map { processor in
        { try processor.process(activity, path: &$0) }
      })
  }

  /// Asks each step in turn to rewrite a copy of the path; the first that handles it wins.
  private func route(through steps: [(inout [Route]) throws -> Bool]) throws -> Bool {
    for step in steps {
      var proposed = path
      if try step(&proposed) {
        path = proposed
        return true
      }
    }
    return false
  }
}

extension RouteManager where Route: Codable {
  /// The path in ``NavigationPath``'s codable representation.
  ///
  /// - Parameter registry: Where `Route` is registered; the shared registry by default.
  /// - Returns: The JSON data.
  /// - Throws: ``StateRestorationError/encodingFailed(position:typeName:reason:)`` for a route
  ///   that cannot be written.
  public func toData(using registry: NavigationTypeRegistry = .shared) throws(StateRestorationError)
    -> Data
  {
    try NavigationPath(path).codableRepresentation(using: registry).jsonData
  }

  /// Restores the path from data that ``toData(using:)`` wrote: its longest decodable prefix.
  ///
  /// - Parameters:
  ///   - data: The data.
  ///   - registry: Where `Route` is registered; the shared registry by default.
  /// - Returns: Why part of the path was dropped, or nil when it was restored whole.
  @discardableResult
  public func restore(from data: Data, using registry: NavigationTypeRegistry = .shared)
    -> StateRestorationError?
  {
    let representation = NavigationPath.CodableRepresentation(jsonData: data, registry: registry)
    let decoded = NavigationPath(representation)
    var routes: [Route] = []
    for index in 0..<decoded.count {
      guard let route = decoded.element(at: index, as: Route.self) else {
        path = routes
        let typeName = _typeName(type(of: decoded.elements[index]), qualified: true)
        return .undecodableValue(
          typeName: typeName, position: index + 1, reason: "not a '\(Route.self)'")
      }
      routes.append(route)
    }
    path = routes
    return representation.decodingError
  }
}
