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

    public func advanceUpload(id: String, from: Int, to: Int, expiresAt: Date) async throws -> Bool {
        struct Moved: Decodable { let id: String }
        return try await serial { db in
            try await db.raw(
                """
                UPDATE uploads SET upload_offset = \(bind: to), expires_at = \(bind: expiresAt)
                WHERE id = \(bind: id) AND upload_offset = \(bind: from) AND result IS NULL
                RETURNING id
                """
            ).all(decoding: Moved.self).isEmpty == false
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
