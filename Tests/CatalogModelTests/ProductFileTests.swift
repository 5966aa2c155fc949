import CatalogEngines
import CatalogModel
import CatalogTestSupport
import Foundation
import TestSupport
import Testing

@Suite struct ProductFileTests {
  private func read(_ text: String, name: String = "products.json") throws -> [Product] {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/" + name
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    var products: [Product] = []
    try ProductFile(path: path).forEachProduct { products.append($0) }
    return products
  }

  private func failure(_ text: String) -> BadRecord? {
    do {
      _ = try read(text)
      return nil
    } catch CatalogError.badRecord(let error) {
      return error
    } catch {
      return nil
    }
  }

  @Test func readsTheBundledCatalogAsJSONDecoderDoes() throws {
    var products: [Product] = []
    try ProductFile(path: bundledCatalogPath).forEachProduct { products.append($0) }
    #expect(products == bundledProducts)
  }

  @Test func readsEscapesSurrogatesUnknownKeysAndTheEarlierFileShape() throws {
    let products = try read(
      """
      \u{FEFF}{"formatVersion": 1, "note": {"nested": [1, {"a": "]"}]}, "products": [
        {"price": 1.099e1, "extra": [true, null, "x"], "identifier": "fa542e3d-4895-44b6-942f-e112101d5160",
         "name": "Cerise \\"noire\\" \\u00e9 \\ud83c\\udf52 \\/", "imageName": "Cherries", "year": 2015,
         "keywords": ["樱桃", "fruit"]}
      ]}
      """)
    #expect(products.count == 1)
    #expect(products.first?.name == "Cerise \"noire\" é 🍒 /")
    #expect(products.first?.price == Price(cents: 1099))
    #expect(products.first?.keywords == ["樱桃", "fruit"])
    #expect(
      products.first?.identifier == UUID(uuidString: "FA542E3D-4895-44B6-942F-E112101D5160"))
  }

  @Test(arguments: [
    ("[{\"name\": \"A\", \"imageName\": \"\", \"year\": 2000}]", 1, "the field 'price' is missing"),
    (
      "[{\"name\": \"A\", \"imageName\": \"\", \"year\": 2000, \"price\": -1}]", 1,
      "price: the price '-1' is negative"
    ),
    (
      "[{\"name\": \"A\", \"imageName\": \"\", \"year\": 1800, \"price\": 1}]", 1,
      "year: '1800' is not a year from 1900 to 2100"
    ),
    (
      "[{\"identifier\": \"nope\", \"name\": \"A\", \"imageName\": \"\", \"year\": 2000, \"price\": 1}]",
      1, "identifier: 'nope' is not a UUID"
    ),
    (
      "[{\"name\": \"\\u001b[2J\", \"imageName\": \"\", \"year\": 2000, \"price\": 1}]", 1,
      "the name contains the control character U+001B"
    ),
    (
      "[{\"name\": \"A\", \"imageName\": \"\", \"year\": 2000, \"price\": 1}, 7]", 2,
      "a product is not an object"
    ),
    (
      "[{\"name\": \"A\", \"imageName\": \"\", \"year\": 2000, \"price\": 1}", 1,
      "expected ',' or ']' after the product"
    ),
  ])
  func aBadRecordIsNamedByNumberAndField(_ text: String, _ record: Int, _ reason: String) {
    let error = failure(text)
    #expect(error?.record == record)
    #expect(error?.reason == reason)
  }

  @Test func readsCSVWithQuotesCRLFAndOptionalColumns() throws {
    let products = try read(
      "Name,ImageName,Year,Price,Keywords,Notes\r\n\"Kiwi, \"\"Gold\"\"\",,2020,1.5,fruit; 奇异果,ignored\r\n\r\nTwo,,2021,2,,\"a note\non two lines\"\r\n",
      name: "products.csv")
    #expect(products.map(\.name) == ["Kiwi, \"Gold\"", "Two"])
    #expect(products.first?.keywords == ["fruit", "奇异果"])
    #expect(products.first?.price == Price(cents: 150))
    #expect(products.last?.year == 2021)
  }

  /// Rows cross the reader's 1 MiB buffer anywhere: in a plain field, a quoted one, between a
  /// carriage return and its line feed.
  @Test func readsCSVRowsAcrossTheReadBuffer() throws {
    var text = "name,imageName,year,price,keywords\r\n"
    var expected: [(name: String, keywords: [String])] = []
    var index = 0
    while text.utf8.count < 3 << 20 {
      index += 1
      let name = "Kiwi \(index)" + String(repeating: "x", count: index % 71)
      let keywords = ["k\(index % 7)", "奇异果"]
      if index.isMultiple(of: 3) {
        text +=
          "\"\(name), \"\"gold\"\"\",,2020,1.5,\" \(keywords[0]) ;;\u{00A0}\(keywords[1])\"\r\n"
        expected.append((name + ", \"gold\"", keywords))
      } else {
        text += "\(name),,2020,1.5,\(keywords.joined(separator: ";"))\r\n"
        expected.append((name, keywords))
      }
    }
    let products = try read(text, name: "products.csv")
    #expect(products.count == expected.count)
    let different = zip(products, expected).first {
      $0.name != $1.name || $0.keywords != $1.keywords
    }
    #expect(different == nil, "\(String(describing: different))")
  }

  /// A read that fails (`/proc/self/mem` gives EIO at offset 0) is named, not taken for the
  /// end of the file: an empty file, or fewer records than it has.
  @Test func aFileThatCannotBeReadIsNamedSo() {
    var error: BadRecord?
    do {
      try ProductFile(path: "/proc/self/mem").forEachProduct { _ in }
    } catch CatalogError.badRecord(let thrown) {
      error = thrown
    } catch {}
    #expect(error?.reason == "it cannot be read (Input/output error)")
  }

  @Test func aCSVWithoutARequiredColumnOrWithAShortRowIsRefused() {
    #expect(
      failure("name,imageName,year\nKiwi,,2020\n")?.reason
        == "the header row has no column 'price'")
    let short = failure("name,imageName,year,price\nKiwi,,2020\n")
    #expect(short?.record == 1)
    #expect(short?.line == 2)
    #expect(short?.reason == "it has 3 fields; the header has 4")
  }

  /// A sheet of names, years and prices is a catalog without pictures; columns are read
  /// whatever their case and spacing, and a picture's column by its usual names.
  @Test(arguments: [
    ("name,year,price\nKiwi,2020,1.50\n", ""),
    ("Name,Year,Price,Image\nKiwi,2020,1.50,kiwi.png\n", "kiwi.png"),
    ("NAME,YEAR,PRICE,Image Name\nKiwi,2020,1.50,kiwi.png\n", "kiwi.png"),
    ("name,year,price,image_name\nKiwi,2020,1.50,kiwi.png\n", "kiwi.png"),
    ("name,year, Price ,picture\nKiwi,2020,1.50,kiwi.png\n", "kiwi.png"),
  ])
  func aSpreadsheetsColumnsAreReadAsPeopleNameThem(_ text: String, _ image: String) throws {
    let products = try read(text)
    #expect(products.map(\.name) == ["Kiwi"])
    #expect(products.first?.imageName == image)
    #expect(products.first?.price == Price(cents: 150))
  }

  @Test func twoColumnsForThePictureAreRefusedAsAGuess() {
    #expect(
      failure("name,year,price,image,imageName\nKiwi,2020,1,a.png,b.png\n")?.reason
        == "the header row has two columns for 'imagename': 'image' (column 4) and 'imageName' (column 5)"
    )
  }

  /// What users' files hold and expect accepted: CR-only line ends, blank rows a spreadsheet
  /// leaves, `en`-style currency, names with spaces around them, JSON `null` for optional
  /// fields.
  @Test(arguments: [
    (
      "products.csv", "name,imageName,year,price\rKiwi,,2020,1.5\rLime,,2021,2\r",
      ["Kiwi", "Lime"], 150
    ),
    ("products.csv", "name,imageName,year,price\nKiwi,,2020,1.5\n,,,\n , , ,\n\n", ["Kiwi"], 150),
    (
      "products.csv", "name,imageName,year,price\nKiwi,,2020,\"$1,234.50\"\nLime,,2020,$3\n",
      ["Kiwi", "Lime"], 123_450
    ),
    ("products.csv", "name,imageName,year,price\n  Kiwi  ,,2020,1.5\n", ["Kiwi"], 150),
    ("products.csv", "\u{FEFF}name,imageName,year,price\nKiwi,,2020,1.5\n", ["Kiwi"], 150),
    (
      "products.json",
      #"[{"name": " Kiwi ", "imageName": "", "year": 2020, "price": 1.5, "keywords": null, "identifier": null}]"#,
      ["Kiwi"], 150
    ),
  ])
  func acceptsWhatUsersFilesHold(_ name: String, _ text: String, _ names: [String], _ cents: Int)
    throws
  {
    let products = try read(text, name: name)
    #expect(products.map(\.name) == names)
    #expect(products.first?.price == Price(cents: cents))
    #expect(products.first?.keywords == [])
  }

  /// The bytes of a file: a UTF-16 byte order mark and the text in that byte order.
  private func utf16(_ text: String, bigEndian: Bool) -> Data {
    var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
    for unit in text.utf16 {
      bytes +=
        bigEndian
        ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
    }
    return Data(bytes)
  }

  private func read(_ data: Data) throws -> [Product] {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/sheet.txt"
    try data.write(to: URL(fileURLWithPath: path))
    var products: [Product] = []
    try ProductFile(path: path).forEachProduct { products.append($0) }
    return products
  }

  /// Excel's "Unicode Text" (UTF-16, little-endian, tabs) and PowerShell's `Export-Csv`
  /// (UTF-16 with commas) read as their UTF-8 versions do, in either byte order, with a
  /// character outside the BMP (a surrogate pair) across the reader's 1 MiB buffers.
  @Test(arguments: [false, true])
  func readsUTF16WithAByteOrderMark(bigEndian: Bool) throws {
    let tabs =
      "name\timageName\tyear\tprice\tkeywords\nGrüne Äpfel 🍏\t\t2020\t3.50\tfruit; 苹果\n"
    let fromUTF16 = try read(utf16(tabs, bigEndian: bigEndian))
    let fromUTF8 = try read(tabs, name: "sheet.tsv")
    #expect(fromUTF16.map(\.name) == ["Grüne Äpfel 🍏"])
    #expect(fromUTF16.map(\.name) == fromUTF8.map(\.name))
    #expect(fromUTF16.map(\.price) == fromUTF8.map(\.price))
    #expect(fromUTF16.map(\.keywords) == [["fruit", "苹果"]])
    // Rows up to near the end of the reader's first megabyte, then 🍏 (two code units) at
    // each offset around it: its pair, or a code unit's two bytes, split between two reads.
    let header = "name,imageName,year,price,notes\n"
    let row = "Filler,,2020,1," + String(repeating: "x", count: 985) + "\n"
    let rows = (1 << 20) / 2 / row.utf16.count - 1
    let filler = header + String(repeating: row, count: rows) + "Pad,,2020,1,"
    // The byte order mark, then two bytes a code unit: 🍏's first unit ends the first read.
    let gap = ((1 << 20) - 2 - 2) / 2 - filler.utf16.count - "\nA".utf16.count
    for padding in gap - 2...gap + 2 {
      let text = filler + String(repeating: "y", count: padding) + "\nA🍏,,2021,2,\n"
      let products = try read(utf16(text, bigEndian: bigEndian))
      #expect(products.count == rows + 2)
      #expect(products.last?.name == "A🍏")
    }
  }

  @Test func refusesUTF16ThatIsNotWhole() throws {
    var unpaired = [UInt8](utf16("name,imageName,year,price\nKiwi,,2020,1\n", bigEndian: false))
    unpaired[30] = 0x00
    unpaired[31] = 0xD8  // a high surrogate alone
    var odd = [UInt8](utf16("name,imageName,year,price\nKiwi,,2020,1\n", bigEndian: false))
    odd.append(0x41)
    for bytes in [unpaired, odd] {
      #expect(throws: CatalogError.self) { try read(Data(bytes)) }
    }
  }

  /// What is refused is refused naming the file's problem: two columns for one field, a file
  /// separated by semicolons, a field too long (by its column), a price in another
  /// style (by its record).
  @Test(arguments: [
    (
      "name,imageName,year,price,Name\nKiwi,,2020,1,Lime\n",
      "the header row has two columns for 'name': 'name' (column 1) and 'Name' (column 5)"
    ),
    ("name;imageName;year;price\nKiwi;;2020;1\n", "the file seems separated by semicolons"),
    (
      "name,imageName,year,price,notes\nKiwi,,2020,1," + String(repeating: "x", count: 70_000)
        + "\n",
      "the field 'notes' (column 5) is longer than 65536 bytes"
    ),
    ("name,imageName,year,price\nKiwi,,2020,\"1.234,50\"\n", "price:"),
    // A full-width letter begins with the byte a byte order mark begins with: it is kept.
    ("\u{FF4E}name,imageName,year,price\nKiwi,,2020,1\n", "the header row has no column 'name'"),
  ])
  func refusesNamingTheProblem(_ text: String, _ reason: String) {
    let error = failure(text)
    #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
  }

  @Test func skippingKeepsTheGoodRecordsAndReportsTheOthers() throws {
    let temporary = TemporaryDirectory()
    let path = temporary.path + "/p.json"
    let huge = String(repeating: "N", count: ProductFile.fieldLimit + 10)
    try Data(
      """
      [{"name": "\(huge)", "imageName": "", "year": 2000, "price": 1},
       {"name": "Fine", "imageName": "", "year": 2000, "price": 1}]
      """.utf8
    ).write(to: URL(fileURLWithPath: path))
    let skipped = SkippedRecords()
    var products: [Product] = []
    try ProductFile(path: path, skipping: { skipped.add($0) }).forEachProduct {
      products.append($0)
    }
    #expect(products.map(\.name) == ["Fine"])
    #expect(skipped.reasons == ["the name has 65546 bytes; the limit is 65536"])
  }
}

/// Records that a reader skipped, collected from its callback.
private final class SkippedRecords: @unchecked Sendable {
  private let lock = NSLock()
  private var collected: [String] = []
  var reasons: [String] { lock.withLock { collected } }
  func add(_ error: BadRecord) { lock.withLock { collected.append(error.reason) } }
}
