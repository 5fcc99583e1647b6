import Foundation
import SQLKit

/// A session's co-hosts on SQL: plain statements both databases run.
extension SQLStore: SessionHostStore {
    private struct HostRow: Codable {
        var sessionId: String
        var userId: String
        var grantedBy: String?
        var reason: String
        var createdAt: Date

        var record: SessionHostRecord {
            SessionHostRecord(sessionId: sessionId, userId: userId, grantedBy: grantedBy, reason: reason, createdAt: createdAt)
        }
    }

    public func addSessionHost(_ host: SessionHostRecord) async throws -> Bool {
        struct Added: Decodable { let userId: String }
        return try await serial { db in
            try await db.raw(
                """
                INSERT INTO session_hosts (session_id, user_id, granted_by, reason, created_at)
                VALUES (\(bind: host.sessionId), \(bind: host.userId), \(bind: host.grantedBy), \(bind: host.reason),
                \(bind: host.createdAt))
                ON CONFLICT (session_id, user_id) DO NOTHING RETURNING user_id
                """
            ).all(decoding: Added.self, with: Self.decoding).isEmpty == false
        }
    }

    public func isSessionHost(sessionId: String, userId: String) async throws -> Bool {
        struct Row: Decodable { let userId: String }
        return try await serial { db in
            try await db.select().column("user_id").from("session_hosts")
                .where("session_id", .equal, sessionId).where("user_id", .equal, userId)
                .first(decoding: Row.self, with: Self.decoding)
        } != nil
    }

    public func isHostOfLiveSession(deckId: String, userId: String) async throws -> Bool {
        struct Row: Decodable { let userId: String }
        return try await serial { db in
            try await db.raw(
                """
                SELECT session_hosts.user_id FROM session_hosts JOIN sessions ON sessions.id = session_hosts.session_id
                WHERE sessions.deck_id = \(bind: deckId) AND sessions.ended_at IS NULL
                AND session_hosts.user_id = \(bind: userId) LIMIT 1
                """
            ).first(decoding: Row.self, with: Self.decoding)
        } != nil
    }

    public func sessionHosts(sessionId: String) async throws -> [SessionHostRecord] {
        try await serial { db in
            try await db.select().column("*").from("session_hosts").where("session_id", .equal, sessionId)
                .orderBy("created_at").orderBy("user_id")
                .all(decoding: HostRow.self, with: Self.decoding)
        }
        .map(\.record)
    }

    public func removeSessionHost(sessionId: String, userId: String) async throws -> Bool {
        struct Removed: Decodable { let userId: String }
        return try await serial { db in
            try await db.raw(
                """
                DELETE FROM session_hosts WHERE session_id = \(bind: sessionId) AND user_id = \(bind: userId)
                RETURNING user_id
                """
            ).all(decoding: Removed.self, with: Self.decoding).isEmpty == false
        }
    }
}
