import Foundation
import SQLKit

/// LTI 1.3 on SQL: plain statements both databases run (`RETURNING` included).
extension SQLStore: LTIStore {
    /// A platform's row: its deployment ids as a JSON array.
    private struct PlatformRow: Codable {
        var id: String
        var name: String
        var issuer: String
        var clientId: String
        var deploymentIds: String
        var authLoginUrl: String
        var tokenUrl: String
        var jwksUrl: String
        var createdAt: Date

        init(_ record: LTIPlatformRecord) {
            id = record.id
            name = record.name
            issuer = record.issuer
            clientId = record.clientId
            let json = (try? JSONEncoder().encode(record.deploymentIds)) ?? Data("[]".utf8)
            deploymentIds = String(decoding: json, as: UTF8.self)
            authLoginUrl = record.authLoginURL
            tokenUrl = record.tokenURL
            jwksUrl = record.jwksURL
            createdAt = record.createdAt
        }

        var record: LTIPlatformRecord {
            LTIPlatformRecord(
                id: id, name: name, issuer: issuer, clientId: clientId,
                deploymentIds: (try? JSONDecoder().decode([String].self, from: Data(deploymentIds.utf8))) ?? [],
                authLoginURL: authLoginUrl, tokenURL: tokenUrl, jwksURL: jwksUrl, createdAt: createdAt)
        }
    }

    private struct LoginRow: Codable {
        var state: String
        var nonce: String
        var platformId: String
        var targetLinkUri: String
        var expiresAt: Date

        var record: LTILoginRecord {
            LTILoginRecord(state: state, nonce: nonce, platformId: platformId, targetLinkURI: targetLinkUri, expiresAt: expiresAt)
        }
    }

    private struct DeepLinkRow: Codable {
        var id: String
        var platformId: String
        var deploymentId: String
        var contextId: String?
        var userId: String
        var returnUrl: String
        var data: String?
        var acceptMultiple: Bool
        var expiresAt: Date

        var record: LTIDeepLinkRecord {
            LTIDeepLinkRecord(
                id: id, platformId: platformId, deploymentId: deploymentId, userId: userId, returnURL: returnUrl, data: data,
                acceptMultiple: acceptMultiple, expiresAt: expiresAt, contextId: contextId)
        }
    }

    public func insertLTIPlatform(_ platform: LTIPlatformRecord) async throws {
        try await serial { db in
            try await db.insert(into: "lti_platforms")
                .model(PlatformRow(platform), keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil)
                .run()
        }
    }

    public func ltiPlatforms() async throws -> [LTIPlatformRecord] {
        try await serial { db in
            try await db.select().column("*").from("lti_platforms").orderBy("created_at").orderBy("id")
                .all(decoding: PlatformRow.self, with: Self.decoding)
        }
        .map(\.record)
    }

    public func ltiPlatform(id: String) async throws -> LTIPlatformRecord? {
        try await serial { db in
            try await db.select().column("*").from("lti_platforms").where("id", .equal, id)
                .first(decoding: PlatformRow.self, with: Self.decoding)
        }?
        .record
    }

    public func ltiPlatforms(issuer: String) async throws -> [LTIPlatformRecord] {
        try await serial { db in
            try await db.select().column("*").from("lti_platforms").where("issuer", .equal, issuer)
                .orderBy("created_at").orderBy("id")
                .all(decoding: PlatformRow.self, with: Self.decoding)
        }
        .map(\.record)
    }

    public func deleteLTIPlatform(id: String) async throws -> Bool {
        struct Deleted: Decodable { let id: String }
        return try await transaction { db in
            for table in ["lti_logins", "lti_users", "lti_deep_links", "lti_placements"] {
                try await db.delete(from: table).where("platform_id", .equal, id).run()
            }
            return try await db.raw("DELETE FROM lti_platforms WHERE id = \(bind: id) RETURNING id")
                .all(decoding: Deleted.self).isEmpty == false
        }
    }

    public func insertLTILogin(_ login: LTILoginRecord, now: Date) async throws {
        let row = LoginRow(
            state: login.state, nonce: login.nonce, platformId: login.platformId, targetLinkUri: login.targetLinkURI,
            expiresAt: login.expiresAt)
        try await serial { db in
            try await db.delete(from: "lti_logins").where("expires_at", .lessThan, now).run()
            try await db.insert(into: "lti_logins")
                .model(row, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil)
                .run()
        }
    }

    public func takeLTILogin(state: String, now: Date) async throws -> LTILoginRecord? {
        let rows = try await serial { db in
            try await db.raw("DELETE FROM lti_logins WHERE state = \(bind: state) RETURNING *")
                .all(decoding: LoginRow.self, with: Self.decoding)
        }
        guard let row = rows.first, row.expiresAt >= now else { return nil }
        return row.record
    }

