// The start-up baseline for `catalog-bench startup`: the smallest Foundation program.
import Foundation

print("Hello, \(ProcessInfo.processInfo.processName)!")
