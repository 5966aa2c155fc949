import Foundation
import StateRestoration
import SystemSupport

/// An amount of money in dollars, exact to the cent.
///
/// Prices are kept as whole cents, so `10.99` is exactly ten dollars and ninety-nine cents, and
/// are written to JSON as decimal numbers (`10.99`), never through binary floating point.
package struct Price: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The amount in cents.
  package let cents: Int

  /// The largest price a product may have: one million dollars.
  package static let maximum = Price(cents: 100_000_000)

  /// Creates a price from whole cents.
  ///
  /// - Parameter cents: The amount in cents.
  package init(cents: Int) {
    self.cents = cents
  }

  /// Parses a price as a person types it or a spreadsheet writes it: `10.99`, `10`, `10.5`,
  /// `$10.99`, `1,299.00`, `$1,299` — the one reader of prices, for the editor and imports.
  ///
  /// - Parameter text: The typed text.
  /// - Throws: ``CatalogError/invalidPrice(_:reason:)`` naming what is wrong: negative, not a
  ///   number, more than two fraction digits, or more than 1,000,000.
  package init(parsing text: String) throws {
    var digits = Substring(text.trimmingSpaces)
    if digits.first == "-" { throw CatalogError.invalidPrice(text, reason: "is negative") }
    if digits.first == "$" { digits = digits.dropFirst() }
    digits = Self.ungrouped(digits)
    let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let whole = parts[0]
    let fraction = parts.count > 1 ? parts[1] : ""
    guard !whole.isEmpty || !fraction.isEmpty,
      whole.allSatisfy(\.isASCIIDigit), fraction.allSatisfy(\.isASCIIDigit),
      !(parts.count > 1 && fraction.isEmpty && whole.isEmpty)
    else {
      throw CatalogError.invalidPrice(text, reason: "is not a number like 10.99")
    }
    guard fraction.count <= 2 else {
      throw CatalogError.invalidPrice(text, reason: "has more than two digits after the point")
    }
    let significant = whole.drop { $0 == "0" }
    guard significant.count <= 7, let dollars = Int(significant.isEmpty ? "0" : significant) else {
      throw CatalogError.invalidPrice(text, reason: "is more than $1,000,000.00")
    }
    let paddedFraction = fraction + String(repeating: "0", count: 2 - fraction.count)
    let cents = dollars * 100 + (Int(paddedFraction) ?? 0)
    guard cents <= Self.maximum.cents else {
      throw CatalogError.invalidPrice(text, reason: "is more than $1,000,000.00")
    }
    self.cents = cents
  }

  /// Digits grouped by thousands in `en` style (`1,299.00`) without their commas; anything
  /// else as it is, for the checks to name.
  private static func ungrouped(_ text: Substring) -> Substring {
    guard text.contains(",") else { return text }
    let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let groups = parts[0].split(separator: ",", omittingEmptySubsequences: false)
    guard groups.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }),
      let first = groups.first, first.count <= 3,
      groups.dropFirst().allSatisfy({ $0.count == 3 })
    else { return text }
    return Substring(groups.joined() + (parts.count > 1 ? "." + parts[1] : ""))
  }

  /// Parses a price written as a number in a file: `10.99`, `10`, or with an exponent
  /// (`1.099e1`), exactly.
  ///
  /// - Parameter text: The number's text.
  /// - Throws: ``CatalogError/invalidPrice(_:reason:)``.
  package init(parsingNumber text: String) throws {
    if let cents = Self.plainCents(text) {
      self.init(cents: cents)
      return
    }
    if text.hasPrefix("-") {
      throw CatalogError.invalidPrice(text, reason: "is negative")
    }
    guard text.contains(where: { $0 == "e" || $0 == "E" }) else {
      try self.init(parsing: text)
      return
    }
    guard let amount = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
      amount >= 0, amount <= Self.maximum.decimalValue
    else { throw CatalogError.invalidPrice(text, reason: "is not a number from 0 to 1000000") }
    var cents = amount * 100
    var rounded = Decimal()
    NSDecimalRound(&rounded, &cents, 0, .plain)
    guard rounded == cents else {
      throw CatalogError.invalidPrice(text, reason: "has more than two digits after the point")
    }
    self.init(cents: NSDecimalNumber(decimal: rounded).intValue)
  }

  /// The cents of a plain number with at most seven whole and two fraction digits (`10.99`),
  /// read without Foundation; nil for anything else.
  private static func plainCents(_ text: String) -> Int? {
    var whole = 0
    var wholeDigits = 0
    var fraction = 0
    var fractionDigits = 0
    var seenPoint = false
    for byte in text.utf8 {
      if byte == UInt8(ascii: ".") && !seenPoint {
        seenPoint = true
      } else if (0x30...0x39).contains(byte) {
        if seenPoint {
          fraction = fraction * 10 + Int(byte - 0x30)
          fractionDigits += 1
        } else {
          whole = whole * 10 + Int(byte - 0x30)
          wholeDigits += 1
        }
      } else {
        return nil
      }
      if wholeDigits > 7 || fractionDigits > 2 { return nil }
    }
    guard wholeDigits > 0 else { return nil }
    let cents = whole * 100 + fraction * (fractionDigits == 1 ? 10 : 1)
    return cents <= maximum.cents ? cents : nil
  }

  /// The price as a decimal number of dollars, exactly.
  package var decimalValue: Decimal { Decimal(cents) / 100 }

  /// The price as the user sees it: `$10.99`, `$1,250.00`.
  package var formatted: String { text(symbol: true, grouped: true) }

  /// The price as typed in the editor: `10.99`.
  package var plainText: String { text(symbol: false, grouped: false) }

  /// Writes the price as typed in the editor (``plainText``) as UTF-8 at an address, rather
  /// than into a string: an export writes a million.
  ///
  /// - Parameter address: Where to write; room for ``longestText`` bytes.
  /// - Returns: The number of bytes written.
  package func writePlainText(to address: UnsafeMutablePointer<UInt8>) -> Int {
    write(
      symbol: false, grouped: false,
      into: UnsafeMutableBufferPointer(start: address, count: Self.longestText))
  }

  /// The most bytes the price's text takes: a sign, the symbol, the digits of any `Int`,
  /// their commas and the cents.
  package static let longestText = 32

  /// The digits written into the string's own storage: a whole catalog is listed a price at a
  /// time, and characters appended one by one cost a tenth of a second a million.
  private func text(symbol: Bool, grouped: Bool) -> String {
    String(unsafeUninitializedCapacity: Self.longestText) {
      write(symbol: symbol, grouped: grouped, into: $0)
    }
  }

  /// Writes the price's text at the start of a buffer of at least ``longestText`` bytes.
  ///
  /// - Parameters:
  ///   - symbol: Whether it begins with `$`.
  ///   - grouped: Whether thousands are separated by commas.
  ///   - buffer: Where to write.
  /// - Returns: The number of bytes written.
  private func write(symbol: Bool, grouped: Bool, into buffer: UnsafeMutableBufferPointer<UInt8>)
    -> Int
  {
    var dollars = cents.magnitude / 100
    var digits = 1
    while dollars >= 10 {
      dollars /= 10
      digits += 1
    }
    let commas = grouped ? (digits - 1) / 3 : 0
    let sign = cents < 0 ? 1 : 0
    let length = sign + (symbol ? 1 : 0) + digits + commas + 3
    var value = cents.magnitude
    var index = length
    func put(_ byte: UInt8) {
      index -= 1
      buffer[index] = byte
    }
    put(UInt8(truncatingIfNeeded: value % 10) + 0x30)
    value /= 10
    put(UInt8(truncatingIfNeeded: value % 10) + 0x30)
    value /= 10
    put(0x2E)
    for written in 0..<digits {
      if grouped && written > 0 && written % 3 == 0 { put(0x2C) }
      put(UInt8(truncatingIfNeeded: value % 10) + 0x30)
      value /= 10
    }
    if symbol { put(0x24) }
    if sign == 1 { put(0x2D) }
    return length
  }

  /// The price as the user sees it: `$10.99`.
  package var description: String { formatted }

  /// Orders prices by amount.
  package static func < (lhs: Price, rhs: Price) -> Bool { lhs.cents < rhs.cents }
}

extension Price: Codable {
  /// Decodes a JSON number such as `10.99`, through the price's JSON codec
  /// (``init(json:)``).
  ///
  /// - Throws: `DecodingError` when it is not a number, or is negative, above the maximum or
  ///   has fractions of a cent.
  package init(from decoder: any Decoder) throws {
    try self.init(decodingJSONFrom: decoder)
  }

  /// Encodes the price as a JSON number, through its JSON codec: `10.99`.
  package func encode(to encoder: any Encoder) throws {
    try encodeJSON(to: encoder)
  }
}

extension Price: JSONRepresentable {
  /// Reads a JSON number such as `10.99`, as `init(from:)` does.
  ///
  /// - Parameter json: The JSON.
  /// - Throws: `JSONReadError` when it is not a number, or is negative, above the maximum or
  ///   has fractions of a cent.
  package init(json: JSONValue) throws(JSONReadError) {
    guard case .number(let text) = json else { throw JSONReadError("expected a price") }
    do {
      try self.init(parsingNumber: text)
    } catch {
      throw JSONReadError("price \(text) is not a whole number of cents in 0...1000000")
    }
  }

  /// The price as a JSON number such as `10.99`.
  package var json: JSONValue { .number(text(symbol: false, grouped: false)) }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
