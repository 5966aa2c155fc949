import SQLite

/// List numbers from the `position` column, without renumbering on a deletion.
///
/// A product's `position` orders the list; positions only grow (a new product takes one past
/// the largest) and a deletion leaves a gap. The list number of a product is how many
/// products come at or before it, counted from the `blocks` table: for each run of 1,024
/// positions (block `b` holds positions `1024·b + 1` to `1024·(b + 1)`), how many products it
/// has. A deletion changes one block's count, so it costs the same at a million products as at
/// ten; finding a number reads the block counts (about a thousand rows at a million products)
/// and at most one block of the position index.
///
/// A database written before schema version 4 has no blocks, and dense positions: there, a
/// position is the list number (``dense``).
struct ListNumbering {
  /// Whether positions are the list numbers themselves (a version-3 database opened for
  /// reading only).
  var dense: Bool

  /// How many positions a block holds, as a power of two.
  static let blockShift = 10
  /// How many positions a block holds.
  static let blockSize = 1 << blockShift
  /// The largest position a product may take: far beyond any catalog, and far enough below
  /// `Int64.max` that no arithmetic on it overflows.
  static let largestPosition = 1 << 52

  /// How every message about damaged numbering begins.
  private static let damage = "its list numbers are damaged: "

  /// The SQL for the block of the position `column`.
  static func block(of column: String) -> String { "((\(column) - 1) >> \(blockShift))" }

  /// What schema version 4 added: the counts of products in each block of positions, and the
  /// identifiers of deleted products.
  static let versionFour = """
    CREATE TABLE blocks(block INTEGER PRIMARY KEY, live INTEGER NOT NULL);
    INSERT INTO blocks SELECT \(block(of: "position")), count(*) FROM products GROUP BY 1;
    ALTER TABLE deletions ADD COLUMN identifier TEXT;
    CREATE INDEX deletions_identifier ON deletions(identifier) WHERE identifier IS NOT NULL;
    DROP INDEX products_position;
    CREATE UNIQUE INDEX products_position ON products(position);
    PRAGMA user_version = 4;
    """

  /// The number of products.
  func count(in database: Database) throws -> Int {
    dense
      ? try database.integer("SELECT max(position) FROM products") ?? 0
      : try database.integer("SELECT sum(live) FROM blocks") ?? 0
  }

  /// The position one past the largest, for a new product.
  ///
  /// - Throws: ``CatalogDatabaseError/damaged(_:)`` when the largest is beyond any catalog.
  static func nextPosition(in database: Database) throws -> Int {
    let largest = try database.integer("SELECT max(position) FROM products") ?? 0
    guard largest >= 0, largest < largestPosition else {
      throw CatalogDatabaseError.damaged("a product's position, \(largest), is out of range")
    }
    return largest + 1
  }

  /// Checks what can be checked of the numbering without reading every row: that the last
  /// product's block is the last counted one, and that its position is in range.
  ///
  /// - Returns: What is wrong, or nil.
  func problem(in database: Database) throws -> String? {
    let largest = try database.integer("SELECT max(position) FROM products") ?? 0
    let smallest = try database.integer("SELECT min(position) FROM products") ?? 1
    guard smallest >= 1, largest < Self.largestPosition else {
      let position = smallest < 1 ? smallest : largest
      return Self.damage + "a product's position, \(position), is out of range"
    }
    guard !dense else { return nil }
    // From the end: emptied blocks are skipped, not every block read.
    let lastBlock =
      try database.integer(
        "SELECT block FROM blocks WHERE live > 0 ORDER BY block DESC LIMIT 1") ?? -1
    let expected = largest == 0 ? -1 : (largest - 1) >> Self.blockShift
    guard lastBlock == expected else {
      return Self.damage
        + "the last product's position, \(largest), is not in the last counted block"
    }
    return nil
  }

