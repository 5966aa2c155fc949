import CatalogModel

/// A JSON value for the app's machine-readable output, written with a stable key order.
package enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case array([JSONValue])
  /// An object; keys keep the order given.
  case object([(String, JSONValue)])
  /// Text that is already valid JSON, inserted as is.
  case raw(String)

  package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    lhs.rendered() == rhs.rendered()
  }
  package func hash(into hasher: inout Hasher) { hasher.combine(rendered()) }

  /// The value as JSON text, indented by two spaces per level.
  ///
  /// - Parameter indent: The current indentation level.
  /// - Returns: The JSON text.
  package func rendered(indent: Int = 0) -> String {
    let pad = String(repeating: "  ", count: indent + 1)
    let closing = String(repeating: "  ", count: indent)
    switch self {
    case .null: return "null"
    case .bool(let value): return value ? "true" : "false"
    case .int(let value): return String(value)
    case .double(let value): return value.isFinite ? String(value) : "null"
    case .string(let value): return value.jsonQuoted
    case .raw(let text): return text
    case .array(let items):
      guard !items.isEmpty else { return "[]" }
      return "[\n" + items.map { pad + $0.rendered(indent: indent + 1) }.joined(separator: ",\n")
        + "\n\(closing)]"
    case .object(let members):
      guard !members.isEmpty else { return "{}" }
      return "{\n"
        + members.map { pad + $0.0.jsonQuoted + ": " + $0.1.rendered(indent: indent + 1) }.joined(
          separator: ",\n")
        + "\n\(closing)}"
    }
  }
}
