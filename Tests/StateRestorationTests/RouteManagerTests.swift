import Foundation
import Observation
import StateRestoration
import Synchronization
import Testing

enum TestRoute: Codable, Hashable, Sendable {
  case item(Int)
  case settings
}

/// Handles `test://item/N` and `test://settings`; rejects `test://item/` without a number.
struct TestLinks: URLProcessor {
  func process(_ url: URL, path: inout [TestRoute]) throws -> Bool {
    guard url.scheme == "test" else { return false }
    switch url.host() {
    case "item":
      guard let number = Int(url.lastPathComponent) else { throw URLError(.badURL) }
      path = [.item(number)]
    case "settings":
      path.append(.settings)
    default:
      return false
    }
    return true
  }
}

/// Handles every URL by appending a marker; it must never be reached after `TestLinks`.
struct Fallback: URLProcessor {
  func process(_ url: URL, path: inout [TestRoute]) throws -> Bool {
    path.append(.item(-1))
    return url.scheme == "fallback"
  }
}

@Suite struct RouteManagerTests {
  static let registry: NavigationTypeRegistry = {
    var registry = NavigationTypeRegistry()
    try? registry.register(TestRoute.self, as: "tests.Route")
    return registry
  }()

  func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

  @Test func routesURLsThroughItsProcessor() throws {
    let routes = RouteManager<TestRoute>(urlProcessor: TestLinks(), navigationPath: [.settings])
    #expect(try routes.process(url("test://item/7")))
    #expect(routes.navigationPath == [.item(7)])
    #expect(try routes.process(url("test://settings")))
    #expect(routes.navigationPath == [.item(7), .settings])
    // Not handled: the path stays as it was.
    #expect(try routes.process(url("other://item/1")) == false)
    #expect(routes.navigationPath == [.item(7), .settings])
    #expect(throws: URLError.self) { try routes.process(url("test://item/seven")) }
    #expect(routes.navigationPath == [.item(7), .settings])
  }

  @Test func pushesAndPopsWithinTheStack() {
    let routes = RouteManager<TestRoute>()
    routes.push(.item(1))
    routes.push(.item(2))
    routes.push(.settings)
    routes.pop()
    #expect(routes.navigationPath == [.item(1), .item(2)])
    routes.pop(5)
    #expect(routes.navigationPath.isEmpty)
    routes.push(.settings)
    routes.popToRoot()
    #expect(routes.navigationPath.isEmpty)
  }

  @Test func reportsEachChangeWithTheNewPath() {
    let routes = RouteManager<TestRoute>()
    let saved = Mutex<[[TestRoute]]>([])
    routes.onPathChange { path in saved.withLock { $0.append(path) } }
    routes.push(.item(1))
    routes.push(.settings)
    routes.pop(0)
    routes.popToRoot()
    routes.popToRoot()
    #expect(saved.withLock { $0 } == [[.item(1)], [.item(1), .settings], []])
  }

  /// Links may arrive on any thread, as deliveries from other processes do.
  @Test func routesFromOtherThreads() async {
    let routes = RouteManager<TestRoute>()
    let changes = Atomic(0)
    routes.onPathChange { _ in changes.add(1, ordering: .relaxed) }
    await withTaskGroup(of: Void.self) { group in
      for item in 1...8 {
        group.addTask { routes.navigationPath = [.item(item)] }
      }
    }
    #expect((1...8).map { [TestRoute.item($0)] }.contains(routes.navigationPath))
    #expect((1...8).contains(changes.load(ordering: .relaxed)))
  }

  @Test func isObservable() {
    let routes = RouteManager<TestRoute>()
    let changes = Atomic(0)
    withObservationTracking {
      _ = routes.navigationPath
    } onChange: {
      changes.add(1, ordering: .relaxed)
    }
    routes.push(.item(1))
    #expect(changes.load(ordering: .relaxed) == 1)
  }

  @Test func savesAndRestoresItsPath() throws {
    let routes = RouteManager<TestRoute>(navigationPath: [.item(1), .settings, .item(3)])
    let data = try #require(routes.toData(using: Self.registry))
    #expect(String(decoding: data, as: UTF8.self).hasPrefix(#"["tests.Route","{\"item\":"#))
    let restored = RouteManager<TestRoute>()
    #expect(restored.restore(from: data, using: Self.registry) == nil)
    #expect(restored.navigationPath == routes.navigationPath)
  }

  @Test func restoresTheLongestPrefixItUnderstands() throws {
    // The root is last: item 1, then an Int where a route belongs, then settings.
    let json =
      #"["tests.Route","{\"settings\":{}}","Swift.Int","2","tests.Route","{\"item\":{\"_0\":1}}"]"#
    let routes = RouteManager<TestRoute>(navigationPath: [.settings])
    let error = routes.restore(from: Data(json.utf8), using: Self.registry)
    #expect(routes.navigationPath == [.item(1)])
    guard case .undecodableValue("Swift.Int", position: 2, _)? = error else {
      Issue.record("unexpected \(String(describing: error))")
      return
    }
    #expect(routes.restore(from: Data("junk".utf8), using: Self.registry) != nil)
    #expect(routes.navigationPath.isEmpty)
  }

  /// A route type of the program's own is saved under its qualified name without
  /// registration, and restored from it.
  @Test func savesAndRestoresAnUnregisteredRouteType() throws {
    let routes = RouteManager<TestRoute>(navigationPath: [.settings, .item(3)])
    let data = try #require(routes.toData(using: .builtIn))
    #expect(String(decoding: data, as: UTF8.self).contains("StateRestorationTests.TestRoute"))
    let restored = RouteManager<TestRoute>()
    #expect(restored.restore(from: data, using: .builtIn) == nil)
    #expect(restored.navigationPath == [.settings, .item(3)])
  }
}
