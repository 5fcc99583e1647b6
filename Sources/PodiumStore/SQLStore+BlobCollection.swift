import Foundation
import Logging
import SQLKit
import SQLiteKit

/// Garbage collection's bookkeeping on SQL, the same statements on SQLite and PostgreSQL.
extension SQLStore: BlobCollectionStore {
    public func referencedBlobNames() async throws -> Set<String> {
        switch dialect {
        case .postgres:
            // One snapshot, as `podium check` reads it; no time limit (every text cell is read).
            return try await serial(limit: nil) { db in
                try await db.raw("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").run()
                do {
                    let inventory = try await DatabaseInventory.read(on: db, dialect: .postgres)
                    try await db.raw("COMMIT").run()
                    return Set(inventory.blobs)
                } catch {
                    try? await db.raw("ROLLBACK").run()
                    throw error
                }
            }
        case .sqlite:
            // Reading every text cell takes a while: on a file, a connection of its own reads one
            // snapshot beside the server's (WAL), so live sessions do not wait behind the gate.
            if let path = try await databaseFile() {
                return try await Self.referencedBlobNames(sqliteFile: path)
            }
            return try await serial(limit: nil) { db in
                Set(try await DatabaseInventory.read(on: db, dialect: .sqlite).blobs)
            }
        }
    }

    public func recordingTakeIds() async throws -> Set<String> {
        struct Row: Decodable { let id: String }
        return try await serial(limit: nil) { db in
            // An older schema (`podium gc` before `serve` migrated it) has no takes.
            guard try await DatabaseInventory.tables(on: db, dialect: self.dialect).contains("recordings") else { return [] }
            return Set(try await db.raw("SELECT id FROM recordings").all(decoding: Row.self).map(\.id))
        }
    }

    /// The SQLite database's file, nil when it is in memory.
    private func databaseFile() async throws -> String? {
        struct Row: Decodable {
            let name: String
            let file: String?
        }
        return try await serial { db in
            let rows = try await db.raw("PRAGMA database_list").all(decoding: Row.self)
            return rows.first(where: { $0.name == "main" })?.file.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    private static func referencedBlobNames(sqliteFile path: String) async throws -> Set<String> {
        var logger = Logger(label: "podium.blob-collector")
        logger.logLevel = .error
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        do {
            let db = connection.sql()
            try await db.raw("PRAGMA busy_timeout=10000").run()
            try await db.raw("BEGIN").run()
            let inventory: DatabaseInventory
            do {
                inventory = try await DatabaseInventory.read(on: db, dialect: .sqlite)
                try await db.raw("COMMIT").run()
            } catch {
                try? await db.raw("ROLLBACK").run()
                throw error
            }
            try await connection.close().get()
            return Set(inventory.blobs)
        } catch {
            try? await connection.close().get()
            throw error
        }
    }

    private struct Mark: Decodable {
        let name: String
        let unreferencedSince: Date
    }

    public func blobMarks() async throws -> [String: Date] {
        try await serial { db in
            try await Self.marks(on: db)
        }
    }

    private static func marks(on db: any SQLDatabase) async throws -> [String: Date] {
        let rows = try await db.raw("SELECT name, unreferenced_since FROM blob_marks").all(
            decoding: Mark.self, with: Self.decoding)
        return Dictionary(rows.map { ($0.name, $0.unreferencedSince) }, uniquingKeysWith: min)
    }

    /// Names per statement (SQLite allows 32766 parameters; PostgreSQL 65535).
    static let markBatch = 500

    public func markUnreferencedBlobs(_ names: Set<String>, at now: Date) async throws -> [String: Date] {
        try await transaction(limit: .seconds(120)) { db in
            var marks = try await Self.marks(on: db)
            let gone = marks.keys.filter { !names.contains($0) }.sorted()
            for batch in stride(from: 0, to: gone.count, by: Self.markBatch) {
                let slice = gone[batch..<min(batch + Self.markBatch, gone.count)]
                try await db.delete(from: "blob_marks").where("name", .in, Array(slice)).run()
            }
            for name in gone { marks[name] = nil }
            let new = names.filter { marks[$0] == nil }.sorted()
            for batch in stride(from: 0, to: new.count, by: Self.markBatch) {
                var insert = db.insert(into: "blob_marks").columns("name", "unreferenced_since")
                for name in new[batch..<min(batch + Self.markBatch, new.count)] {
                    insert = insert.values(SQLBind(name), SQLBind(now))
                }
                // Another node's run may have marked it a moment ago: its time stands.
                try await insert.ignoringConflicts(with: ["name"]).run()
            }
            return try await Self.marks(on: db)
        }
    }

    public func unmarkBlobs(_ names: [String]) async throws {
        guard !names.isEmpty else { return }
        try await serial { db in
            for batch in stride(from: 0, to: names.count, by: Self.markBatch) {
                let slice = names[batch..<min(batch + Self.markBatch, names.count)]
                try await db.delete(from: "blob_marks").where("name", .in, Array(slice)).run()
            }
        }
    }

    public func claimBlobCollection(holder: String, at now: Date, leaseUntil: Date, startedBefore: Date?)
        async throws -> Bool
    {
        struct Claimed: Decodable { let id: Int }
        // One guarded statement: of nodes claiming together, one finds the row still free (the
        // first run of all makes the row).
        return try await serial { db in
            try await db.raw(
                """
                INSERT INTO blob_collection (id, holder, started_at, lease_until)
                VALUES (1, \(bind: holder), \(bind: now), \(bind: leaseUntil))
                ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, started_at = excluded.started_at,
                  lease_until = excluded.lease_until, finished_at = NULL
                WHERE (blob_collection.lease_until IS NULL OR blob_collection.lease_until < \(bind: now))
                  AND (blob_collection.started_at IS NULL
                       OR blob_collection.started_at < \(bind: startedBefore ?? Date.distantFuture))
                RETURNING id
                """
            ).all(decoding: Claimed.self).isEmpty == false
        }
    }

    public func finishBlobCollection(holder: String, at now: Date) async throws {
        try await serial { db in
            try await db.raw(
                """
                UPDATE blob_collection SET lease_until = NULL, finished_at = \(bind: now)
                WHERE id = 1 AND holder = \(bind: holder)
                """
            ).run()
        }
    }
}