  /// The position of the product with a list number; nil when there is none.
  func position(ofNumber number: Int, in database: Database) throws -> Int? {
    guard number >= 1 else { return nil }
    if dense { return number }
    let block = try database.statement(
      "SELECT block, running - live FROM (SELECT block, live, sum(live) OVER (ORDER BY block ROWS UNBOUNDED PRECEDING) AS running FROM blocks) WHERE running >= ? LIMIT 1"
    )
    defer { block.reset() }
    try block.bind([.integer(number)])
    guard try block.step() else { return nil }
    let (index, before) = (block.integer(0), block.integer(1))
    guard index >= 0, index < Self.largestPosition >> Self.blockShift, before < number else {
      return nil
    }
    return try database.integer(
      "SELECT position FROM products WHERE position >= ? ORDER BY position LIMIT 1 OFFSET ?",
      .integer(index << Self.blockShift + 1), .integer(number - before - 1))
  }

  /// The list numbers of products at positions, read in one pass over the block counts.
  ///
  /// - Returns: For each position, its list number.
  func numbers(ofPositions positions: some Sequence<Int>, in database: Database) throws
    -> [Int: Int]
  {
    let sorted = Set(positions).sorted()
    if dense { return Dictionary(uniqueKeysWithValues: sorted.map { ($0, $0) }) }
    var numbers: [Int: Int] = [:]
    let blocks = try database.statement("SELECT block, live FROM blocks ORDER BY block")
    defer { blocks.reset() }
    let within = try database.statement(
      "SELECT count(*) FROM products WHERE position BETWEEN ? AND ?")
    defer { within.reset() }
    var before = 0
    var next = sorted.startIndex
    while next < sorted.endIndex, try blocks.step() {
      let (index, live) = (blocks.integer(0), blocks.integer(1))
      // Positions in blocks with no count (damage) get no number.
      while next < sorted.endIndex, (sorted[next] &- 1) >> Self.blockShift < index {
        next += 1
      }
      while next < sorted.endIndex, (sorted[next] &- 1) >> Self.blockShift == index {
        let position = sorted[next]
        let start = index << Self.blockShift + 1
        if live == Self.blockSize {
          // A full block has every position: no need to count.
          numbers[position] = before &+ (position - start + 1)
        } else {
          within.reset()
          try within.bind([.integer(start), .integer(position)])
          if try within.step() { numbers[position] = before &+ within.integer(0) }
        }
        next += 1
      }
      before = before &+ live
    }
    return numbers
  }

  /// The list number of the product at a position.
  func number(ofPosition position: Int, in database: Database) throws -> Int? {
    try numbers(ofPositions: [position], in: database)[position]
  }

  /// Counts a product added at a position.
  static func added(position: Int, in database: Database) throws {
    try database.run(
      "INSERT INTO blocks VALUES (?, 1) ON CONFLICT(block) DO UPDATE SET live = live + 1",
      .integer((position - 1) >> blockShift))
  }

  /// Counts a product removed from a position.
  static func removed(position: Int, in database: Database) throws {
    try database.run(
      "UPDATE blocks SET live = live - 1 WHERE block = ?", .integer((position - 1) >> blockShift))
  }

  /// Counts the products again in every block from the one holding a position: after an
  /// import appended or removed many.
  static func recount(from position: Int, in database: Database) throws {
    let first = (max(position, 1) - 1) >> blockShift
    try database.run("DELETE FROM blocks WHERE block >= ?", .integer(first))
    try database.run(
      "INSERT INTO blocks SELECT \(block(of: "position")), count(*) FROM products WHERE position >= ? GROUP BY 1",
      .integer(first << blockShift + 1))
  }

  /// Checks the block counts against the rows, reading every one: the reason they disagree, or
  /// nil.
  static func verify(in database: Database) throws -> String? {
    let statement = try database.statement(
      "SELECT count(*) FROM (SELECT \(block(of: "position")) AS block, count(*) AS live FROM products GROUP BY 1) AS counted FULL JOIN (SELECT block, live FROM blocks WHERE live != 0) AS kept USING (block) WHERE counted.live IS NOT kept.live"
    )
    defer { statement.reset() }
    guard try statement.step(), statement.integer(0) > 0 else { return nil }
    return Self.damage + "\(statement.integer(0)) blocks of positions are miscounted"
  }
}
