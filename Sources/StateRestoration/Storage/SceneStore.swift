import Synchronization

/// One scene's storage, shared by reference: what `@SceneStorage` properties read and write.
///
/// A store is safe to use from any thread. It counts its changes, so that saving a scene that
/// did not change writes nothing.
public final class SceneStore: Sendable {
  private struct State {
    var values: SceneStorageValues
    var changeCount = 0
    var setAside: [SetAsideValue] = []
    /// Runs after each change, outside the lock: the session's saving of every change.
    var onChange: (@Sendable () -> Void)?
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

  /// The one scene a program opened with ``SessionStore/open(_:)``, which `@SceneStorage`
  /// binds to outside ``current``; nil while none or several are open.
  static let programScene = Mutex<SceneStore?>(nil)

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
      let changed = state.withLock { state -> (@Sendable () -> Void)?? in
        guard state.values != newValue else { return nil }
        state.values = newValue
        state.changeCount += 1
        return .some(state.onChange)
      }
      if case let onChange?? = changed { onChange() }
    }
  }

  /// The values kept aside since the last call, because the program set a key whose stored
  /// value it could not read (``SceneStorageValues/setValue(_:for:)``).
  ///
  /// - Returns: The values kept aside, oldest first.
  package func takeSetAsideValues() -> [SetAsideValue] {
    state.withLock { state in
      defer { state.setAside = [] }
      return state.setAside
    }
  }

  /// Sets what runs after each change.
  func onChange(_ action: (@Sendable () -> Void)?) {
    state.withLock { $0.onChange = action }
  }

  /// How many times the contents have changed since the store was created.
  package var changeCount: Int { state.withLock { $0.changeCount } }

  /// The value under a typed key: the key's default when absent or stored as another type.
  ///
  /// - Parameter key: The typed key.
  public subscript<Value>(key: SceneStorageKey<Value>) -> Value {
    get { state.withLock { $0.values[key] } }
    set {
      let changed = state.withLock { state -> (@Sendable () -> Void)?? in
        let before = state.values.entries[key.name]
        if let setAside = state.values.setValue(newValue, for: key) {
          state.setAside.append(setAside)
        }
        guard state.values.entries[key.name] != before else { return nil }
        state.changeCount += 1
        return .some(state.onChange)
      }
      if case let onChange?? = changed { onChange() }
    }
  }
}
