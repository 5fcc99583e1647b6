import Foundation
import SQLKit

extension SQLStore: StoryboardStore {
    public func insertStoryboard(_ storyboard: StoryboardRecord, content: String) async throws {
        try await transaction { db in
            try await db.insert(into: "storyboards")
                .model(storyboard, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
            try await db.insert(into: "storyboard_snapshots").columns("storyboard_id", "seq", "content", "created_at")
                .values(SQLBind(storyboard.id), SQLBind(storyboard.seq), SQLBind(content), SQLBind(storyboard.createdAt))
                .run()
        }
    }

    public func storyboard(id: String) async throws -> StoryboardRecord? {
        try await serial { db in
            try await db.select().column("*").from("storyboards").where("id", .equal, id)
                .first(decoding: StoryboardRecord.self, with: Self.decoding)
        }
    }

    public func storyboards(userId: String, folderId: String?) async throws -> [StoryboardRecord] {
        try await serial { db in
            var query = db.select().column(SQLColumn(SQLLiteral.all, table: SQLIdentifier("storyboards")))
                .from("storyboards")
            if let folderId {
                query = query.where("owner_id", .equal, userId).where("folder_id", .equal, folderId)
            } else {
                query = query.where {
                    $0.where("owner_id", .equal, userId)
                        .orWhere(
                            SQLIdentifier("id"), .in,
                            SQLGroupExpression(
                                db.select().column("storyboard_id").from("storyboard_editors")
                                    .where("user_id", .equal, userId).select))
                }
            }
            return try await query.orderBy("updated_at", .descending).orderBy("id", .descending)
                .all(decoding: StoryboardRecord.self, with: Self.decoding)
        }
    }

    public func updateStoryboard(_ storyboard: StoryboardRecord) async throws {
        try await serial { db in
            try await db.update("storyboards")
                .set("folder_id", to: storyboard.folderId.map { SQLBind($0) } ?? SQLLiteral.null)
                .set("title", to: storyboard.title)
                .set("description", to: storyboard.description)
                .set("aspect_ratio", to: storyboard.aspectRatio)
                .set("updated_at", to: storyboard.updatedAt)
                .where("id", .equal, storyboard.id)
                .run()
        }
    }

    public func deleteStoryboard(id: String) async throws {
        try await serial { db in try await db.delete(from: "storyboards").where("id", .equal, id).run() }
    }

    public func storyboardEditors(storyboardId: String) async throws -> [UserRecord] {
        try await serial { db in
            try await db.select().column(SQLColumn(SQLLiteral.all, table: SQLIdentifier("users"))).from("users")
                .join(
                    "storyboard_editors", on: SQLColumn("user_id", table: "storyboard_editors"), .equal,
                    SQLColumn("id", table: "users")
                )
                .where(SQLColumn("storyboard_id", table: "storyboard_editors"), .equal, SQLBind(storyboardId))
                .orderBy(SQLColumn("email", table: "users"))
                .all(decoding: UserRecord.self, with: Self.decoding)
        }
    }

    public func addStoryboardEditor(storyboardId: String, userId: String) async throws {
        try await serial { db in
            try await db.insert(into: "storyboard_editors").columns("storyboard_id", "user_id")
                .values(SQLBind(storyboardId), SQLBind(userId))
                .ignoringConflicts()
                .run()
        }
    }

    public func removeStoryboardEditor(storyboardId: String, userId: String) async throws {
        try await serial { db in
            try await db.delete(from: "storyboard_editors").where("storyboard_id", .equal, storyboardId)
                .where("user_id", .equal, userId).run()
        }
    }

    public func appendStoryboardEdits(_ edits: [StoryboardEditRecord], summary: StoryboardSummaryChange) async throws {
        guard let last = edits.last else { return }
        do {
            try await transaction { db in
                var insert = db.insert(into: "storyboard_edits")
                    .columns("storyboard_id", "seq", "author_id", "command_key", "shot_id", "edit", "created_at")
                for edit in edits {
                    insert = insert.values(
                        SQLBind(edit.storyboardId), SQLBind(edit.seq), SQLBind(edit.authorId), SQLBind(edit.commandKey),
                        SQLBind(edit.shotId), SQLBind(edit.edit), SQLBind(edit.createdAt))
                }
                try await insert.run()
                try await db.update("storyboards")
                    .set("seq", to: last.seq)
                    .set("scene_count", to: summary.sceneCount)
                    .set("shot_count", to: summary.shotCount)
                    .set("updated_at", to: last.createdAt)
                    .where("id", .equal, last.storyboardId)
                    .run()
            }
        } catch  where Self.isUniqueViolation(error) {
            throw SeqConflict(sessionId: last.storyboardId, seq: edits[0].seq)
        }
    }

    public func storyboardEdits(storyboardId: String, afterSeq: Int, throughSeq: Int?) async throws
        -> [StoryboardEditRecord]
    {
        try await serial { db in
            var query = db.select().column("*").from("storyboard_edits").where("storyboard_id", .equal, storyboardId)
                .where("seq", .greaterThan, afterSeq)
            if let throughSeq { query = query.where("seq", .lessThanOrEqual, throughSeq) }
            return try await query.orderBy("seq").all(decoding: StoryboardEditRecord.self, with: Self.decoding)
        }
    }

    public func storyboardShotEdits(storyboardId: String, shotId: String, limit: Int) async throws
        -> [StoryboardEditRecord]
    {
        try await serial { db in
            try await db.select().column("*").from("storyboard_edits").where("storyboard_id", .equal, storyboardId)
                .where("shot_id", .equal, shotId).orderBy("seq", .descending).limit(limit)
                .all(decoding: StoryboardEditRecord.self, with: Self.decoding)
        }
    }

    public func storyboardEditKeys(storyboardId: String, afterSeq: Int) async throws -> [(key: String, seq: Int)] {
        struct Row: Decodable {
            let commandKey: String
            let seq: Int
        }
        return try await serial { db in
            try await db.select().columns("command_key", "seq").from("storyboard_edits")
                .where("storyboard_id", .equal, storyboardId).where("seq", .greaterThan, afterSeq)
                .where("command_key", .isNot, SQLLiteral.null).orderBy("seq")
                .all(decoding: Row.self, with: Self.decoding)
        }.map { ($0.commandKey, $0.seq) }
    }

    public func saveStoryboardSnapshot(storyboardId: String, _ snapshot: StoryboardSnapshot, at date: Date) async throws {
        try await serial { db in
            try await db.insert(into: "storyboard_snapshots").columns("storyboard_id", "seq", "content", "created_at")
                .values(SQLBind(storyboardId), SQLBind(snapshot.seq), SQLBind(snapshot.content), SQLBind(date))
                .ignoringConflicts()
                .run()
        }
    }

    public func storyboardSnapshot(storyboardId: String, atOrBefore seq: Int?) async throws -> StoryboardSnapshot? {
        struct Row: Decodable {
            let seq: Int
            let content: String
        }
        return try await serial { db in
            var query = db.select().columns("seq", "content").from("storyboard_snapshots")
                .where("storyboard_id", .equal, storyboardId)
            if let seq { query = query.where("seq", .lessThanOrEqual, seq) }
            return try await query.orderBy("seq", .descending).limit(1).first(decoding: Row.self)
                .map { StoryboardSnapshot(seq: $0.seq, content: $0.content) }
        }
    }

    public func insertStoryboardExport(_ export: StoryboardExportRecord) async throws {
        try await serial { db in
            try await db.insert(into: "storyboard_exports")
                .model(export, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
        }
    }

    public func storyboardExport(id: String) async throws -> StoryboardExportRecord? {
        try await serial { db in
            try await db.select().column("*").from("storyboard_exports").where("id", .equal, id)
                .first(decoding: StoryboardExportRecord.self, with: Self.decoding)
        }
    }

    public func storyboardExports(storyboardId: String) async throws -> [StoryboardExportRecord] {
        try await serial { db in
            try await db.select().column("*").from("storyboard_exports").where("storyboard_id", .equal, storyboardId)
                .orderBy("created_at", .descending).orderBy("id", .descending)
                .all(decoding: StoryboardExportRecord.self, with: Self.decoding)
        }
    }

    public func updateStoryboardExport(_ export: StoryboardExportRecord) async throws {
        try await serial { db in
            @Sendable func optional(_ value: String?) -> any SQLExpression { value.map { SQLBind($0) } ?? SQLLiteral.null }
            try await db.update("storyboard_exports")
                .set("status", to: export.status.rawValue)
                .set("blob", to: optional(export.blob))
                .set("bytes", to: export.bytes)
                .set("error_code", to: optional(export.errorCode))
                .set("error_message", to: optional(export.errorMessage))
                .where("id", .equal, export.id)
                .run()
        }
    }
}
