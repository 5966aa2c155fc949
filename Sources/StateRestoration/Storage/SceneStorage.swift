import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A property wrapper that reads and writes a value in the current scene's storage, like
/// SwiftUI's `SceneStorage`.
///
/// ```swift
/// struct DetailView {
///   @SceneStorage("DetailView.selectedTab") var selectedTab = Tabs.detail
///   @SceneStorage("ContentView.selectedProduct") var selectedProduct: String?
/// }
/// let view = SceneStore.$current.withValue(scene.storage) { DetailView() }
/// view.selectedTab = .photo  // stored in the scene, restored at the next launch
/// ```
///
/// The wrapper binds to ``SceneStore/current`` when it is created inside
/// `SceneStore.$current.withValue(_:)`, as a SwiftUI view's storage binds to its scene. Created
/// elsewhere, it binds to the scene the program opened with ``SessionStore/open(_:)`` when it
/// opened one: in a one-scene program, storage declared anywhere is the scene's. With no scene
/// to bind to, it keeps its value in a store of its own that is never saved, and says so once
/// on standard error, as SwiftUI warns of state used outside a view. It accepts the
/// types SwiftUI accepts (`Bool`, `Int`, `Double`, `String`, `URL`, `Data`, `RawRepresentable`
/// with `String` or `Int` raw values, and their optionals), `Date`, and any `Codable` type.
/// A value stored under one type and read as another yields the default value.
@propertyWrapper
public struct SceneStorage<Value: Sendable>: Sendable {
  /// The typed key the property reads and writes.
  public let key: SceneStorageKey<Value>
  /// The scene it was created in, if any.
  private let scene: SceneStore?
  /// Where its value is kept while there is no scene to bind to.
  private let unbound: SceneStore

  private init(key: SceneStorageKey<Value>) {
    self.key = key
    self.scene = SceneStore.current
    self.unbound = SceneStore()
  }

  /// The scene storage the property is bound to: the scene it was created in, or else the
  /// program's one scene, or else a store of its own that is never saved.
  public var store: SceneStore {
    if let scene { return scene }
    if let program = SceneStore.programScene.withLock({ $0 }) { return program }
    UnboundStorage.warnOnce(key: key.name)
    return unbound
  }

  /// The stored value, or the default when it is absent or of another type.
  public var wrappedValue: Value {
    get { store[key] }
    nonmutating set { store[key] = newValue }
  }

  /// The wrapper itself, for access to its ``key`` and ``store``.
  public var projectedValue: SceneStorage<Value> { self }

  /// A property stored natively: `Bool`, `Int`, `Double`, `String`, `URL`, `Data`, `Date`.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value.
  ///   - key: The key's name in the scene's storage.
  public init(wrappedValue: Value, _ key: String) where Value: SceneStorable {
    self.init(key: SceneStorageKey(key, default: wrappedValue))
  }

  /// A property stored through its `String` raw value.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value.
  ///   - key: The key's name in the scene's storage.
  public init(wrappedValue: Value, _ key: String)
  where Value: RawRepresentable, Value.RawValue == String {
    self.init(key: SceneStorageKey(key, default: wrappedValue))
  }

  /// A property stored through its `Int` raw value.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value.
  ///   - key: The key's name in the scene's storage.
  public init(wrappedValue: Value, _ key: String)
  where Value: RawRepresentable, Value.RawValue == Int {
    self.init(key: SceneStorageKey(key, default: wrappedValue))
  }

  /// A `Codable` property with a `String` raw value, stored through the raw value.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value.
  ///   - key: The key's name in the scene's storage.
  public init(wrappedValue: Value, _ key: String)
  where Value: RawRepresentable & Codable, Value.RawValue == String {
    self.init(key: SceneStorageKey(key, default: wrappedValue))
  }

  /// A `Codable` property with an `Int` raw value, stored through the raw value.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value.
  ///   - key: The key's name in the scene's storage.
  public init(wrappedValue: Value, _ key: String)
  where Value: RawRepresentable & Codable, Value.RawValue == Int {
    self.init(key: SceneStorageKey(key, default: wrappedValue))
  }

  /// A property of any `Codable` type, stored as its JSON encoding.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value.
  ///   - key: The key's name in the scene's storage.
  public init(wrappedValue: Value, _ key: String) where Value: Codable {
    self.init(key: SceneStorageKey(key, default: wrappedValue))
  }

  /// An optional property stored natively; nil by default, and setting nil removes the key.
  ///
  /// - Parameter key: The key's name in the scene's storage.
  public init<Wrapped>(_ key: String) where Value == Wrapped?, Wrapped: SceneStorable {
    self.init(key: SceneStorageKey(key))
  }

  /// An optional property stored through its `String` raw value; setting nil removes the key.
  ///
  /// - Parameter key: The key's name in the scene's storage.
  public init<Wrapped>(_ key: String)
  where Value == Wrapped?, Wrapped: RawRepresentable & Sendable, Wrapped.RawValue == String {
    self.init(key: SceneStorageKey(key))
  }

  /// An optional property stored through its `Int` raw value; setting nil removes the key.
  ///
  /// - Parameter key: The key's name in the scene's storage.
  public init<Wrapped>(_ key: String)
  where Value == Wrapped?, Wrapped: RawRepresentable & Sendable, Wrapped.RawValue == Int {
    self.init(key: SceneStorageKey(key))
  }

  /// An optional `Codable` property; setting nil removes the key.
  ///
  /// - Parameter key: The key's name in the scene's storage.
  public init<Wrapped>(_ key: String) where Value == Wrapped?, Wrapped: Codable & Sendable {
    self.init(key: SceneStorageKey(key))
  }
}

/// The one warning of storage used with no scene to bind to.
private enum UnboundStorage {
  private static let warned = Atomic<Bool>(false)

  static func warnOnce(key: String) {
    guard !warned.exchange(true, ordering: .relaxed) else { return }
    let line =
      "warning: @SceneStorage(\"\(key)\") is used with no scene open, so its value is not saved; "
      + "open a scene with SessionStore.open(_:) first, or create it inside SceneStore.$current.withValue(_:)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
  }
}
