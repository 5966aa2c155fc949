import Synchronization

/// One scene's storage, shared by reference: what `@SceneStorage` properties read and write.
///
/// A store is safe to use from any thread. Every change increments ``changeCount``, so the
/// code that saves a scene can tell whether there is anything to save.
public final class SceneStore: Sendable {
  private struct State {
    var values: SceneStorageValues
    var changeCount = 0
    var setAside: [SetAsideValue] = []
  }

  private let state: Mutex<State>

  /// The store that `@SceneStorage` properties created now bind to; nil outside a scene.
  ///
  /// Bind it around the code that creates your views, as SwiftUI does for the views of a scene:
  ///
  /// ```swift
  /// let view = SceneStore.$current.withValue(scene.storage) { DetailView() }
  /// ```
  @TaskLocal public static var current: SceneStore?

  /// Creates a store holding the given values.
  ///
  /// - Parameter values: The initial contents; empty by default.
  public init(_ values: SceneStorageValues = SceneStorageValues()) {
    state = Mutex(State(values: values))
  }

  /// A snapshot of the contents; setting it replaces them all.
  public var values: SceneStorageValues {
    get { state.withLock { $0.values } }
    set {
      state.withLock {
        guard $0.values != newValue else { return }
        $0.values = newValue
        $0.changeCount += 1
      }
    }
  }

  /// The values kept aside since the last call, because the program set a key whose stored
  /// value it could not read (``SceneStorageValues/setValue(_:for:)``).
  ///
  /// - Returns: The values kept aside, oldest first.
  public func takeSetAsideValues() -> [SetAsideValue] {
    state.withLock { state in
      defer { state.setAside = [] }
      return state.setAside
    }
  }

  /// How many times the contents have changed since the store was created.
  public var changeCount: Int { state.withLock { $0.changeCount } }

  /// The value under a typed key: the key's default when absent or stored as another type.
  ///
  /// - Parameter key: The typed key.
  public subscript<Value>(key: SceneStorageKey<Value>) -> Value {
    get { state.withLock { $0.values[key] } }
    set {
      state.withLock {
        let before = $0.values.entries[key.name]
        if let setAside = $0.values.setValue(newValue, for: key) {
          $0.setAside.append(setAside)
        }
        if $0.values.entries[key.name] != before { $0.changeCount += 1 }
      }
    }
  }
}
