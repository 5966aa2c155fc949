/// A list cut into pages, with arithmetic that cannot overflow: the total may come from a file
/// (a damaged catalog's largest list number, a history's count) and a page number from the user.
package struct Paging: Sendable, Hashable {
  /// The number of items, never negative.
  package let total: Int
  /// Items a page, at least 1.
  package let size: Int

  /// Pages of a list.
  ///
  /// - Parameters:
  ///   - total: The number of items; a negative one counts as none.
  ///   - size: Items a page; less than 1 counts as 1.
  package init(total: Int, size: Int) {
    self.total = max(0, total)
    self.size = max(1, size)
  }

  /// The number of pages; 0 for an empty list.
  package var pages: Int { total / size + (total % size == 0 ? 0 : 1) }

  /// The item numbers (from 1) on a page.
  ///
  /// - Parameter page: The page, from 1.
  /// - Returns: The range, or nil for a page before the first or past the last.
  package func numbers(onPage page: Int) -> ClosedRange<Int>? {
    guard page >= 1, page <= pages else { return nil }
    // page ≤ pages, so (page - 1) × size < total: nothing here can overflow.
    let first = (page - 1) * size + 1
    return first...(first + min(size, total - first + 1) - 1)
  }

  /// The offset (from 0) of a page's first item, for a query's `OFFSET`.
  ///
  /// - Parameter page: The page, from 1.
  /// - Returns: The offset, or nil for a page before the first or past the last.
  package func offset(ofPage page: Int) -> Int? {
    numbers(onPage: page).map { $0.lowerBound - 1 }
  }
}
