import Foundation
import SQLKit

/// Single sign-on's identities on SQL: plain statements both databases run.
extension SQLStore: ExternalIdentityStore {
    public func externalIdentity(issuer: String, subject: String) async throws -> ExternalIdentityRecord? {
        try await serial { db in
            try await db.select().column("*").from("external_identities")
                .where("issuer", .equal, issuer).where("subject", .equal, subject)
                .first(decoding: ExternalIdentityRecord.self, with: Self.decoding)
        }
    }

    public func insertExternalIdentity(_ identity: ExternalIdentityRecord) async throws -> Bool {
        struct Row: Decodable { let subject: String }
        return try await serial { db in
            try await db.raw(
                """
                INSERT INTO external_identities (issuer, subject, user_id, email, created_at, last_sign_in_at)
                VALUES (\(bind: identity.issuer), \(bind: identity.subject), \(bind: identity.userId), \(bind: identity.email),
                  \(bind: identity.createdAt), \(bind: identity.lastSignInAt))
                ON CONFLICT (issuer, subject) DO NOTHING RETURNING subject
                """
            ).first(decoding: Row.self) != nil
        }
    }

    public func touchExternalIdentity(issuer: String, subject: String, email: String?, at: Date) async throws {
        try await serial { db in
            try await db.update("external_identities").set("email", to: SQLBind(email)).set("last_sign_in_at", to: SQLBind(at))
                .where("issuer", .equal, issuer).where("subject", .equal, subject).run()
        }
    }

    public func externalIdentities(userId: String) async throws -> [ExternalIdentityRecord] {
        try await serial { db in
            try await db.select().column("*").from("external_identities").where("user_id", .equal, userId)
                .orderBy("created_at").all(decoding: ExternalIdentityRecord.self, with: Self.decoding)
        }
    }

    public func setRoleAndMembership(userId: String, role: UserRecord.Role, isMember: Bool) async throws {
        try await serial { db in
            try await db.update("users").set("role", to: SQLBind(role.rawValue)).set("is_member", to: SQLBind(isMember))
                .where("id", .equal, userId).run()
        }
    }
}
