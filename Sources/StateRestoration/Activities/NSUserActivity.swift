import Synchronization

#if canImport(Glibc)
  import Glibc
#endif
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A unit of what the user is doing that can be saved, searched and continued later or
/// elsewhere: Foundation's `NSUserActivity`, which Foundation on Linux lacks, with its names.
///
/// ```swift
/// let activity = NSUserActivity(activityType: "com.example.product")
/// activity.title = "Show Cherries product"
/// activity.userInfo = ["productID": product.id.uuidString]
/// activity.isEligibleForSearch = true
/// activity.becomeCurrent()  // saved in UserActivityCenter.shared's history
/// ```
///
/// `userInfo` holds property-list values, as on Apple's platforms: strings, numbers, Booleans,
/// dates, data, URLs (kept as strings), and arrays and dictionaries of them. A value of another
/// type keeps the activity from becoming current rather than be dropped: ``becomeCurrent()``
/// says so on standard error, as Foundation does, and ``makeCurrent()`` throws. An activity is
/// safe to use from any thread.
public final class NSUserActivity: Sendable {
  private struct State {
    var record: UserActivityRecord
    var isValid = true
    var needsSave = false
    var willSave: (@Sendable (NSUserActivity) -> Void)?
    /// Why the last `userInfo` set could not be kept whole.
    var rejectedUserInfo: String?
  }

  private let state: Mutex<State>

  /// The center the activity becomes current in.
  public let center: UserActivityCenter

  /// Creates an activity that becomes current in ``UserActivityCenter/shared``, as an app's
  /// activities do in the system.
  ///
  /// - Parameter activityType: The activity's type, reverse-DNS style; declare it in the
  ///   center's ``UserActivityCenter/declaredActivityTypes`` to continue it.
  public convenience init(activityType: String) {
    self.init(activityType: activityType, center: .shared)
  }

  /// Creates an activity that becomes current in a center of the program's own.
  ///
  /// - Parameters:
  ///   - activityType: The activity's type, reverse-DNS style.
  ///   - center: Where it becomes current, and whose history saves it: given explicitly, so
  ///     that no activity is made current where nothing saves it.
  public convenience init(activityType: String, center: UserActivityCenter) {
    self.init(record: UserActivityRecord(activityType: activityType), center: center)
  }

  /// Creates an activity from a saved record, as a continuation delivers it.
  ///
  /// - Parameters:
  ///   - record: The record.
  ///   - center: Where it becomes current, and whose history saves it.
  public init(record: UserActivityRecord, center: UserActivityCenter) {
    state = Mutex(State(record: record))
    self.center = center
  }

  private subscript<Value: Sendable>(field: WritableKeyPath<UserActivityRecord, Value>) -> Value {
    get { state.withLock { $0.record[keyPath: field] } }
    set { state.withLock { $0.record[keyPath: field] = newValue } }
  }

  /// The activity's type.
  public var activityType: String { self[\.activityType] }

  /// The title shown to the user.
  public var title: String? {
    get { self[\.title] }
    set { self[\.title] = newValue }
  }

  /// The activity's state, as Foundation gives it: property-list values under string keys,
  /// read with `as? String`, `as? Int` and the like.
  public var userInfo: [AnyHashable: Any]? {
    get { self[\.userInfo].reduce(into: [:]) { $0[$1.key] = $1.value.foundationValue } }
    set {
      let (values, rejected) = PropertyListValue.entries(of: newValue ?? [:])
      state.withLock {
        $0.record.userInfo = values
        $0.rejectedUserInfo = rejected
      }
    }
  }

  /// The `userInfo` keys needed to continue the activity; becoming current fails without them.
  public var requiredUserInfoKeys: Set<String> {
    get { self[\.requiredUserInfoKeys] }
    set { self[\.requiredUserInfoKeys] = newValue }
  }

  /// Words a search should match besides the title.
  public var keywords: Set<String> {
    get { self[\.keywords] }
    set { self[\.keywords] = newValue }
  }

  /// Whether becoming current saves the activity where search finds it.
  public var isEligibleForSearch: Bool {
    get { self[\.isEligibleForSearch] }
    set { self[\.isEligibleForSearch] = newValue }
  }

  /// Whether the activity may be continued in another scene.
  public var isEligibleForHandoff: Bool {
    get { self[\.isEligibleForHandoff] }
    set { self[\.isEligibleForHandoff] = newValue }
  }

  /// Whether the activity may be indexed for everyone.
  public var isEligibleForPublicIndexing: Bool {
    get { self[\.isEligibleForPublicIndexing] }
    set { self[\.isEligibleForPublicIndexing] = newValue }
  }

  /// The identifier of the content the activity shows.
  public var targetContentIdentifier: String? {
    get { self[\.targetContentIdentifier] }
    set { self[\.targetContentIdentifier] = newValue }
  }

  /// A web page with the same content; only `http` and `https` URLs can become current.
  public var webpageURL: URL? {
    get { self[\.webpageURL] }
    set { self[\.webpageURL] = newValue }
  }

