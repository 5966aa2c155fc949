/// What a command's argument is: how the parser reads it and what completion offers for it.
enum ArgumentKind: Sendable, Equatable {
  /// A product's name (or number): the rest of the line.
  case product
  /// An open or saved scene's name: one word.
  case scene
  /// A `catalog://` link: the rest of the line.
  case link
  /// A command's word: the rest of the line.
  case command
  /// One of some words: one word.
  case choice([String])
  /// Anything (a new name, a price): the rest of the line.
  case text
  /// The rest of the line as typed, quotes kept (a search, whose quotes mark phrases).
  case query
  /// Anything, one word (a new scene's name, a year).
  case word
  /// A number from 1, one word; the text says what it numbers, for an error.
  case number(String)
  /// A page number from 1, one word.
  case page

  /// Whether it takes the rest of the line, spaces and all; otherwise one word.
  var takesRest: Bool {
    switch self {
    case .product, .link, .command, .text, .query: true
    case .scene, .choice, .word, .number, .page: false
    }
  }

  /// Whether completion offers anything for it.
  var offersCandidates: Bool {
    switch self {
    case .product, .scene, .link, .command, .choice: true
    case .text, .query, .word, .number, .page: false
    }
  }
}

/// One argument of a command's form: its name, as usage shows it, and what it is.
struct Argument: Sendable {
  /// The name usage shows (`PRODUCT`, `N`).
  let name: String
  /// What it is.
  let kind: ArgumentKind
  /// Whether the form is complete without it.
  let isOptional: Bool

  /// A required argument.
  static func required(_ name: String, _ kind: ArgumentKind) -> Argument {
    Argument(name: name, kind: kind, isOptional: false)
  }

  /// An argument that may be left out.
  static func optional(_ name: String, _ kind: ArgumentKind) -> Argument {
    Argument(name: name, kind: kind, isOptional: true)
  }
}

/// A flag a form may be given: a switch (`--force`), or one that takes a value
/// (`--scene NAME`).
struct Flag: Sendable {
  /// The flag, with its dashes.
  let name: String
  /// What it takes; nil for a switch.
  let value: Argument?

  init(_ name: String, value: Argument? = nil) {
    self.name = name
    self.value = value
  }
}

/// One form of a command, as usage shows it: `scene close [NAME] [--discard]`, `list --all`.
/// A form is chosen by its action word (`scene new`) or by the flag that selects it
/// (`list --all`); otherwise the plain forms are tried in order (`forget N`, then
/// `forget PRODUCT`).
struct CommandForm: Sendable {
  /// The action word after the command's (`new` of `scene new`); nil for none.
  var action: String?
  /// The flag that makes this form (`--all` of `list --all`); nil for none.
  var selector: String?
  /// The arguments, in order; only the last may take the rest of the line.
  var arguments: [Argument] = []
  /// The flags it may be given, anywhere among its arguments.
  var flags: [Flag] = []

  init(
    action: String? = nil, selector: String? = nil, _ arguments: [Argument] = [],
    flags: [Flag] = []
  ) {
    self.action = action
    self.selector = selector
    self.arguments = arguments
    self.flags = flags
  }

  /// The form as usage shows it, after the command's word.
  func usage(of command: String) -> String {
    var parts = [command]
    if let action { parts.append(action) }
    if let selector { parts.append(selector) }
    for argument in arguments {
      parts.append(argument.isOptional ? "[\(argument.name)]" : argument.name)
    }
    for flag in flags {
      parts.append(
        "[" + ([flag.name] + (flag.value.map { [$0.name] } ?? [])).joined(separator: " ") + "]")
    }
    return parts.joined(separator: " ")
  }

  /// Reads words as this form's arguments and flags.
  ///
  /// - Parameters:
  ///   - words: The words after the command's word, its action and its selector, as the
  ///     quoting rule reads them (a query's, the text as typed).
  ///   - usage: The form's usage, for errors.
  ///   - entryUsage: The command's whole usage, for a page number's error.
  /// - Returns: What they hold.
  /// - Throws: ``CatalogCoreError`` naming what is missing, unexpected or invalid.
  func read(_ words: [String], usage: String, entryUsage: String) throws
    -> ParsedArguments
  {
    var words = words
    var parsed = ParsedArguments(form: action ?? selector)
    for flag in flags {
      while let index = words.firstIndex(of: flag.name) {
        guard let value = flag.value else {
          parsed.flags.insert(flag.name)
          words.remove(at: index)
          continue
        }
        guard index + 1 < words.count else { throw CatalogCoreError.missingArgument(usage: usage) }
        parsed.values[value.name] = words[index + 1]
        words.removeSubrange(index...(index + 1))
      }
    }
    for (position, argument) in arguments.enumerated() {
      guard !words.isEmpty else {
        if argument.isOptional { break }
        throw CatalogCoreError.missingArgument(usage: usage)
      }
      let text: String
      if argument.kind.takesRest && position == arguments.count - 1 {
        text = words.joined(separator: " ")
        words = []
      } else {
        text = words.removeFirst()
      }
      // Empty quotes are no argument, and not the argument left out either: `scene close ""`
      // does not close the active scene.
      guard !text.isEmpty else { throw CatalogCoreError.missingArgument(usage: usage) }
      switch argument.kind {
      case .number(let what):
        guard text.allSatisfy(\.isASCII), let number = Int(text), number > 0 else {
          throw CatalogCoreError.invalidArgument(text, expected: what)
        }
        parsed.numbers[argument.name] = number
      case .page:
        guard text.allSatisfy(\.isASCII), let page = Int(text), page >= 1 else {
          throw CatalogCoreError.invalidArgument(
            text, expected: "a page number from 1 (\(entryUsage))")
        }
        parsed.numbers[argument.name] = page
      default: break
      }
      parsed.values[argument.name] = text
    }
    guard words.isEmpty else {
      throw CatalogCoreError.unexpectedArgument(words.joined(separator: " "), usage: usage)
    }
    return parsed
  }
}

/// What a line's arguments held, by the names of its form's arguments and flags.
struct ParsedArguments: Sendable {
  /// The form's action or selecting flag; nil for a plain form.
  let form: String?
  /// Each argument's text, and each flag's value, by name.
  fileprivate(set) var values: [String: String] = [:]
  /// The numbers and pages, by name.
  fileprivate(set) var numbers: [String: Int] = [:]
  /// The switches given.
  fileprivate(set) var flags: Set<String> = []

  fileprivate init(form: String?) {
    self.form = form
  }

  /// An argument's text, or a flag's value; nil when it was left out.
  subscript(name: String) -> String? { values[name] }

  /// A required argument's text.
  func text(_ name: String) -> String { values[name] ?? "" }

  /// A number or page argument; nil when it was left out.
  func number(_ name: String) -> Int? { numbers[name] }

  /// Whether a switch was given.
  func has(_ flag: String) -> Bool { flags.contains(flag) }
}
