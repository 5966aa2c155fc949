import CatalogModel
import SQLite

/// List numbers from the `position` column, without renumbering on a deletion.
///
/// A product's `position` orders the list; positions only grow (a new product takes one past
/// the largest) and a deletion leaves a gap. The list number of a product is how many
/// products come at or before it, counted from the `blocks` table: for each run of 1,024
/// positions (block `b` holds positions `1024·b + 1` to `1024·(b + 1)`), how many products it
/// has; and from the `block_groups` table, the same for each run of 64 blocks (65,536
/// positions). A deletion changes one block's count and one group's, so it costs the same at a
/// million products as at ten; finding a number reads the group counts (about 150 rows at ten
/// million products), the counts of one group's blocks and, unless the block is full (it then
/// has every position), one block of the position index: nearly the same at ten million
/// products as at a hundred thousand. Where the positions run without a gap, as after an
/// import, it reads none of these: number `n` is at the first position plus `n - 1`.
///
/// A database written before schema version 4 has no blocks, and dense positions: there, a
/// position is the list number (``dense``). One written before version 7 has no group counts
/// (``grouped``): opened for reading only, its groups are summed from its blocks.
struct ListNumbering {
  /// Whether positions are the list numbers themselves (a version-3 database opened for
  /// reading only).
  var dense: Bool
  /// Whether the file keeps the counts of groups of blocks (version 7 and later).
  var grouped = true
  /// The counts as last read, for reads: see ``BlockSums``.
  let sums = BlockSums()

  /// How many positions a block holds, as a power of two.
  static let blockShift = 10
  /// How many positions a block holds.
  static let blockSize = 1 << blockShift
  /// How many blocks a group holds, as a power of two.
  static let groupShift = 6
  /// The largest position a product may take: far beyond any catalog, and far enough below
  /// `Int64.max` that no arithmetic on it overflows.
  static let largestPosition = 1 << 52

  /// How every message about damaged numbering begins.
  private static let damage = "its list numbers are damaged: "

  /// The SQL for the block of the position `column`.
  static func block(of column: String) -> String { "((\(column) - 1) >> \(blockShift))" }

  /// The SQL for the group of the block `column`.
  static func group(ofBlock column: String) -> String { "(\(column) >> \(groupShift))" }

  /// The SQL that sums the block counts of a table by group, from a group on: what
  /// `block_groups` holds.
  ///
  /// - Parameters:
  ///   - blocks: The table of block counts.
  ///   - first: The SQL of the first group.
  /// - Returns: A query of `grp` and `live`.
  static func groupCounts(of blocks: String = "blocks", from first: String) -> String {
    "SELECT \(group(ofBlock: "block")) AS grp, sum(live) AS live FROM \(blocks) WHERE block >= \(first) << \(groupShift) GROUP BY 1"
  }

  /// The number of products: the count version 5 keeps, or the sum of the blocks in a version-4
  /// file opened for reading only.
  func count(in database: Database) throws -> Int {
    if dense { return try database.integer("SELECT max(position) FROM products") ?? 0 }
    if let kept = try database.integer("SELECT value FROM catalog_info WHERE key = 'count'") {
      return kept
    }
    return try database.integer("SELECT sum(live) FROM blocks") ?? 0
  }

  /// Checks what can be checked of the numbering without reading every row: that the last
  /// product's block is the last counted one, and that its position is in range. When nothing
  /// is wrong, the ends of the positions read here are kept with the count (``BlockSums``): a
  /// list number looked up at this generation then reads nothing more.
  ///
  /// - Parameters:
  ///   - database: The database, in a read transaction.
  ///   - generation: The catalog's generation in that transaction.
  ///   - count: The count the file keeps, read in that transaction; nil for a file that keeps
  ///     none.
  /// - Returns: What is wrong, or nil.
  /// - Throws: An `SQLiteError` when the positions cannot be read.
  func problem(in database: Database, generation: Int, count: Int?) throws -> String? {
    let last = try database.integer("SELECT max(position) FROM products")
    let first = try database.integer("SELECT min(position) FROM products")
    if let problem = try problem(in: database, first: first ?? 1, last: last ?? 0) {
      return problem
    }
    sums.keep(generation: generation, grouped: grouped, count: count, first: first, last: last)
    return nil
  }

