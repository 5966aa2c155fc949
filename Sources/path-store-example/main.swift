// A path store as SwiftUI's navigation articles write one, run on Linux: an @Observable,
// @MainActor class that keeps a NavigationPath and an [Int] in URL.documentsDirectory and
// saves them on every change. Everything below is the code an Apple app would have; Linux
// adds `import StateRestoration` (NavigationPath, URL.documentsDirectory).
//
//   path-store-example
//   commands: push N | push WORD | point X Y | add N | pop | show | quit
import Foundation
import Observation
import StateRestoration

/// A point pushed onto the path: a program's own Codable type, saved without registration.
struct Point: Codable, Hashable {
  var x: Int
  var y: Int
}

@Observable @MainActor
final class PathStore {
  var path: NavigationPath {
    didSet { save() }
  }
  var numbers: [Int] {
    didSet { save() }
  }

  private let pathURL = URL.documentsDirectory.appending(path: "SavedPath.json")
  private let numbersURL = URL.documentsDirectory.appending(path: "SavedNumbers.json")

  init() {
    if let data = try? Data(contentsOf: pathURL) {
      do {
        let representation = try JSONDecoder().decode(
          NavigationPath.CodableRepresentation.self, from: data)
        path = NavigationPath(representation)
      } catch {
        path = NavigationPath()
      }
    } else {
      path = NavigationPath()
    }
    if let data = try? Data(contentsOf: numbersURL),
      let saved = try? JSONDecoder().decode([Int].self, from: data)
    {
      numbers = saved
    } else {
      numbers = []
    }
  }

  func save() {
    do {
      if let representation = path.codable {
        try JSONEncoder().encode(representation).write(to: pathURL, options: .atomic)
      }
      try JSONEncoder().encode(numbers).write(to: numbersURL, options: .atomic)
    } catch {
      FileHandle.standardError.write(Data("error: not saved: \(error.localizedDescription)\n".utf8))
    }
  }
}

/// Writes a line at once, unbuffered: each answer reaches a pipe as it is given.
func show(_ text: String) {
  FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

@MainActor
func describe(_ path: NavigationPath) -> String {
  guard let representation = path.codable,
    let strings = try? JSONDecoder().decode(
      [String].self, from: JSONEncoder().encode(representation))
  else { return "\(path.count) elements" }
  // Pairs of type name and value, the last element first.
  var elements: [String] = []
  var index = strings.count - 2
  while index >= 0 {
    elements.append("\(strings[index]) \(strings[index + 1])")
    index -= 2
  }
  return elements.isEmpty ? "(empty)" : elements.joined(separator: " / ")
}

@MainActor
func run() {
  let store = PathStore()
  show("path: \(describe(store.path)); numbers: \(store.numbers)")
  while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    switch words.first {
    case "push" where words.count == 2:
      if let number = Int(words[1]) {
        store.path.append(number)
      } else {
        store.path.append(words[1])
      }
    case "point" where words.count == 3:
      guard let x = Int(words[1]), let y = Int(words[2]) else { fallthrough }
      store.path.append(Point(x: x, y: y))
    case "add" where words.count == 2:
      guard let number = Int(words[1]) else { fallthrough }
      store.numbers.append(number)
    case "pop":
      if !store.path.isEmpty { store.path.removeLast() }
    case "show":
      show("path: \(describe(store.path)); numbers: \(store.numbers)")
    case "quit":
      return
    default:
      FileHandle.standardError.write(
        Data("error: commands: push N | push WORD | point X Y | add N | pop | show | quit\n".utf8))
    }
  }
}

MainActor.assumeIsolated { run() }