  /// When the activity stops being offered; search never returns it after that.
  public var expirationDate: Date? {
    get { self[\.expirationDate] }
    set { self[\.expirationDate] = newValue }
  }

  /// The identifier under which the activity is saved, for deleting it later.
  public var persistentIdentifier: String? {
    get { self[\.persistentIdentifier] }
    set { self[\.persistentIdentifier] = newValue }
  }

  /// Whether the activity's state is stale: when set, the ``onWillSave(_:)`` handler runs
  /// before the activity is next saved, and this is cleared.
  public var needsSave: Bool {
    get { state.withLock { $0.needsSave } }
    set { state.withLock { $0.needsSave = newValue } }
  }

  /// False once ``invalidate()`` was called.
  public var isValid: Bool { state.withLock { $0.isValid } }

  /// Whether this is its center's current activity.
  public var isCurrent: Bool { center.currentActivity === self }

  /// Everything the activity holds, as a value.
  public var record: UserActivityRecord { self[\.self] }

  /// Sets the handler that brings `userInfo` up to date before the activity is saved, like
  /// `NSUserActivityDelegate.userActivityWillSave(_:)`.
  ///
  /// - Parameter handler: The handler.
  public func onWillSave(_ handler: @escaping @Sendable (NSUserActivity) -> Void) {
    state.withLock { $0.willSave = handler }
  }

  /// Adds entries to `userInfo`, replacing those with the same keys.
  ///
  /// - Parameter entries: The entries: property-list values under string keys.
  public func addUserInfoEntries(from entries: [AnyHashable: Any]) {
    let (values, rejected) = PropertyListValue.entries(of: entries)
    state.withLock {
      $0.record.userInfo.merge(values) { _, new in new }
      if let rejected { $0.rejectedUserInfo = rejected }
    }
  }

  /// Replaces `userInfo` with a `Codable` payload: its coding keys become the user-info keys.
  ///
  /// - Parameter payload: The payload; it must encode as a keyed container.
  /// - Throws: ``StateRestorationError/payloadNotEncodable(reason:)``.
  public func setTypedPayload<Payload: Encodable>(_ payload: Payload) throws(StateRestorationError)
  {
    var record = self.record
    try record.setTypedPayload(payload)
    state.withLock {
      $0.record.userInfo = record.userInfo
      $0.rejectedUserInfo = nil
    }
  }

  /// Decodes `userInfo` as a `Codable` payload.
  ///
  /// - Parameter type: The payload's type.
  /// - Returns: The payload.
  /// - Throws: ``StateRestorationError/payloadNotDecodable(type:reason:)``.
  public func typedPayload<Payload: Decodable>(_ type: Payload.Type) throws(StateRestorationError)
    -> Payload
  {
    try record.typedPayload(type)
  }

  /// Makes this the center's current activity, resigning the previous one; an activity eligible
  /// for search is saved in the center's history. As Foundation's, it does not throw: an
  /// activity that cannot become current (invalidated, a `userInfo` value that is not a
  /// property-list value, a required key missing) stays as it was, and the reason is written on
  /// standard error. ``makeCurrent()`` throws it instead.
  public func becomeCurrent() {
    do {
      try makeCurrent()
    } catch {
      let line = "warning: activity '\(activityType)' did not become current: \(error)\n"
      _ = line.withCString { write(2, $0, strlen($0)) }
    }
  }

  /// Makes this the center's current activity, as ``becomeCurrent()`` does, throwing what keeps
  /// it from becoming current.
  ///
  /// - Throws: ``StateRestorationError/invalidated(activityType:)`` after ``invalidate()``,
  ///   ``StateRestorationError/payloadNotEncodable(reason:)`` for a `userInfo` value that is not
  ///   a property-list value, ``StateRestorationError/missingRequiredKeys(_:)``,
  ///   ``StateRestorationError/unsupportedWebpageURL(_:)``, or
  ///   ``StateRestorationError/notSaved(reason:)`` when the history cannot be written.
  public func makeCurrent() throws(StateRestorationError) {
    let (isValid, handler) = state.withLock { state in
      let handler = state.needsSave ? state.willSave : nil
      state.needsSave = false
      return (state.isValid, handler)
    }
    guard isValid else { throw .invalidated(activityType: activityType) }
    handler?(self)
    if let rejected = state.withLock({ $0.rejectedUserInfo }) {
      throw .payloadNotEncodable(reason: rejected)
    }
    let record = self.record
    let missing = record.missingRequiredKeys
    guard missing.isEmpty else { throw .missingRequiredKeys(missing) }
    if let url = record.webpageURL, !["http", "https"].contains(url.scheme?.lowercased() ?? "") {
      throw .unsupportedWebpageURL(url.absoluteString)
    }
    try center.makeCurrent(self, record: record)
  }

  /// Stops this being the current activity; it may become current again.
  public func resignCurrent() {
    center.resign(self)
  }

  /// Ends the activity for good: it is resigned and can never become current again.
  public func invalidate() {
    state.withLock { $0.isValid = false }
    center.resign(self)
  }
}
