import Foundation
import StateRestoration

/// An activity one machine handed off for the same user's other machines to continue: Handoff
/// between machines sharing a catalog on a server.
package struct MachineHandoff: Sendable, Hashable {
  /// The server's number for it, newest highest.
  package var id: Int
  /// The machine that published it.
  package var machine: String
  /// The activity.
  package var activity: UserActivityRecord
  /// When it was published.
  package var published: Date

  package init(id: Int, machine: String, activity: UserActivityRecord, published: Date) {
    self.id = id
    self.machine = machine
    self.activity = activity
    self.published = published
  }
}

/// Who hands off and receives: a user on a machine.
package struct HandoffParty: Sendable, Hashable {
  /// The user's name; only their own machines see their handoffs.
  package var user: String
  /// This machine's name (`CATALOG_MACHINE`, or the host name).
  package var machine: String

  package init(user: String, machine: String) {
    self.user = user
    self.machine = machine
  }
}
