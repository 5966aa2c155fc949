import Foundation

extension String {
  /// The string folded for matching: case, diacritics and width removed, so that `GLAÏEUL`,
  /// `glaieul` and full-width `ｇｌａｉｅｕｌ` compare equal.
  package var folded: String {
    folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
  }
}
