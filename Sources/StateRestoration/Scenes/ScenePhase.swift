/// Where a scene is in its life, as SwiftUI's `ScenePhase` says.
package enum ScenePhase: String, Sendable, Hashable, Codable, CaseIterable {
  /// The scene takes commands: it is in front.
  case active
  /// The scene is open but another one takes commands.
  case inactive
  /// The program is leaving: every scene is saved.
  case background
}
