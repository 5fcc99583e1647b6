import Foundation
import SQLKit

extension SQLStore: UserStore {
    public func userCount() async throws -> Int {
        struct Row: Decodable { let count: Int }
        return try await serial { db in
            try await db.raw("SELECT COUNT(*) AS count FROM users").first(decoding: Row.self)?.count ?? 0
        }
    }

    public func insertUser(_ user: UserRecord) async throws {
        try await serial { db in
            try await db.insert(into: "users").model(user, keyEncodingStrategy: .convertToSnakeCase).run()
        }
    }

    public func users() async throws -> [UserRecord] {
        try await serial { db in
            try await db.select().column("*").from("users").orderBy("email").all(decoding: UserRecord.self, with: Self.decoding)
        }
    }

    public func user(email: String) async throws -> UserRecord? {
        try await serial { db in
            try await db.select().column("*").from("users").where("email", .equal, email)
                .first(decoding: UserRecord.self, with: Self.decoding)
        }
    }

    public func user(id: String) async throws -> UserRecord? {
        try await serial { db in
            try await db.select().column("*").from("users").where("id", .equal, id)
                .first(decoding: UserRecord.self, with: Self.decoding)
        }
    }

    public func insertToken(hash: String, userId: String, expiresAt: Date) async throws {
        try await serial { db in
            try await db.insert(into: "auth_tokens").columns("token_hash", "user_id", "expires_at")
                .values(SQLBind(hash), SQLBind(userId), SQLBind(expiresAt)).run()
        }
    }

    public func user(tokenHash: String, now: Date) async throws -> UserRecord? {
        try await serial { db in
            try await db.raw(
                """
                SELECT users.* FROM auth_tokens JOIN users ON users.id = auth_tokens.user_id
                WHERE auth_tokens.token_hash = \(bind: tokenHash) AND auth_tokens.expires_at > \(bind: now)
                """
            ).first(decoding: UserRecord.self, with: Self.decoding)
        }
    }

    public func deleteToken(hash: String) async throws {
        try await serial { db in
            try await db.delete(from: "auth_tokens").where("token_hash", .equal, hash).run()
        }
    }

    public func setMember(userId: String, _ isMember: Bool) async throws {
        try await serial { db in
            try await db.update("users").set("is_member", to: SQLBind(isMember)).where("id", .equal, userId).run()
        }
    }

    public func setPasswordHash(userId: String, _ hash: String) async throws {
        try await serial { db in
            try await db.update("users").set("password_hash", to: SQLBind(hash)).where("id", .equal, userId).run()
            try await db.delete(from: "auth_tokens").where("user_id", .equal, userId).run()
        }
    }
}

extension SQLStore: ChannelSettingsStore {
    public func channelSetting(_ name: String, orInsert value: String) async throws -> String {
        struct Row: Decodable { let value: String }
        return try await serial { db in
            // Insert-if-absent then read back: whichever node inserted first, all read its value.
            try await db.insert(into: "channel_settings").columns("name", "value").values(SQLBind(name), SQLBind(value))
                .ignoringConflicts(with: ["name"]).run()
            guard
                let row = try await db.select().column("value").from("channel_settings").where("name", .equal, name)
                    .first(decoding: Row.self)
            else { return value }
            return row.value
        }
    }

    public func channelLastSeen(viewerKey: String) async throws -> Date? {
        struct Row: Decodable { let seenAt: Date }
        return try await serial { db in
            try await db.select().column("seen_at").from("channel_visits").where("viewer_key", .equal, viewerKey)
                .first(decoding: Row.self, with: Self.decoding)?.seenAt
        }
    }

    public func markChannelSeen(viewerKey: String, at: Date) async throws {
        try await serial { db in
            try await db.insert(into: "channel_visits").columns("viewer_key", "seen_at").values(SQLBind(viewerKey), SQLBind(at))
                .onConflict(with: ["viewer_key"]) { try $0.set("seen_at", to: SQLBind(at)) }.run()
        }
    }
}
