import Foundation
import PodiumStore

/// Who hosts a session, the one rule every host-only door asks (the presenter's socket, ending it,
/// its passcode, its report): its presenter, an admin, or a co-host granted on it (a course's
/// other teachers, issue #43; ``SessionHostStore``).
struct SessionHosts: Sendable {
    let store: any SessionStore
    /// A course's teachers, who may present a deck placed in their course before it is live (nil: none).
    var courses: CourseTeachers? = nil

    func isHost(_ user: UserRecord?, of record: SessionRecord) async throws -> Bool {
        try await part(of: user, in: record) != nil
    }

    /// How `user` hosts the session, if they do: an admin who neither presents nor co-hosts it
    /// hosts it by right (asked no further: their co-hosting changes nothing they may do).
    func part(of user: UserRecord?, in record: SessionRecord) async throws -> HostPart? {
        guard let user else { return nil }
        if user.id == record.presenterId { return .presenter }
        if user.role == .admin { return .admin }
        return try await store.isSessionHost(sessionId: record.id, userId: user.id) ? .coHost : nil
    }

    enum HostPart {
        case presenter, coHost, admin

        /// The session is theirs to run (the library's "you're live" banner): an admin's right
        /// over every session does not make each one theirs.
        var isTheirs: Bool { self != .admin }
    }

    /// Whether `user` may read `deck` to present it (the console's speaker notes and question
    /// bank, the library's Go live dialog): its owner, an admin, a co-host of one of its live
    /// sessions, or a teacher of a course it is placed in, who may start it. Changing it stays
    /// its owner's.
    func mayPresent(_ deck: DeckRecord, user: UserRecord) async throws -> Bool {
        if deck.ownerId == user.id || user.role == .admin { return true }
        if try await store.isHostOfLiveSession(deckId: deck.id, userId: user.id) { return true }
        return try await courses?.course(startingDeck: deck, user: user) != nil
    }
}