  private func problem(in database: Database, first smallest: Int, last largest: Int) throws
    -> String?
  {
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
  ///
  /// Read through the block counts kept in memory (``BlockSums``), which a change of the
  /// catalog's generation reads again: call it only where no write of this transaction has
  /// changed the counts yet.
  func position(ofNumber number: Int, in database: Database) throws -> Int? {
    guard number >= 1 else { return nil }
    if dense { return number }
    try sums.read(from: database, grouped: grouped)
    if let (first, count) = sums.gapless { return number <= count ? first + (number - 1) : nil }
    guard let (index, before, live) = try sums.block(holdingNumber: number, in: database) else {
      return nil
    }
    guard index >= 0, index < Self.largestPosition >> Self.blockShift, before < number else {
      return nil
    }
    // A full block has every position: no need to count into it.
    if live == Self.blockSize { return index << Self.blockShift &+ (number &- before) }
    return try database.integer(
      "SELECT position FROM products WHERE position >= ? ORDER BY position LIMIT 1 OFFSET ?",
      .integer(index << Self.blockShift + 1), .integer(number - before - 1))
  }

  /// The list numbers of products at positions, read through the block counts kept in
  /// memory (as ``position(ofNumber:in:)`` reads them).
  ///
  /// - Returns: For each position, its list number.
  func numbers(ofPositions positions: some Sequence<Int>, in database: Database) throws
    -> [Int: Int]
  {
    if dense {
      return Dictionary(positions.map { ($0, $0) }, uniquingKeysWith: { first, _ in first })
    }
    try sums.read(from: database, grouped: grouped)
    var numbers: [Int: Int] = [:]
    if let (first, count) = sums.gapless {
      for position in positions {
        // Positions from the file: none out of range is numbered, and none overflows.
        guard case (let offset, false) = position.subtractingReportingOverflow(first),
          (0..<count).contains(offset)
        else { continue }
        numbers[position] = offset + 1
      }
      return numbers
    }
    for position in Set(positions) {
      let index = (position &- 1) >> Self.blockShift
      // Positions in blocks with no count (damage) get no number.
      guard let (live, before) = try sums.counts(ofBlock: index, in: database) else { continue }
      numbers[position] = try Self.number(
        ofPosition: position, block: index, live: live, before: before, in: database)
    }
    return numbers
  }

  /// The list number of the product at a position, read from the table itself: for a write
  /// transaction, whose own changes the counts in memory do not know (and whose file was
  /// brought to this schema, group counts and all, when opened for writing).
  func number(ofPosition position: Int, in database: Database) throws -> Int? {
    if dense { return position }
    let index = (position &- 1) >> Self.blockShift
    guard
      let live = try database.integer(
        "SELECT live FROM blocks WHERE block = ? AND live > 0", .integer(index))
    else { return nil }
    // The groups before the block's, and the blocks of its group before it.
    let group = index >> Self.groupShift
    let before =
      try database.integer(
        "SELECT (SELECT coalesce(sum(live), 0) FROM block_groups WHERE grp < ?1) + (SELECT coalesce(sum(live), 0) FROM blocks WHERE block >= ?1 << \(Self.groupShift) AND block < ?2)",
        .integer(group), .integer(index)) ?? 0
    return try Self.number(
      ofPosition: position, block: index, live: live, before: before, in: database)
  }

  /// A position's list number, from the count of its block and of the products before it.
  private static func number(
    ofPosition position: Int, block index: Int, live: Int, before: Int, in database: Database
  ) throws -> Int {
    let start = index << blockShift + 1
    // A full block has every position: no need to count.
    if live == blockSize { return before &+ (position - start + 1) }
    let within =
      try database.integer(
        "SELECT count(*) FROM products WHERE position BETWEEN ? AND ?", .integer(start),
        .integer(position)) ?? 0
    return before &+ within
  }

  /// Counts a product added at a position: in its block, its group and the total.
  static func added(position: Int, in database: Database) throws {
    let block = (position - 1) >> blockShift
    try database.run(
      "INSERT INTO blocks VALUES (?, 1) ON CONFLICT(block) DO UPDATE SET live = live + 1",
      .integer(block))
    try database.run(
      "INSERT INTO block_groups VALUES (?, 1) ON CONFLICT(grp) DO UPDATE SET live = live + 1",
      .integer(block >> groupShift))
    try database.run("UPDATE catalog_info SET value = value + 1 WHERE key = 'count'")
  }

  /// Counts a product removed from a position: in its block, its group and the total.
  static func removed(position: Int, in database: Database) throws {
    let block = (position - 1) >> blockShift
    try database.run("UPDATE blocks SET live = live - 1 WHERE block = ?", .integer(block))
    // A block that has no count (damage) took nothing off.
    guard database.changes > 0 else { return }
    try database.run(
      "UPDATE block_groups SET live = live - 1 WHERE grp = ?", .integer(block >> groupShift))
    try database.run("UPDATE catalog_info SET value = value - 1 WHERE key = 'count'")
  }

  /// Counts the products again in every block from the one holding a position: after an
  /// import appended or removed many.
  static func recount(from position: Int, in database: Database) throws {
    let first = (max(position, 1) - 1) >> blockShift
    try database.run("DELETE FROM blocks WHERE block >= ?", .integer(first))
    try database.run(
      "INSERT INTO blocks SELECT \(block(of: "position")), count(*) FROM products WHERE position >= ? GROUP BY 1",
      .integer(first << blockShift + 1))
    // The first block's group is counted again whole: it may hold blocks before the first.
    let group = first >> groupShift
    try database.run("DELETE FROM block_groups WHERE grp >= ?", .integer(group))
    try database.run("INSERT INTO block_groups \(groupCounts(from: "?"))", .integer(group))
    try database.run(
      "UPDATE catalog_info SET value = (SELECT coalesce(sum(live), 0) FROM blocks) WHERE key = 'count'"
    )
  }

  /// Checks the block counts against the rows, reading every one: the reason they disagree, or
  /// nil.
  static func verify(in database: Database) throws -> String? {
    let statement = try database.statement(
      "SELECT count(*) FROM (SELECT \(block(of: "position")) AS block, count(*) AS live FROM products GROUP BY 1) AS counted FULL JOIN (SELECT block, live FROM blocks WHERE live != 0) AS kept USING (block) WHERE counted.live IS NOT kept.live"
    )
    defer { statement.reset() }
    if try statement.step(), statement.integer(0) > 0 {
      return Self.damage + "\(statement.integer(0)) blocks of positions are miscounted"
    }
    let groups = try database.statement(
      "SELECT count(*) FROM (\(groupCounts(from: "0")) HAVING sum(live) != 0) AS counted FULL JOIN (SELECT grp, live FROM block_groups WHERE live != 0) AS kept USING (grp) WHERE counted.live IS NOT kept.live"
    )
    defer { groups.reset() }
    if try groups.step(), groups.integer(0) > 0 {
      return Self.damage + "\(groups.integer(0)) groups of blocks are miscounted"
    }
    let kept = try database.integer("SELECT value FROM catalog_info WHERE key = 'count'")
    let summed = try database.integer("SELECT coalesce(sum(live), 0) FROM blocks") ?? 0
    if let kept, kept != summed {
      return Self.damage + "it counts \(kept) products where its blocks hold \(summed)"
    }
    return nil
  }
}

/// The group counts of a catalog as running sums, read once per generation of the catalog, and
/// the block counts of the groups looked into: finding a list number's block is then two
/// binary searches rather than a pass over the table, which a search does for every result it
/// shows. Where the positions run without a gap (no product deleted but from the ends, as
/// after an import), the counts are not read at all: number `n` is at the first position plus
/// `n - 1` (``gapless``).
///
/// Each read (``read(from:grouped:)``, once a lookup) compares the catalog's generation, which
/// every change of the products raises in the same transaction, with the one the sums were read
/// at, and reads them again when it moved: another process's change is seen at once. Used only
/// under the database's connection lock, and only in reads: a write transaction changes the
/// counts before it commits.
final class BlockSums: @unchecked Sendable {
  /// Counts in order, each with how many products come before it.
  private struct RunningSums {
    /// The groups or blocks with products, in order.
    var keys: [Int] = []
    /// How many products each holds.
    var live: [Int] = []
    /// How many products come before each.
    var before: [Int] = []

