extension Int {
  /// The number with thousands separated by commas: `1,000,000`.
  package var grouped: String {
    let digits = String(magnitude)
    var text = self < 0 ? "-" : ""
    for (offset, digit) in digits.enumerated() {
      if offset > 0 && (digits.count - offset) % 3 == 0 { text.append(",") }
      text.append(digit)
    }
    return text
  }
}
