import Foundation

extension String {
  /// The string folded for matching: case, diacritics and width removed, so that `GLAÏEUL`,
  /// `glaieul` and full-width `ｇｌａｉｅｕｌ` compare equal.
  package var folded: String {
    folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
  }
}

extension String {
  /// The string cut to 80 characters, for messages that quote what someone typed.
  package var abbreviated: String {
    count <= 80 ? self : prefix(79) + "…"
  }
}