    /// Reads `(key, live)` rows in order, the first with `start` products before it.
    init(_ statement: Statement, start: Int) throws {
      var total = start
      while try statement.step() {
        keys.append(statement.integer(0))
        live.append(statement.integer(1))
        before.append(total)
        total = total &+ statement.integer(1)
      }
    }

    init() {}

    /// The index of the first count whose products reach a list number.
    func index(holdingNumber number: Int) -> Int? {
      var low = 0
      var high = keys.count
      while low < high {
        let middle = (low + high) / 2
        if before[middle] &+ live[middle] < number { low = middle + 1 } else { high = middle }
      }
      return low < keys.count ? low : nil
    }

    /// The index of a key; nil for one with no products.
    func index(of key: Int) -> Int? {
      var low = 0
      var high = keys.count
      while low < high {
        let middle = (low + high) / 2
        if keys[middle] < key { low = middle + 1 } else { high = middle }
      }
      return low < keys.count && keys[low] == key ? low : nil
    }
  }

  private var generation: Int?
  private var grouped = true
  /// The first position and the count, when the positions run without a gap at this
  /// generation: the groups and blocks are then not read.
  private(set) var gapless: (first: Int, count: Int)?
  private var groups = RunningSums()
  /// The blocks of the groups looked into at this generation.
  private var blocks: [Int: RunningSums] = [:]

