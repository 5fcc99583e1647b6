import Foundation
import Logging
import SQLKit

/// Moves an installation from SQLite to PostgreSQL (`podium migrate-data`): every table's rows,
/// in one PostgreSQL transaction, checked by counting before it commits. Blobs are files and stay
/// where they are (point `--blob-dir` at them).
public enum DataMigration {
    /// Every table, parents before the tables that refer to them. A migration that adds a table
    /// adds it here too: the copy refuses a schema with a table it does not know.
    static let tables = [
        "users", "auth_tokens", "folders", "decks", "pages", "sessions", "session_events", "poll_answers",
        "audience_questions", "session_viewers", "deck_questions", "viewer_notes", "attendance", "question_votes",
        "session_commands", "jobs", "videos", "storyboards", "storyboard_editors", "storyboard_edits",
        "storyboard_snapshots", "storyboard_exports", "channel_settings", "channel_visits", "channel_video_categories",
        "channel_videos", "channel_favourites", "channel_positions", "channel_place_categories", "channel_places",
        "channel_venue", "channel_quizzes", "channel_quiz_questions", "channel_quiz_answers", "channel_quiz_results",
        "channel_radios", "channel_radio_tracks", "channel_radio_usage", "blob_marks", "blob_collection",
        "audience_log_heads", "audience_log", "caption_tracks", "uploads", "account_links", "audit_log", "external_identities",
        "lti_platforms", "lti_logins", "lti_users", "lti_deep_links",
        "replay_samples",
        "recordings", "recording_chunks",
        "replay_exports",
        "session_hosts", "lti_placements",
    ]

