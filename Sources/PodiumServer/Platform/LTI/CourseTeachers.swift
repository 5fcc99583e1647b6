import Foundation
import PodiumStore

/// A course's teachers (issue #43), the one rule for what a learning platform's course shares
/// between them: a session placed in it makes its other teachers co-hosts, and a deck placed in
/// it may be started by any of them (an Instructor or Administrator whose launch from that course,
/// on that platform, is recent: ``launchLifetime``). The session such a teacher starts stays the
/// deck owner's (see ``SessionController/create(_:context:)``); they become its co-host.
struct CourseTeachers: Sendable {
    let store: any LTIStore
    let sessions: any SessionStore
    /// Records the co-hosts a course's teachers become (`lti.cohost_granted`).
    let audit: AuditLog?
    let now: @Sendable () -> Date

    /// How long a teacher's launch vouches that they teach its course, for starting one of its
    /// decks: as long as the picker's deep linking request lasts. The platform, not Podium, knows
    /// who teaches a course; a teacher removed from it cannot start its decks after this.
    static let launchLifetime: TimeInterval = LTIController.deepLinkLifetime

    /// The course through which `user` may start `deck` (it is placed there, and they launched
    /// from there as its teacher lately); nil for its owner or anyone else.
    func course(startingDeck deck: DeckRecord, user: UserRecord) async throws -> LTICourse? {
        guard deck.ownerId != user.id else { return nil }
        return try await store.ltiCourseTeaching(userId: user.id, deckId: deck.id, since: now() - Self.launchLifetime)
    }

    /// The course's name in the audit log: its title from the launch, else its id on the platform.
    func courseName(_ course: LTICourse, title: String? = nil) async throws -> String {
        let platform = try await store.ltiPlatform(id: course.platformId)
        let name = title.flatMap { $0.isEmpty ? nil : $0 } ?? course.contextId
        return "\(name) on \(platform?.name ?? course.platformId)"
    }

    /// Makes `user` a co-host of `session` because they teach `course`, in the audit log the first time.
    func grant(_ session: SessionRecord, to user: UserRecord, course: String) async throws {
        let host = SessionHostRecord(
            sessionId: session.id, userId: user.id, grantedBy: nil, reason: "lti-course", createdAt: now())
        guard try await sessions.addSessionHost(host) else { return }
        try await audit?.record(
            "lti.cohost_granted", by: nil, target: user.email, detail: "session \(session.code), course \(course)")
    }
}

extension CourseTeachers {
    init(_ platform: Platform) {
        self.init(
            store: platform.stores.lti, sessions: platform.stores.sessions,
            audit: AuditLog(store: platform.stores.accounts, now: platform.now), now: platform.now)
    }
}
