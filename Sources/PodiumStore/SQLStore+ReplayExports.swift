import Foundation
import SQLKit

extension SQLStore: ReplayExportStore {
    public func insertReplayExport(_ export: ReplayExportRecord) async throws {
        try await serial { db in
            try await db.insert(into: "replay_exports")
                .model(export, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
        }
    }

    public func replayExport(id: String) async throws -> ReplayExportRecord? {
        try await serial { db in
            try await db.select().column("*").from("replay_exports").where("id", .equal, id)
                .first(decoding: ReplayExportRecord.self, with: Self.decoding)
        }
    }

    public func replayExports(sessionId: String) async throws -> [ReplayExportRecord] {
        try await serial { db in
            try await db.select().column("*").from("replay_exports").where("session_id", .equal, sessionId)
                .orderBy("created_at", .descending).orderBy("id", .descending)
                .all(decoding: ReplayExportRecord.self, with: Self.decoding)
        }
    }

    public func updateReplayExport(_ export: ReplayExportRecord) async throws {
        try await serial { db in
            @Sendable func optional(_ value: String?) -> any SQLExpression { value.map { SQLBind($0) } ?? SQLLiteral.null }
            try await db.update("replay_exports")
                .set("status", to: export.status.rawValue)
                .set("duration_ms", to: export.durationMs.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
                .set("blob", to: optional(export.blob))
                .set("bytes", to: export.bytes)
                .set("error_code", to: optional(export.errorCode))
                .set("error_message", to: optional(export.errorMessage))
                .set("channel_video_id", to: optional(export.channelVideoId))
                .where("id", .equal, export.id)
                .run()
        }
    }
}