    /// One table's rows in the source and, after the copy, in the target.
    public struct TableCount: Sendable, Equatable {
        public let table: String
        public let source: Int
        public let target: Int
    }

    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Copies `source` (SQLite) into `target` (PostgreSQL), both opened (so migrated to this
    /// version). Refuses a target that holds any row; on any error, including a count that
    /// differs, nothing is stored.
    public static func copy(from source: SQLStore, to target: SQLStore, logger: Logger) async throws -> [TableCount] {
        guard source.dialect == .sqlite, target.dialect == .postgres else {
            throw Refusal(description: "migrate-data copies an SQLite installation into PostgreSQL")
        }
        try await checkSchema(of: target)
        return try await source.serial(limit: nil) { sqlite in
            // One read transaction: the copy is of one moment, even if something writes meanwhile.
            try await sqlite.raw("BEGIN").run()
            do {
                let counts = try await target.transaction(limit: nil) { postgres in
                    let nonEmpty = try await countRows(on: postgres).filter { $0.value > 0 }
                    guard nonEmpty.isEmpty else {
                        let listed = tables.filter { nonEmpty[$0] != nil }.map { "\($0) (\(nonEmpty[$0]!))" }
                        throw Refusal(
                            description:
                                "The target database is not empty: \(listed.joined(separator: ", ")). migrate-data copies into a new, empty database only (run it before the first `podium serve --database`)."
                        )
                    }
                    var counts: [TableCount] = []
                    for table in tables {
                        let copied = try await copyTable(table, from: sqlite, to: postgres)
                        logger.info("copied \(copied) rows of \(table)")
                    }
                    try await advanceSequences(on: postgres)
                    let sourceCounts = try await countRows(on: sqlite)
                    let targetCounts = try await countRows(on: postgres)
                    for table in tables {
                        counts.append(
                            TableCount(table: table, source: sourceCounts[table] ?? 0, target: targetCounts[table] ?? 0))
                    }
                    if let differing = counts.first(where: { $0.source != $0.target }) {
                        throw Refusal(
                            description:
                                "\(differing.table): \(differing.source) rows in SQLite but \(differing.target) copied; nothing was stored"
                        )
                    }
                    return counts
                }
                try await sqlite.raw("COMMIT").run()
                return counts
            } catch {
                try? await sqlite.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    /// PostgreSQL's serial columns (the audit log's `seq`) were copied with SQLite's numbers, which
    /// their sequences do not know: each sequence is set past the largest copied value, or the
    /// next row would be given a number already taken.
    private static func advanceSequences(on postgres: any SQLDatabase) async throws {
        struct Serial: Decodable {
            let tableName: String
            let columnName: String
        }
        let serials = try await postgres.raw(
            """
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'
            """
        ).all(decoding: Serial.self, with: SQLStore.decoding)
        for serial in serials {
            try await postgres.raw(
                """
                SELECT setval(pg_get_serial_sequence(\(bind: serial.tableName), \(bind: serial.columnName)),
                  COALESCE((SELECT MAX(\(ident: serial.columnName)) FROM \(ident: serial.tableName)), 0) + 1, false)
                """
            ).run()
        }
    }

    /// The target's tables must be the ones this version knows.
    private static func checkSchema(of target: SQLStore) async throws {
        struct Row: Decodable { let tableName: String }
        let present = try await target.serial { db in
            try await db.raw(
                """
                SELECT table_name FROM information_schema.tables
                WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
                """
            ).all(decoding: Row.self, with: SQLStore.decoding)
        }
        let unknown = Set(present.map(\.tableName)).subtracting(tables + ["podium_migrations"])
        guard unknown.isEmpty else {
            throw Refusal(
                description: "The target database has tables Podium does not know: \(unknown.sorted().joined(separator: ", "))")
        }
    }

    private static func countRows(on db: any SQLDatabase) async throws -> [String: Int] {
        struct Row: Decodable { let count: Int }
        var counts: [String: Int] = [:]
        for table in tables {
            counts[table] =
                try await db.raw("SELECT COUNT(*) AS count FROM \(ident: table)").first(decoding: Row.self)?.count ?? 0
        }
        return counts
    }

    /// A column and what PostgreSQL keeps in it, which says how to read SQLite's value.
    private struct Column: Decodable {
        let columnName: String
        let dataType: String
    }

    /// Copies one table in pages of rows (SQLite's rowid order), converting SQLite's seconds to
    /// dates and its 0/1 to booleans where PostgreSQL's column says so.
    private static func copyTable(_ table: String, from sqlite: any SQLDatabase, to postgres: any SQLDatabase) async throws
        -> Int
    {
        let columns = try await postgres.raw(
            """
            SELECT column_name, data_type FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(bind: table) ORDER BY ordinal_position
            """
        ).all(decoding: Column.self, with: SQLStore.decoding)
        let names = columns.map(\.columnName)
        let pageSize = max(1, 30_000 / max(1, names.count))
        var lastRowID = Int.min
        var copied = 0
        while true {
            let rows = try await sqlite.raw(
                """
                SELECT rowid AS podium_rowid, \(SQLList(names.map { SQLIdentifier($0) })) FROM \(ident: table)
                WHERE rowid > \(bind: lastRowID) ORDER BY rowid LIMIT \(literal: pageSize)
                """
            ).all()
            guard let last = rows.last else { return copied }
            lastRowID = try last.decode(column: "podium_rowid", as: Int.self)
            var insert = postgres.insert(into: table).columns(names)
            for row in rows {
                insert = insert.values(try columns.map { try value(of: $0, in: row) })
            }
            try await insert.run()
            copied += rows.count
        }
    }

    private static func value(of column: Column, in row: any SQLRow) throws -> any SQLExpression {
        func bind<T: Codable & Sendable>(_ type: T.Type) throws -> any SQLExpression {
            try row.decode(column: column.columnName, as: T?.self).map { SQLBind($0) } ?? SQLLiteral.null
        }
        switch column.dataType {
        case "timestamp with time zone": return try bind(Date.self)
        case "boolean": return try bind(Bool.self)
        case "integer", "bigint", "smallint": return try bind(Int.self)
        case "double precision", "real": return try bind(Double.self)
        case "text": return try bind(String.self)
        default:
            throw Refusal(description: "\(column.columnName) has a type migrate-data does not copy: \(column.dataType)")
        }
    }
}
