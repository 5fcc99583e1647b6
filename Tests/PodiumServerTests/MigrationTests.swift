import Foundation
import Logging
import PodiumCore
import SQLKit
import SQLiteKit
import Testing

@testable import PodiumStore

/// A database made by an earlier version keeps its sessions and their history through the
/// migrations after it, with every reference between tables intact.
@Suite("Migrations")
struct MigrationTests {
    @Test func sessionsOfAnEarlierVersionSurviveTheRoomsMigration() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("podium-migration-\(UUID().uuidString).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = Logger(label: "migration-test")

        // Version 5: the schema before rooms, with a session and two of its events.
        let old = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        let db = old.sql()
        try await db.raw("PRAGMA foreign_keys=ON").run()
        try await db.raw(
            "CREATE TABLE podium_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
        ).run()
        for migration in Migrations.all where migration.version <= 5 {
            for statement in migration.statements { try await db.raw(SQLQueryString(statement)).run() }
            try await db.raw("INSERT INTO podium_migrations VALUES (\(bind: migration.version), \(bind: migration.name), 0)")
                .run()
        }
        try await db.raw("INSERT INTO users VALUES ('u1', 'admin', 'Admin', 'admin', 'x', 0)").run()
        try await db.raw(
            "INSERT INTO decks (id, owner_id, title, status, source_hash, source_bytes, page_count, created_at) VALUES ('d1', 'u1', 'Deck', 'ready', 'h', 1, 3, 0)"
        ).run()
        try await db.raw(
            "INSERT INTO sessions (id, code, deck_id, presenter_id, allow_download, created_at) VALUES ('s1', 'ABCDEF', 'd1', 'u1', 1, 0)"
        ).run()
        for seq in 1...2 {
            try await db.raw(
                "INSERT INTO session_events VALUES ('s1', \(bind: seq), 'page', \(bind: #"{"type":"page","seq":\#(seq),"page":\#(seq + 1)}"#), NULL, 0)"
            ).run()
        }
        try await old.close()

        // The current version migrates it.
        let store = try await SQLStore.openSQLite(path: path, logger: logger)
        let session = try #require(try await store.session(code: "ABCDEF"))
        #expect(session.kind == .session && session.deckId == "d1" && session.allowDownload && session.title == nil)
        #expect(try await store.events(sessionId: "s1", afterSeq: 0).map(\.event.seq) == [1, 2])
        struct Violation: Decodable { let table: String }
        #expect(
            try await store.serial { db in try await db.raw("PRAGMA foreign_key_check").all(decoding: Violation.self) }.isEmpty)
        // The history still belongs to the session: deleting it takes its events along.
        try await store.serial { db in try await db.raw("DELETE FROM sessions WHERE id = 's1'").run() }
        #expect(try await store.events(sessionId: "s1", afterSeq: 0).isEmpty)
        try await store.close()
    }

    /// The same on PostgreSQL, where the rooms migration alters the table instead of rebuilding it.
    @Test(.enabled(if: TestStores.databaseURL != nil))
    func sessionsOfAnEarlierVersionSurviveTheRoomsMigrationOnPostgreSQL() async throws {
        try await TestStores.withPostgresDatabase { url in
            // Version 5 written by hand: what a node of that version left.
            let old = try await SQLStore.openPostgres(url: url, maximumConnections: 1, logger: TestServer.logger())
            try await old.serial { db in
                for table in DataMigration.tables.reversed() + ["podium_migrations"] {
                    try await db.raw("DROP TABLE IF EXISTS \(ident: table) CASCADE").run()
                }
                try await db.raw(
                    "CREATE TABLE podium_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)"
                ).run()
                for migration in Migrations.all where migration.version <= 5 {
                    for statement in migration.postgres ?? migration.statements {
                        try await db.raw(SQLQueryString(statement)).run()
                    }
                    try await db.raw(
                        "INSERT INTO podium_migrations VALUES (\(bind: migration.version), \(bind: migration.name), now())"
                    ).run()
                }
                try await db.raw("INSERT INTO users VALUES ('u1', 'admin', 'Admin', 'admin', 'x', now())").run()
                try await db.raw(
                    "INSERT INTO decks (id, owner_id, title, status, source_hash, source_bytes, page_count, created_at) VALUES ('d1', 'u1', 'Deck', 'ready', 'h', 1, 3, now())"
                ).run()
                try await db.raw(
                    "INSERT INTO sessions (id, code, deck_id, presenter_id, allow_download, created_at) VALUES ('s1', 'ABCDEF', 'd1', 'u1', TRUE, now())"
                ).run()
                try await db.raw(
                    "INSERT INTO session_events VALUES ('s1', 1, 'page', \(bind: #"{"type":"page","seq":1,"page":2}"#), NULL, now())"
                ).run()
            }
            try await old.close()

            let store = try await SQLStore.openPostgres(url: url, maximumConnections: 2, logger: TestServer.logger())
            let session = try #require(try await store.session(code: "ABCDEF"))
            #expect(session.kind == .session && session.deckId == "d1" && session.allowDownload && !session.unlisted)
            #expect(try await store.events(sessionId: "s1", afterSeq: 0).map(\.event.seq) == [1])
            // A room has no deck: the column now takes NULL.
            try await store.insertSession(
                SessionRecord(
                    id: "r1", code: "ROOMXY", kind: .room, title: "Room", deckId: nil, presenterId: "u1", passcodeHash: nil,
                    allowDownload: false, createdAt: Date()))
            #expect(try await store.session(id: "r1")?.isRoom == true)
            try await store.serial { db in try await db.raw("DELETE FROM sessions WHERE id = 's1'").run() }
            #expect(try await store.events(sessionId: "s1", afterSeq: 0).isEmpty)
            try await store.close()
        }
    }
}
