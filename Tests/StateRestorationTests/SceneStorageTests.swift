import Foundation
import StateRestoration
import SystemSupport
import TestSupport
import Testing

enum Tabs: String, Sendable { case detail, photo }
enum Size: Int, Sendable { case small = 1, large = 2 }
enum Mode: String, Codable, Sendable { case light, dark }
struct Draft: Codable, Hashable, Sendable {
  var title: String
  var tags: [String]
  var count: Int
}

struct DetailView {
  @SceneStorage("DetailView.selectedTab") var selectedTab = Tabs.detail
  @SceneStorage("ContentView.selectedProduct") var selectedProduct: String?
  @SceneStorage("flag") var flag = false
  @SceneStorage("count") var count = 0
  @SceneStorage("ratio") var ratio = 0.5
  @SceneStorage("url") var url = URL(fileURLWithPath: "/example")
  @SceneStorage("data") var data = Data()
  @SceneStorage("date") var date = Date(timeIntervalSinceReferenceDate: 0)
  @SceneStorage("size") var size = Size.small
  @SceneStorage("mode") var mode = Mode.light
  @SceneStorage("draft") var draft = Draft(title: "", tags: [], count: 0)
  @SceneStorage("optionalDraft") var optionalDraft: Draft?
  @SceneStorage("optionalSize") var optionalSize: Size?
}

@Suite struct SceneStorageTests {
  @Test func propertiesReadDefaultsInAnEmptyScene() {
    let view = SceneStore.$current.withValue(SceneStore()) { DetailView() }
    #expect(view.selectedTab == .detail)
    #expect(view.selectedProduct == nil)
    #expect(view.count == 0)
    #expect(view.draft == Draft(title: "", tags: [], count: 0))
  }

