extension Array where Element == String {
  /// The strings one after another, with `separator` between each two: the standard library's
  /// `joined(separator:)` for an array of strings, which calls to it in this package's modules
  /// resolve to instead.
  ///
  /// The standard library's is not specialized for `[String]`: it asks at run time for the
  /// array's iterator type, which is built from its mangled name after a search of every
  /// protocol conformance in the program, in each process that joins strings at all. This one
  /// is compiled for arrays of strings.
  ///
  /// - Parameter separator: What goes between each two strings.
  /// - Returns: The joined string.
  /// - Complexity: O(*n*) in the total length.
  package func joined(separator: String = "") -> String {
    var length = separator.utf8.count * Swift.max(count - 1, 0)
    for element in self { length += element.utf8.count }
    var result = ""
    result.reserveCapacity(length)
    for index in indices {
      if index > startIndex { result += separator }
      result += self[index]
    }
    return result
  }
}
