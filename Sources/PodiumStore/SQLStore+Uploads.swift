import Foundation
import SQLKit

/// Resumable uploads on SQL: plain statements both databases run (`RETURNING` included).
extension SQLStore: UploadStore {
    public func insertUpload(_ upload: UploadRecord) async throws {
        try await serial { db in
            try await db.insert(into: "uploads")
                .model(upload, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil)
                .run()
        }
    }

    public func upload(id: String) async throws -> UploadRecord? {
        try await serial { db in
            try await db.select().column("*").from("uploads").where("id", .equal, id)
                .first(decoding: UploadRecord.self, with: Self.decoding)
        }
    }

    public func advanceUpload(id: String, from: Int, to: Int, expiresAt: Date, holder: String) async throws -> Bool {
        struct Moved: Decodable { let id: String }
        return try await serial { db in
            try await db.raw(
                """
                UPDATE uploads SET upload_offset = \(bind: to), expires_at = \(bind: expiresAt)
                WHERE id = \(bind: id) AND upload_offset = \(bind: from) AND result IS NULL
                  AND lease_holder = \(bind: holder)
                RETURNING id
                """
            ).all(decoding: Moved.self).isEmpty == false
        }
    }

    public func takeUploadLease(id: String, holder: String, until: Date, now: Date) async throws -> Bool {
        struct Taken: Decodable { let id: String }
        return try await serial { db in
            try await db.raw(
                """
                UPDATE uploads SET lease_holder = \(bind: holder), lease_until = \(bind: until), lease_wanted = NULL
                WHERE id = \(bind: id)
                  AND (lease_holder IS NULL OR lease_until < \(bind: now) OR lease_holder = \(bind: holder))
                RETURNING id
                """
            ).all(decoding: Taken.self).isEmpty == false
        }
    }

    public func wantUploadLease(id: String, holder: String) async throws {
        try await serial { db in
            try await db.raw(
                """
                UPDATE uploads SET lease_wanted = \(bind: holder)
                WHERE id = \(bind: id) AND lease_holder IS NOT NULL AND lease_holder <> \(bind: holder)
                """
            ).run()
        }
    }

    public func renewUploadLease(id: String, holder: String, until: Date) async throws -> UploadLeaseRenewal {
        struct Renewed: Decodable {
            let wanted: String?
            enum CodingKeys: String, CodingKey { case wanted = "lease_wanted" }
        }
        let rows = try await serial { db in
            try await db.raw(
                """
                UPDATE uploads SET lease_until = \(bind: until)
                WHERE id = \(bind: id) AND lease_holder = \(bind: holder)
                RETURNING lease_wanted
                """
            ).all(decoding: Renewed.self)
        }
        guard let row = rows.first else { return .lost }
        return row.wanted == nil ? .renewed : .wanted
    }

    public func releaseUploadLease(id: String, holder: String) async throws {
        try await serial { db in
            try await db.raw(
                """
                UPDATE uploads SET lease_holder = NULL, lease_until = NULL
                WHERE id = \(bind: id) AND lease_holder = \(bind: holder)
                """
            ).run()
        }
    }

    public func finishUpload(id: String, result: String, expiresAt: Date) async throws -> Bool {
        struct Finished: Decodable { let id: String }
        return try await serial { db in
            try await db.raw(
                """
                UPDATE uploads SET result = \(bind: result), expires_at = \(bind: expiresAt)
                WHERE id = \(bind: id)
                RETURNING id
                """
            ).all(decoding: Finished.self).isEmpty == false
        }
    }

    public func deleteUpload(id: String) async throws -> Bool {
        struct Deleted: Decodable { let id: String }
        return try await serial { db in
            try await db.raw("DELETE FROM uploads WHERE id = \(bind: id) RETURNING id")
                .all(decoding: Deleted.self).isEmpty == false
        }
    }

    public func deleteExpiredUploads(before now: Date) async throws -> [String] {
        struct Deleted: Decodable { let id: String }
        return try await serial { db in
            try await db.raw("DELETE FROM uploads WHERE expires_at < \(bind: now) RETURNING id")
                .all(decoding: Deleted.self).map(\.id)
        }
    }
}
