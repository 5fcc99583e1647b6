import Foundation

/// A session's co-host (issue #43): someone other than its presenter who may run its console (the
/// presenter's socket, ending it, its passcode) and read its report, as its presenter does. A
/// course's other teachers become co-hosts of the sessions linked in their course.
public struct SessionHostRecord: Sendable, Equatable, Codable {
    public var sessionId: String
    public var userId: String
    /// Who granted it (nil: the server, on a rule such as a course's teachers).
    public var grantedBy: String?
    /// Why, for people reading the grants: `lti-course` (a teacher of the session's course) or
    /// `invited` (added by its presenter or an admin, ``grantedBy``).
    public var reason: String
    public var createdAt: Date

    public init(sessionId: String, userId: String, grantedBy: String?, reason: String, createdAt: Date) {
        self.sessionId = sessionId
        self.userId = userId
        self.grantedBy = grantedBy
        self.reason = reason
        self.createdAt = createdAt
    }
}

/// Who besides its presenter hosts a session. Part of ``SessionStore``.
public protocol SessionHostStore: Sendable {
    /// Grants `host`; true when it is new (a second grant of the same person keeps the first).
    func addSessionHost(_ host: SessionHostRecord) async throws -> Bool
    func isSessionHost(sessionId: String, userId: String) async throws -> Bool
    /// Whether `userId` co-hosts a live (not ended) session of the deck: one read, however many
    /// sessions are live.
    func isHostOfLiveSession(deckId: String, userId: String) async throws -> Bool
    /// The session's co-hosts, oldest grant first.
    func sessionHosts(sessionId: String) async throws -> [SessionHostRecord]
    /// Takes the grant back; true when there was one.
    func removeSessionHost(sessionId: String, userId: String) async throws -> Bool
}
