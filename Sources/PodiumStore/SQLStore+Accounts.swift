import Foundation
import SQLKit

/// Account links, roles and the audit log on SQL: plain statements both databases run
/// (`RETURNING` included).
extension SQLStore: AccountStore {
    public func insertAccountLink(_ link: AccountLinkRecord) async throws {
        try await serial { db in
            try await db.insert(into: "account_links")
                .model(link, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
        }
    }

    public func accountLink(id: String) async throws -> AccountLinkRecord? {
        try await serial { db in
            try await db.select().column("*").from("account_links").where("id", .equal, id)
                .first(decoding: AccountLinkRecord.self, with: Self.decoding)
        }
    }

    public func accountLink(tokenHash: String) async throws -> AccountLinkRecord? {
        try await serial { db in
            try await db.select().column("*").from("account_links").where("token_hash", .equal, tokenHash)
                .first(decoding: AccountLinkRecord.self, with: Self.decoding)
        }
    }

    public func accountLinks(kind: AccountLinkRecord.Kind, statuses: [AccountLinkRecord.Status]) async throws
        -> [AccountLinkRecord]
    {
        guard !statuses.isEmpty else { return [] }
        return try await serial { db in
            try await db.select().column("*").from("account_links").where("kind", .equal, kind.rawValue)
                .where("status", .in, statuses.map(\.rawValue)).orderBy("created_at", .descending).orderBy("id")
                .all(decoding: AccountLinkRecord.self, with: Self.decoding)
        }
    }

    public func moveAccountLink(
        id: String, from: AccountLinkRecord.Status, to: AccountLinkRecord.Status, now: Date?
    ) async throws -> Bool {
        struct Moved: Decodable { let id: String }
        return try await serial { db in
            let moved: [Moved]
            if let now {
                moved = try await db.raw(
                    """
                    UPDATE account_links SET status = \(bind: to.rawValue), used_at = \(bind: now)
                    WHERE id = \(bind: id) AND status = \(bind: from.rawValue) AND expires_at > \(bind: now)
                    RETURNING id
                    """
                ).all(decoding: Moved.self)
            } else {
                moved = try await db.raw(
                    """
                    UPDATE account_links SET status = \(bind: to.rawValue)
                    WHERE id = \(bind: id) AND status = \(bind: from.rawValue)
                    RETURNING id
                    """
                ).all(decoding: Moved.self)
            }
            return !moved.isEmpty
        }
    }

    public func renewAccountLink(id: String, tokenHash: String, expiresAt: Date) async throws -> Bool {
        struct Renewed: Decodable { let id: String }
        return try await serial { db in
            try await db.raw(
                """
                UPDATE account_links SET token_hash = \(bind: tokenHash), expires_at = \(bind: expiresAt),
                  delivery = \(bind: AccountLinkRecord.Delivery.queued.rawValue), delivery_error = NULL
                WHERE id = \(bind: id) AND status = \(bind: AccountLinkRecord.Status.pending.rawValue)
                RETURNING id
                """
            ).all(decoding: Renewed.self).isEmpty == false
        }
    }

    public func setAccountLinkDelivery(id: String, _ delivery: AccountLinkRecord.Delivery, error: String?) async throws {
        try await serial { db in
            try await db.update("account_links").set("delivery", to: SQLBind(delivery.rawValue))
                .set("delivery_error", to: SQLBind(error)).where("id", .equal, id).run()
        }
    }

    public func revokeAccountLinks(kind: AccountLinkRecord.Kind, email: String) async throws {
        try await serial { db in
            try await db.update("account_links").set("status", to: SQLBind(AccountLinkRecord.Status.revoked.rawValue))
                .where("kind", .equal, kind.rawValue).where("email", .equal, email)
                .where("status", .equal, AccountLinkRecord.Status.pending.rawValue).run()
        }
    }

    public func setRole(userId: String, _ role: UserRecord.Role) async throws {
        try await serial { db in
            try await db.update("users").set("role", to: SQLBind(role.rawValue)).where("id", .equal, userId).run()
        }
    }

    public func setUserLanguage(userId: String, _ language: String?) async throws {
        try await serial { db in
            try await db.update("users").set("language", to: SQLBind(language)).where("id", .equal, userId).run()
        }
    }

    public func endSignIns(userId: String) async throws {
        try await serial { db in
            try await db.delete(from: "auth_tokens").where("user_id", .equal, userId).run()
        }
    }

    public func userLanguage(userId: String) async throws -> String? {
        struct Row: Decodable { let language: String? }
        return try await serial { db in
            try await db.select().column("language").from("users").where("id", .equal, userId)
                .first(decoding: Row.self)?.language
        }
    }

    public func adminCount() async throws -> Int {
        struct Row: Decodable { let count: Int }
        return try await serial { db in
            try await db.raw("SELECT COUNT(*) AS count FROM users WHERE role = \(bind: UserRecord.Role.admin.rawValue)")
                .first(decoding: Row.self)?.count ?? 0
        }
    }

    @discardableResult
    public func appendAudit(_ entry: AuditRecord) async throws -> AuditRecord {
        struct Row: Decodable { let seq: Int }
        let row = try await serial { db in
            try await db.raw(
                """
                INSERT INTO audit_log (at, actor_id, actor_name, action, target, detail, address)
                VALUES (\(bind: entry.at), \(bind: entry.actorId), \(bind: entry.actorName), \(bind: entry.action),
                  \(bind: entry.target), \(bind: entry.detail), \(bind: entry.address))
                RETURNING seq
                """
            ).first(decoding: Row.self)
        }
        var numbered = entry
        numbered.seq = row?.seq ?? 0
        return numbered
    }

    public func auditEntries(before: Int?, limit: Int) async throws -> [AuditRecord] {
        try await serial { db in
            var query = db.select().column("*").from("audit_log")
            if let before { query = query.where("seq", .lessThan, before) }
            return try await query.orderBy("seq", .descending).limit(max(0, limit))
                .all(decoding: AuditRecord.self, with: Self.decoding)
        }
    }
}
