import Observation
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Turns a URL into a change of a navigation path: one step of deep-link handling.
///
/// A processor handles the URLs it understands and ignores the rest.
public protocol URLProcessor<Route>: Sendable {
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
public protocol UserActivityProcessor<Route>: Sendable {
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
  func process(_ activity: NSUserActivity, path: inout [Route]) throws -> Bool
}

/// Owns a scene's navigation path and routes deep links and continued activities into it, as
/// the route manager of Apple's state-restoration sample does, with its names:
/// ``navigationPath``, ``init(urlProcessor:activityProcessor:navigationPath:)``, `process(_:)`
/// for a deep link and for an activity, ``toData(using:)`` and ``restore(from:using:)``.
///
/// A processor that throws, or does not handle what it is given, leaves the path unchanged.
///
/// The manager is `Observable`: views (and anything else) that read ``navigationPath`` inside
/// `withObservationTracking` hear of each change, and ``onPathChange(_:)`` handlers run after
/// each change with the new path, which is how a scene saves its path on every change:
///
/// ```swift
/// let routes = RouteManager<Route>(urlProcessor: ProductLinks())
/// routes.onPathChange { _ in navigationData = routes.toData() }
/// try routes.process(URL(string: "shop://product/42")!)
/// ```
///
/// It is `Sendable`: links and activities may arrive on any thread. Each change of the path is
/// whole; of two routed at once, the later one's path is kept.
public final class RouteManager<Route: Hashable & Sendable>: Observable, Sendable {
  private struct State {
    var navigationPath: [Route]
    var urlProcessor: (any URLProcessor<Route>)?
    var activityProcessor: (any UserActivityProcessor<Route>)?
    var changeHandlers: [@Sendable ([Route]) -> Void] = []
  }

  private let state: Mutex<State>
  private let registrar = ObservationRegistrar()

  /// The path, root first.
  public var navigationPath: [Route] {
    get {
      registrar.access(self, keyPath: \.navigationPath)
      return state.withLock { $0.navigationPath }
    }
    set { replacePath(with: newValue) }
  }

  /// What turns deep links into paths.
  public var urlProcessor: (any URLProcessor<Route>)? {
    get { state.withLock { $0.urlProcessor } }
    set { state.withLock { $0.urlProcessor = newValue } }
  }

  /// What turns continued activities into paths.
  public var activityProcessor: (any UserActivityProcessor<Route>)? {
    get { state.withLock { $0.activityProcessor } }
    set { state.withLock { $0.activityProcessor = newValue } }
  }

  /// Creates a manager.
  ///
  /// - Parameters:
  ///   - urlProcessor: What turns deep links into paths.
  ///   - activityProcessor: What turns continued activities into paths.
  ///   - navigationPath: The initial path, root first; empty by default.
  public init(
    urlProcessor: (any URLProcessor<Route>)? = nil,
    activityProcessor: (any UserActivityProcessor<Route>)? = nil,
    navigationPath: [Route] = []
  ) {
    state = Mutex(
      State(
        navigationPath: navigationPath, urlProcessor: urlProcessor,
        activityProcessor: activityProcessor))
  }

  /// Adds a handler that runs after each change of the path, with the new path.
  ///
  /// - Parameter handler: The handler.
  public func onPathChange(_ handler: @escaping @Sendable ([Route]) -> Void) {
    state.withLock { $0.changeHandlers.append(handler) }
  }

  /// Sets the path; observers and handlers hear of it when it changed, after it changed.
  private func replacePath(with path: [Route]) {
    let handlers = registrar.withMutation(of: self, keyPath: \.navigationPath) {
      state.withLock { state -> [@Sendable ([Route]) -> Void] in
        guard state.navigationPath != path else { return [] }
        state.navigationPath = path
        return state.changeHandlers
      }
    }
    for handler in handlers { handler(path) }
  }

  /// Pushes a route.
  ///
  /// - Parameter route: The route.
  public func push(_ route: Route) {
    navigationPath.append(route)
  }

  /// Pops routes off the path; at most as many as it has.
  ///
  /// - Parameter count: How many; 1 by default.
  public func pop(_ count: Int = 1) {
    navigationPath.removeLast(min(max(count, 0), navigationPath.count))
  }

  /// Empties the path.
  public func popToRoot() {
    navigationPath.removeAll()
  }

  /// Routes a deep link through ``urlProcessor``.
  ///
  /// - Parameter url: The URL.
  /// - Returns: Whether the processor handled it.
  /// - Throws: What the processor throws; the path is then unchanged.
  @discardableResult
  public func process(_ url: URL) throws -> Bool {
    guard let urlProcessor else { return false }
    return try route { try urlProcessor.process(url, path: &$0) }
  }

  /// Routes a continued activity through ``activityProcessor``.
  ///
  /// - Parameter activity: The activity.
  /// - Returns: Whether the processor handled it.
  /// - Throws: What the processor throws; the path is then unchanged.
  @discardableResult
  public func process(_ activity: NSUserActivity) throws -> Bool {
    guard let activityProcessor else { return false }
    return try route { try activityProcessor.process(activity, path: &$0) }
  }

  private func route(_ step: (inout [Route]) throws -> Bool) throws -> Bool {
    var proposed = navigationPath
    guard try step(&proposed) else { return false }
    navigationPath = proposed
    return true
  }
}

extension RouteManager where Route: Codable {
  /// The path in ``NavigationPath``'s codable representation, as the sample saves it in
  /// `@SceneStorage("navigationState")`.
  ///
  /// - Parameter registry: Names for types written under other names than their own; the
  ///   shared registry by default.
  /// - Returns: The JSON data; nil when a route cannot be encoded (a `Double` that is not
  ///   finite, say), which ``NavigationPath/codableRepresentation(using:)`` names.
  public func toData(using registry: NavigationTypeRegistry = .shared) -> Data? {
    try? NavigationPath(navigationPath).codableRepresentation(using: registry).jsonData
  }

  /// Restores the path from data that ``toData(using:)`` wrote: its longest decodable prefix.
  ///
  /// - Parameters:
  ///   - data: The data.
  ///   - registry: Names for types written under other names than their own; the shared
  ///     registry by default.
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
        navigationPath = routes
        let typeName = _typeName(type(of: decoded.elements[index]), qualified: true)
        return .undecodableValue(
          typeName: typeName, position: index + 1, reason: "not a '\(Route.self)'")
      }
      routes.append(route)
    }
    navigationPath = routes
    return representation.decodingError
  }
}