    public func ltiUserId(platformId: String, subject: String) async throws -> String? {
        struct Row: Decodable { let userId: String }
        return try await serial { db in
            try await db.select().column("user_id").from("lti_users")
                .where("platform_id", .equal, platformId).where("subject", .equal, subject)
                .first(decoding: Row.self, with: Self.decoding)
        }?
        .userId
    }

    public func linkLTIUser(platformId: String, subject: String, userId: String) async throws {
        try await serial { db in
            try await db.raw(
                """
                INSERT INTO lti_users (platform_id, subject, user_id) VALUES (\(bind: platformId), \(bind: subject), \(bind: userId))
                ON CONFLICT (platform_id, subject) DO UPDATE SET user_id = excluded.user_id
                """
            ).run()
        }
    }

    public func insertLTIDeepLink(_ link: LTIDeepLinkRecord, now: Date) async throws {
        let row = DeepLinkRow(
            id: link.id, platformId: link.platformId, deploymentId: link.deploymentId, contextId: link.contextId,
            userId: link.userId,
            returnUrl: link.returnURL, data: link.data, acceptMultiple: link.acceptMultiple, expiresAt: link.expiresAt)
        try await serial { db in
            try await db.delete(from: "lti_deep_links").where("expires_at", .lessThan, now).run()
            try await db.insert(into: "lti_deep_links")
                .model(row, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil)
                .run()
        }
    }

    public func ltiDeepLink(id: String, now: Date) async throws -> LTIDeepLinkRecord? {
        try await serial { db in
            try await db.select().column("*").from("lti_deep_links").where("id", .equal, id)
                .where("expires_at", .greaterThanOrEqual, now)
                .first(decoding: DeepLinkRow.self, with: Self.decoding)
        }?
        .record
    }

    public func deleteLTIDeepLink(id: String) async throws -> Bool {
        struct Deleted: Decodable { let id: String }
        return try await serial { db in
            try await db.raw("DELETE FROM lti_deep_links WHERE id = \(bind: id) RETURNING id")
                .all(decoding: Deleted.self).isEmpty == false
        }
    }

    public func placeLTIContent(
        platformId: String, contextId: String, kind: String, target: String, placedBy: String?, at: Date
    ) async throws {
        try await serial { db in
            try await db.raw(
                """
                INSERT INTO lti_placements (platform_id, context_id, kind, target, placed_by, created_at)
                VALUES (\(bind: platformId), \(bind: contextId), \(bind: kind), \(bind: target), \(bind: placedBy), \(bind: at))
                ON CONFLICT (platform_id, context_id, kind, target) DO NOTHING
                """
            ).run()
        }
    }

    public func isLTIContentPlaced(platformId: String, contextId: String, kind: String, target: String) async throws -> Bool {
        struct Row: Decodable { let target: String }
        return try await serial { db in
            try await db.select().column("target").from("lti_placements")
                .where("platform_id", .equal, platformId).where("context_id", .equal, contextId)
                .where("kind", .equal, kind).where("target", .equal, target)
                .first(decoding: Row.self, with: Self.decoding)
        } != nil
    }

    public func recordLTICourseTeacher(platformId: String, contextId: String, userId: String, at: Date) async throws {
        try await serial { db in
            try await db.raw(
                """
                INSERT INTO lti_placements (platform_id, context_id, kind, target, placed_by, created_at)
                VALUES (\(bind: platformId), \(bind: contextId), 'teacher', \(bind: userId), \(bind: userId), \(bind: at))
                ON CONFLICT (platform_id, context_id, kind, target) DO UPDATE SET created_at = excluded.created_at
                """
            ).run()
        }
    }

    public func ltiCourseTeaching(userId: String, deckId: String, since: Date) async throws -> LTICourse? {
        struct Row: Decodable {
            let platformId: String
            let contextId: String
        }
        return try await serial { db in
            try await db.raw(
                """
                SELECT deck.platform_id, deck.context_id FROM lti_placements deck
                JOIN lti_placements teacher
                  ON teacher.platform_id = deck.platform_id AND teacher.context_id = deck.context_id
                WHERE deck.kind = 'deck' AND deck.target = \(bind: deckId)
                  AND teacher.kind = 'teacher' AND teacher.target = \(bind: userId) AND teacher.created_at >= \(bind: since)
                ORDER BY teacher.created_at DESC LIMIT 1
                """
            ).first(decoding: Row.self, with: Self.decoding)
        }
        .map { LTICourse(platformId: $0.platformId, contextId: $0.contextId) }
    }
}