  /// The block holding the product with a list number, how many products come before it,
  /// and how many it holds.
  func block(holdingNumber number: Int, in database: Database) throws -> (
    block: Int, before: Int, live: Int
  )? {
    guard let group = groups.index(holdingNumber: number) else { return nil }
    let counts = try blocks(ofGroupAt: group, in: database)
    return counts.index(holdingNumber: number).map {
      (counts.keys[$0], counts.before[$0], counts.live[$0])
    }
  }

  /// A block's count of products and how many come before it; nil for a block with none.
  func counts(ofBlock block: Int, in database: Database) throws -> (live: Int, before: Int)? {
    guard let group = groups.index(of: block >> ListNumbering.groupShift) else { return nil }
    let counts = try blocks(ofGroupAt: group, in: database)
    return counts.index(of: block).map { (counts.live[$0], counts.before[$0]) }
  }

  /// The running sums of the blocks of the group at an index of ``groups``.
  private func blocks(ofGroupAt index: Int, in database: Database) throws -> RunningSums {
    let group = groups.keys[index]
    if let counts = blocks[group] { return counts }
    let statement = try database.statement(
      "SELECT block, live FROM blocks WHERE block >= ? AND block < ? AND live > 0 ORDER BY block")
    defer { statement.reset() }
    try statement.bind(
      [
        .integer(group << ListNumbering.groupShift),
        .integer((group &+ 1) << ListNumbering.groupShift),
      ])
    let counts = try RunningSums(statement, start: groups.before[index])
    blocks[group] = counts
    return counts
  }

  /// Keeps the count and the ends of the positions read at a generation, when the positions
  /// run without a gap: the groups and blocks are then not read at that generation.
  ///
  /// - Parameters:
  ///   - generation: The generation they were read at.
  ///   - grouped: Whether the file keeps the group counts, as reads will say.
  ///   - count: The count the file keeps; nil for none.
  ///   - first: The smallest position; nil for none.
  ///   - last: The largest position; nil for none.
  func keep(generation: Int, grouped: Bool, count: Int?, first: Int?, last: Int?) {
    guard let count, let first, let last, count >= 1, first >= 1,
      case (let width, false) = last.subtractingReportingOverflow(first), width == count - 1
    else { return }
    blocks.removeAll()
    groups = RunningSums()
    gapless = (first, count)
    self.generation = generation
    self.grouped = grouped
  }

  /// Makes the sums those of the database's snapshot: read again unless its generation is the
  /// one they were read at. A read that fails leaves none, to be read again next time.
  ///
  /// - Parameters:
  ///   - database: The database, in a read transaction.
  ///   - grouped: Whether it keeps the group counts; if not, they are summed from the blocks.
  /// - Throws: An `SQLiteError` when they cannot be read.
  func read(from database: Database, grouped: Bool) throws {
    let current =
      try database.integer("SELECT value FROM catalog_info WHERE key = 'generation'") ?? 0
    guard current != generation || grouped != self.grouped else { return }
    generation = nil
    blocks.removeAll()
    groups = RunningSums()
    gapless = nil
    // The count the file keeps beside the ends of the positions, from the same snapshot.
    let span = try database.statement(
      "SELECT (SELECT value FROM catalog_info WHERE key = 'count'), (SELECT min(position) FROM products), (SELECT max(position) FROM products)"
    )
    defer { span.reset() }
    if try span.step() {
      func value(_ column: Int32) -> Int? { span.isNull(column) ? nil : span.integer(column) }
      keep(generation: current, grouped: grouped, count: value(0), first: value(1), last: value(2))
      if gapless != nil { return }
    }
    let statement = try database.statement(
      grouped
        ? "SELECT grp, live FROM block_groups WHERE live > 0 ORDER BY grp"
        : "\(ListNumbering.groupCounts(from: "0")) HAVING sum(live) > 0 ORDER BY 1")
    defer { statement.reset() }
    groups = try RunningSums(statement, start: 0)
    generation = current
    self.grouped = grouped
  }
}
