import Foundation
import SystemSupport

/// What can go wrong with the catalog: finding a product, validating an edit, saving it.
package enum CatalogError: Error, Sendable, Equatable, LocalizedError {
  /// No product matches the reference; `suggestion` is the closest name, if any is close.
  case noMatch(String, suggestion: String?)
  /// The reference is a prefix of several names: the first few (with their list numbers when
  /// names repeat), how many match in all, and the command typed, for the hint.
  case ambiguous(
    String, candidates: [String], total: Int = 0, numbers: [Int] = [], command: String? = nil)
  /// No name starts with the reference, and several have its words: the first few, with their
  /// list numbers, whether more have them, and the command typed, for the hint.
  case wordMatches(
    String, candidates: [String], numbers: [Int], more: Bool, command: String? = nil)
  /// A list number outside the list.
  case numberOutOfRange(Int, count: Int)
  /// The draft name is not valid.
  case invalidName(reason: String)
  /// The draft year is not valid.
  case invalidYear(String)
  /// The draft picture is not valid: too long, or with a control character.
  case invalidImage(reason: String)
  /// The draft keywords are not valid: too many, too long, or with a control character.
  case invalidKeywords(reason: String)
  /// The draft price is not valid.
  case invalidPrice(String, reason: String)
  /// Several fields of the draft are not valid: each one's problem.
  case invalidDraft([String])
  /// The user's catalog file could not be read, so edits are refused until it is fixed.
  case catalogReadOnly(path: String, reason: String)
  /// The product being saved is no longer in the catalog file.
  case productRemoved(name: String)
  /// A file being imported has two products with the same identifier.
  case repeatedIdentifier(String, record: Int, name: String)
  /// Records without identifiers name products the catalog has more of than the file has
  /// records of that name: which to update would be a guess.
  case ambiguousRecords(count: Int, example: String)
  /// Records without identifiers name products the catalog has, and the import was told to
  /// refuse duplicates.
  case duplicateRecords(count: Int, example: String)
  /// Records without identifiers of one name outnumber the catalog's products of that name:
  /// two would update one product.
  case repeatedNames(count: Int, example: String)
  /// A product being added has the identifier of one already in the catalog.
  case alreadyInCatalog(name: String)
  /// Another process changed a field the draft changes too, to another value, since the edit
  /// began; `keepTheirs` is the editor command that takes the other value, and `machine` the
  /// machine the change came from, when it was another machine sharing the catalog.
  case editConflict(
    product: String, field: String, theirs: String, yours: String, keepTheirs: String,
    machine: String? = nil)

  /// Several products match: with names that differ, typing more of one helps; with names
  /// that repeat, only a list number does, so the candidates come with theirs.
  private static func ambiguity(
    _ reference: String, _ candidates: [String], total: Int, numbers: [Int], command: String?
  ) -> String {
    let count = max(total, candidates.count)
    let matches =
      count > candidates.count ? "\(count.grouped) products, the first \(candidates.count): " : ""
    guard let first = numbers.first, numbers.count == candidates.count else {
      return
        "'\(reference.abbreviated)' matches \(matches)\(candidates.map { "'\($0)'" }.joined(separator: ", ")); type more of the name"
    }
    let listed = zip(numbers, candidates).map { "\($0) \($1)" }.joined(separator: ", ")
    return
      "'\(reference.abbreviated)' matches \(count > candidates.count ? matches : "\(count.grouped) products: ")\(listed); type '\(command ?? "select") \(first)' for the first, or another number"
  }

  private static func wordMatches(
    _ reference: String, _ candidates: [String], numbers: [Int], more: Bool, command: String?
  ) -> String {
    let command = command ?? "select"
    let listed = zip(numbers, candidates).map { "\($0) \($1)" }.joined(separator: ", ")
    let does = reference.contains(" ") ? "words that do" : "a word that does"
    let which =
      more
      ? "of those with \(does), the first \(candidates.count)"
      : "\(candidates.count) have \(does)"
    let next = more ? ", or 'search \(reference.abbreviated)' to see more" : ", or another number"
    return
      "no name starts with '\(reference.abbreviated)'; \(which): \(listed); type '\(command) \(numbers.first ?? 1)' for the first\(next)"
  }

  /// A bad record in a product file, or a file that cannot be read, stopping an import.
  case badRecord(BadRecord)

  // The catalog database:

  /// The file is not a catalog database, or is damaged.
  case damaged(String)
  /// The file was written by a newer version of the program.
  case newerSchema(found: Int, supported: Int)
  /// A change could not be written (a full disk, say); nothing was changed.
  case cannotWrite(path: String, reason: String)

  // A catalog on a server:

  /// The catalog's server cannot be reached, or refused the user, at launch; the reason says
  /// what to do.
  case cannotConnect(location: String, reason: String)
  /// The catalog's URL (`--catalog-url`, `CATALOG_URL`) cannot be read; the reason says why.
  case badCatalogURL(reason: String)
  /// The connection to the catalog's server was lost during a command, which changed nothing;
  /// the next command connects again.
  case unreachable(location: String, reason: String)
  /// The connection to the catalog's server was lost as a change was committed, and a new
  /// one could not ask whether it was: the change may or may not be saved.
  case outcomeUnknown(location: String, reason: String)
  /// Handing off to another machine needs a catalog the machines share.
  case handoffNeedsServer
  /// There is no handoff of that number from another machine.
  case noSuchHandoff(Int, count: Int)

  /// The message shown to the user: what went wrong, with the values involved in quotes.
  package var errorDescription: String? {
    switch self {
    case .badRecord(let record): record.description
    case .damaged(let reason): reason
    case .newerSchema(let found, let supported):
      "its schema version \(found) is newer than this program's \(supported)"
    case .cannotWrite(let path, let reason):
      "cannot save the catalog '\(path)': \(reason); nothing was changed"
    case .cannotConnect(let location, let reason):
      "cannot connect to the catalog '\(location)': \(reason)"
    case .badCatalogURL(let reason):
      "the catalog URL cannot be read (\(reason)); give --catalog-url or CATALOG_URL a postgresql:// URI or a libpq keyword string (host=… dbname=…)"
    case .handoffNeedsServer:
      "handing off to another machine needs a catalog the machines share on a server; start with --catalog-url (see 'Sharing a catalog' in the README), or hand off to a scene: 'handoff SCENE'"
    case .noSuchHandoff(let number, let count):
      count == 0
        ? "no activities from your other machines; type 'handoff --to-machine' on one of them"
        : "no activity \(number) from your other machines; there \(count == 1 ? "is 1" : "are \(count)"): type 'activities --elsewhere'"
    case .outcomeUnknown(let location, let reason):
      "lost the connection to the catalog '\(location)' as the change was being saved (\(reason)), and could not find out whether it was saved; once the server can be reached, the catalog shows whether it was"
    case .unreachable(let location, let reason):
      "lost the connection to the catalog '\(location)' (\(reason)); nothing was changed; the next command connects again"
    case .noMatch(let reference, let suggestion):
      "no product matches '\(reference.abbreviated)'"
        + (suggestion.map { "; did you mean '\($0)'?" } ?? "; type 'list' to see the products")
    case .ambiguous(let reference, let candidates, let total, let numbers, let command):
      Self.ambiguity(reference, candidates, total: total, numbers: numbers, command: command)
    case .wordMatches(let reference, let candidates, let numbers, let more, let command):
      Self.wordMatches(reference, candidates, numbers: numbers, more: more, command: command)
    case .numberOutOfRange(let number, let count):
      count == 0
        ? "there is no product number \(number); the catalog is empty"
        : "there is no product number \(number); the list has \(count.grouped) product\(count == 1 ? "" : "s")"
    case .invalidName(let reason):
      "the name \(reason)"
    case .invalidImage(let reason): "\(reason); type 'image PATH' with an image file's path"
    case .invalidKeywords(let reason): "the keywords are not valid: \(reason)"
    case .invalidYear(let text):
      "the year '\(text.abbreviated)' is not a year from 1900 to 2100"
    case .invalidPrice(let text, let reason):
      "the price '\(text.abbreviated)' \(reason)"
    case .invalidDraft(let problems):
      "the draft cannot be saved: " + problems.joined(separator: "; ")
    case .catalogReadOnly(let path, let reason):
      "edits are refused because the catalog '\(path)' cannot be read (\(reason)); fix or move it, then restart"
    case .productRemoved(let name):
      "'\(name)' is no longer in the catalog; it was removed by another process"
    case .repeatedIdentifier(let identifier, let record, let name):
      "record \(record) ('\(name.abbreviated)') repeats the identifier \(identifier) of an earlier record; nothing was imported"
    case .ambiguousRecords(let count, let example):
      "\(count.grouped) record\(count == 1 ? "" : "s") without an identifier name\(count == 1 ? "s" : "") products the catalog has more of than the file has records (such as '\(example.abbreviated)'); give \(count == 1 ? "it an identifier" : "them identifiers") (an export has them), or import with --duplicates allow to add \(count == 1 ? "it" : "them"); nothing was imported"
    case .duplicateRecords(let count, let example):
      "\(count.grouped) record\(count == 1 ? "" : "s") without an identifier name\(count == 1 ? "s" : "") products the catalog has (such as '\(example.abbreviated)'); import with --duplicates update to update them, or --duplicates allow to add them; nothing was imported"
    case .repeatedNames(let count, let example):
      "\(count.grouped) records without an identifier share a name the catalog has fewer products of (such as '\(example.abbreviated)'), so two would update one product; give them identifiers, or import with --duplicates allow to add them; nothing was imported"
    case .alreadyInCatalog(let name):
      "'\(name.abbreviated)' is already in the catalog"
    case .editConflict(let product, let field, let theirs, let yours, let keepTheirs, let machine):
      (machine.map { "machine '\($0.abbreviated)'" } ?? "another process")
        + " changed the \(field) of '\(product.abbreviated)' to \(theirs) since this edit began, and the draft has \(yours); type '\(keepTheirs.abbreviated)' to keep theirs, or 'done --force' to save yours"
    }
  }
}

extension CatalogError {
  /// A bad record of a product file: the error that stops an import there.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - record: The record's number, from 1; nil for the file as a whole.
  ///   - line: The line where the problem was found.
  ///   - reason: What is wrong.
  /// - Returns: The error.
  package static func badRecord(path: String, record: Int?, line: Int, reason: String)
    -> CatalogError
  {
    .badRecord(BadRecord(path: path, record: record, line: line, reason: reason))
  }
}

/// A bad record in a product file, or a file that cannot be read: what an import that stops
/// reports (``CatalogError/badRecord(_:)``), and what one that skips bad records is told of.
package struct BadRecord: Sendable, Hashable, CustomStringConvertible {
  /// The file.
  package var path: String
  /// The record's number, from 1; nil for a problem with the file as a whole.
  package var record: Int?
  /// The line where the problem was found.
  package var line: Int
  /// What is wrong.
  package var reason: String

  /// The message shown to the user.
  package var description: String {
    let place =
      record.map { " record \($0)" + (line > 0 ? " (line \(line))" : "") }
      ?? (line > 0 ? " line \(line)" : "")
    return "'\(path)'\(place): \(reason); nothing was imported"
  }
}
