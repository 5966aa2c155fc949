import Foundation

/// What changed in a catalog after a generation, read in one snapshot.
package struct CatalogChanges: Sendable {
  /// The generation the snapshot shows.
  package var generation: Int
  /// The number of products then.
  package var count: Int
  /// The list numbers of the products deleted, each as it was when it was deleted, in order.
  package var deletedPositions: [Int]
  /// The products added or edited, with their list numbers now, in order.
  package var changed: [(position: Int, product: Product)]

  package init(
    generation: Int, count: Int, deletedPositions: [Int],
    changed: [(position: Int, product: Product)]
  ) {
    self.generation = generation
    self.count = count
    self.deletedPositions = deletedPositions
    self.changed = changed
  }
}