  @Test func propertiesWriteToTheCurrentScenesStore() {
    let store = SceneStore()
    let view = SceneStore.$current.withValue(store) { DetailView() }
    view.selectedTab = .photo
    view.selectedProduct = "FA542E3D-4895-44B6-942F-E112101D5160"
    view.size = .large
    view.mode = .dark
    #expect(store.values.entries["DetailView.selectedTab"] == .string("photo"))
    #expect(
      store.values.entries["ContentView.selectedProduct"]
        == .string("FA542E3D-4895-44B6-942F-E112101D5160"))
    #expect(store.values.entries["size"] == .int(2))
    #expect(store.values.entries["mode"] == .string("dark"))
    // A second view in the same scene sees the same values, as in SwiftUI.
    let other = SceneStore.$current.withValue(store) { DetailView() }
    #expect(other.selectedTab == .photo)
    #expect(store.changeCount == 4)
  }

  @Test func settingAnOptionalToNilRemovesTheKey() {
    let store = SceneStore()
    let view = SceneStore.$current.withValue(store) { DetailView() }
    view.selectedProduct = "x"
    view.optionalSize = .large
    view.selectedProduct = nil
    view.optionalSize = nil
    #expect(store.values.isEmpty)
  }

  @Test func scenesDoNotShareStorage() {
    let first = SceneStore()
    let second = SceneStore()
    let a = SceneStore.$current.withValue(first) { DetailView() }
    let b = SceneStore.$current.withValue(second) { DetailView() }
    a.count = 7
    #expect(b.count == 0)
  }

  @Test func aPropertyOutsideASceneKeepsItsOwnUnsavedValue() {
    let view = DetailView()
    view.count = 3
    #expect(view.count == 3)
  }

  @Test func aValueStoredAsAnotherTypeReadsAsTheDefault() {
    let mismatched: [String: StoredValue] = [
      "DetailView.selectedTab": .int(4), "ContentView.selectedProduct": .bool(true),
      "flag": .string("yes"),
      "count": .double(2.5), "ratio": .int(1), "url": .string("https://x"), "data": .string("AAAA"),
      "date": .double(3), "size": .int(99), "mode": .string("sepia"),
      "draft": .codable(Data("{\"title\":1}".utf8)),
      "optionalDraft": .string("x"), "optionalSize": .string("large"),
    ]
    let view = SceneStore.$current.withValue(SceneStore(SceneStorageValues(mismatched))) {
      DetailView()
    }
    #expect(view.selectedTab == .detail)
    #expect(view.selectedProduct == nil)
    #expect(view.flag == false)
    #expect(view.count == 0)
    #expect(view.ratio == 0.5)
    #expect(view.url == URL(fileURLWithPath: "/example"))
    #expect(view.data == Data())
    #expect(view.date == Date(timeIntervalSinceReferenceDate: 0))
    #expect(view.size == .small)
    #expect(view.mode == .light)
    #expect(view.draft == Draft(title: "", tags: [], count: 0))
    #expect(view.optionalDraft == nil)
    #expect(view.optionalSize == nil)
  }

  @Test func everyTypeRoundTripsThroughAStateFile() throws {
    let temporary = TemporaryDirectory()
    let directory = try StateDirectory(creating: temporary.path + "/state")
    let store = SceneStore()
    let view = SceneStore.$current.withValue(store) { DetailView() }
    view.selectedTab = .photo
    view.selectedProduct = "FA542E3D-4895-44B6-942F-E112101D5160"
    view.flag = true
    view.count = Int.max
    view.ratio = 0.1 + 0.2
    view.url = URL(string: "catalog://product/Cherries?tab=photo")!
    view.data = Data([0, 1, 2, 255])
    view.date = Date(timeIntervalSinceReferenceDate: 785_000_000.123456)
    view.size = .large
    view.mode = .dark
    view.draft = Draft(title: "Morello \"quoted\" 樱桃", tags: ["a", "b"], count: 3)
    view.optionalDraft = Draft(title: "x", tags: [], count: -1)
    view.optionalSize = .large
    let file = TestSceneFile(storage: store.values)
    try directory.save(file, to: "scenes/main.json")
    let loaded = try #require(try directory.load(TestSceneFile.self, from: "scenes/main.json"))
    #expect(loaded == file)
    let restored = SceneStore.$current.withValue(SceneStore(loaded.storage)) { DetailView() }
    #expect(restored.selectedTab == .photo)
    #expect(restored.selectedProduct == "FA542E3D-4895-44B6-942F-E112101D5160")
    #expect(restored.flag == true)
    #expect(restored.count == Int.max)
    #expect(restored.ratio == 0.1 + 0.2)
    #expect(restored.url == URL(string: "catalog://product/Cherries?tab=photo"))
    #expect(restored.data == Data([0, 1, 2, 255]))
    #expect(restored.date == Date(timeIntervalSinceReferenceDate: 785_000_000.123456))
    #expect(restored.size == .large)
    #expect(restored.mode == .dark)
    #expect(restored.draft == Draft(title: "Morello \"quoted\" 樱桃", tags: ["a", "b"], count: 3))
    #expect(restored.optionalDraft == Draft(title: "x", tags: [], count: -1))
    #expect(restored.optionalSize == .large)
  }

  @Test(arguments: [
    Double.nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
  ])
  func doublesKeepTheirValueOnDisk(_ value: Double) throws {
    let data = try JSONEncoder().encode(StoredValue.double(value))
    let decoded = try JSONDecoder().decode(StoredValue.self, from: data)
    guard case .double(let restored) = decoded else {
      Issue.record("decoded \(decoded)")
      return
    }
    #expect(restored.bitPattern == value.bitPattern || (restored.isNaN && value.isNaN))
  }

  @Test func anIntStaysAnIntAndDataStaysData() throws {
    let values = SceneStorageValues([
      "n": .int(2015), "d": .data(Data("2015".utf8)), "s": .string("2015"),
    ])
    let decoded = try JSONDecoder().decode(
      SceneStorageValues.self, from: JSONEncoder().encode(values))
    #expect(decoded == values)
  }
}

struct TestSceneFile: VersionedFormat, Hashable {
  static let currentFormatVersion = 1
  var formatVersion = 1
  var storage: SceneStorageValues
}
