import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What the system does for user activities on Apple's platforms: it knows the declared
/// activity types, which activity is current, the saved history, and who continues each type.
public final class UserActivityCenter: Sendable {
  private struct State {
    var declaredActivityTypes: Set<String>
    var current: NSUserActivity?
    var history: (any ActivityStore)?
    var handlers: [String: @Sendable (NSUserActivity) throws -> Void] = [:]
  }

  private let state: Mutex<State>
  private let clock: @Sendable () -> Date

  /// The center of activities made with `NSUserActivity(activityType:)`, as the system is an
  /// app's: set its ``declaredActivityTypes`` and its ``history`` once, at launch.
  public static let shared = UserActivityCenter()

  /// Creates a center.
  ///
  /// - Parameters:
  ///   - declaredActivityTypes: The types this program continues, as `NSUserActivityTypes`
  ///     declares them in an app's Info.plist.
  ///   - history: Where activities eligible for search are saved when they become current.
  ///   - clock: The current time; injectable for tests.
  public init(
    declaredActivityTypes: Set<String> = [], history: (any ActivityStore)? = nil,
    clock: @escaping @Sendable () -> Date = { Date() }
  ) {
    state = Mutex(State(declaredActivityTypes: declaredActivityTypes, history: history))
    self.clock = clock
  }

  /// The types this program continues.
  public var declaredActivityTypes: Set<String> {
    get { state.withLock { $0.declaredActivityTypes } }
    set { state.withLock { $0.declaredActivityTypes = newValue } }
  }

  /// Where activities eligible for search are saved when they become current.
  public var history: (any ActivityStore)? {
    get { state.withLock { $0.history } }
    set { state.withLock { $0.history = newValue } }
  }

  /// The current activity, if any.
  public var currentActivity: NSUserActivity? { state.withLock { $0.current } }

  /// Sets what continues activities of a type, like SwiftUI's `onContinueUserActivity`.
  ///
  /// - Parameters:
  ///   - activityType: The type; declare it too.
  ///   - action: The handler, given the activity.
  public func onContinueUserActivity(
    _ activityType: String, perform action: @escaping @Sendable (NSUserActivity) throws -> Void
  ) {
    state.withLock { $0.handlers[activityType] = action }
  }

  /// Checks that an activity can be continued here, now.
  ///
  /// - Parameter record: The activity.
  /// - Throws: ``StateRestorationError/undeclaredType(_:)``, ``StateRestorationError/expired(title:)``
  ///   or ``StateRestorationError/missingRequiredKeys(_:)``.
  public func validateContinuation(of record: UserActivityRecord) throws(StateRestorationError) {
    guard declaredActivityTypes.contains(record.activityType) else {
      throw .undeclaredType(record.activityType)
    }
    guard !record.isExpired(at: clock()) else {
      throw .expired(title: record.title ?? record.activityType)
    }
    let missing = record.missingRequiredKeys
    guard missing.isEmpty else { throw .missingRequiredKeys(missing) }
  }

  /// Continues an activity: checks it, then runs the handler for its type.
  ///
  /// - Parameter record: The activity, as saved or handed off.
  /// - Throws: What ``validateContinuation(of:)`` throws, ``StateRestorationError/noHandler(activityType:)``,
  ///   or what the handler throws.
  public func continueActivity(_ record: UserActivityRecord) throws {
    try validateContinuation(of: record)
    guard let handler = state.withLock({ $0.handlers[record.activityType] }) else {
      throw StateRestorationError.noHandler(activityType: record.activityType)
    }
    try handler(NSUserActivity(record: record, center: self))
  }

  func makeCurrent(_ activity: NSUserActivity, record: UserActivityRecord)
    throws(StateRestorationError)
  {
    var saved = record
    saved.lastActiveDate = clock()
    let history = state.withLock { state in
      state.current = activity
      return state.history
    }
    guard record.isEligibleForSearch, let history else { return }
    do {
      try history.save(saved)
    } catch {
      throw .notSaved(reason: (error as? StateRestorationError)?.errorDescription ?? "\(error)")
    }
  }

  func resign(_ activity: NSUserActivity) {
    state.withLock { state in
      if state.current === activity { state.current = nil }
    }
  }
}
