import Foundation
import PodiumCore
import SQLKit

extension SQLStore: SessionStore {
    public func insertSession(_ session: SessionRecord) async throws {
        try await serial { db in
            try await db.insert(into: "sessions")
                .model(session, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
        }
    }

    public func session(code: String) async throws -> SessionRecord? {
        // The live session with this code, else the most recent ended one.
        try await serial { db in
            try await db.raw(
                """
                SELECT * FROM sessions WHERE code = \(bind: code)
                ORDER BY (ended_at IS NULL) DESC, created_at DESC LIMIT 1
                """
            ).first(decoding: SessionRecord.self, with: Self.decoding)
        }
    }

    public func session(id: String) async throws -> SessionRecord? {
        try await serial { db in
            try await db.select().column("*").from("sessions").where("id", .equal, id)
                .first(decoding: SessionRecord.self, with: Self.decoding)
        }
    }

    public func liveSessions() async throws -> [SessionRecord] {
        try await serial { db in
            try await db.select().column("*").from("sessions").where("ended_at", .is, SQLLiteral.null)
                .orderBy("created_at", .descending).all(decoding: SessionRecord.self, with: Self.decoding)
        }
    }

    public func markSessionEnded(id: String, at date: Date) async throws {
        try await serial { db in
            try await db.update("sessions").set("ended_at", to: date).where("id", .equal, id).run()
        }
    }

    public func updateSessionAccess(id: String, passcode: String?, passcodeHash: String?, unlisted: Bool) async throws {
        try await serial { db in
            try await db.update("sessions").set("passcode", to: passcode).set("passcode_hash", to: passcodeHash)
                .set("unlisted", to: unlisted).where("id", .equal, id).run()
        }
    }

    public func updateSessionReplay(id: String, replay: ReplayAccess) async throws {
        try await serial { db in
            try await db.update("sessions").set("replay", to: replay.rawValue).where("id", .equal, id).run()
        }
    }

    public func sessions(presenterId: String, before: Date?, limit: Int) async throws -> [SessionRecord] {
        try await serial { db in
            var query = db.select().column("*").from("sessions").where("presenter_id", .equal, presenterId)
            if let before { query = query.where("created_at", .lessThan, before) }
            return try await query.orderBy("created_at", .descending).limit(limit)
                .all(decoding: SessionRecord.self, with: Self.decoding)
        }
    }

    public func hasEvent(sessionId: String, ofTypes types: [String]) async throws -> Bool {
        guard !types.isEmpty else { return false }
        struct Row: Decodable { let seq: Int }
        return try await serial { db in
            try await db.select().column("seq").from("session_events").where("session_id", .equal, sessionId)
                .where("type", .in, types).limit(1).first(decoding: Row.self) != nil
        }
    }

    public func append(sessionId: String, _ write: CommandWrite, at date: Date) async throws {
        guard !write.events.isEmpty || !write.records.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let rows = try write.events.map { event in
            [
                SQLBind(sessionId), SQLBind(event.seq), SQLBind(event.type),
                SQLBind(String(decoding: try encoder.encode(event), as: UTF8.self)),
                // The command's id goes on its last event: a replay remembers it with that seq.
                event.seq == write.events.last?.seq ? SQLBind(write.commandKey) : SQLBind(String?.none), SQLBind(date),
            ] as [any SQLExpression]
        }
        let insertEvents: @Sendable (any SQLDatabase) async throws -> Void = { db in
            guard !rows.isEmpty else { return }
            var insert = db.insert(into: "session_events")
                .columns("session_id", "seq", "type", "body", "command_id", "created_at")
            for row in rows { insert = insert.values(row) }
            try await insert.run()
        }
        do {
            if write.records.isEmpty {
                // One multi-row INSERT is atomic, and the (session_id, seq) primary key refuses a
                // seq that was already stored, so a history can never fork.
                try await serial { db in try await insertEvents(db) }
            } else {
                try await transaction { db in
                    try await insertEvents(db)
                    for record in write.records { try await Self.store(record, sessionId: sessionId, at: date, on: db) }
                    let recordsOnly = write.events.isEmpty ? write.commandKey : nil
                    if let key = recordsOnly {
                        try await db.insert(into: "session_commands").columns("session_id", "command_id", "seq", "created_at")
                            .values(SQLBind(sessionId), SQLBind(key), SQLBind(write.seq), SQLBind(date)).run()
                    }
                    // Numbered in the record log last (see ``logAudience(_:sessionId:at:on:)``): a
                    // command with no event keeps its id on its last record, for the other nodes.
                    var entries = write.records.map { AudienceLogEntry(change: .record($0)) }
                    entries[entries.count - 1].commandID = recordsOnly
                    entries[entries.count - 1].commandSeq = recordsOnly == nil ? nil : write.seq
                    try await Self.logAudience(entries, sessionId: sessionId, at: date, on: db)
                }
            }
        } catch  where Self.isUniqueViolation(error) {
            // SQLite's constraint errors and PostgreSQL's unique_violation (23505) alike: another
            // writer (another node, on PostgreSQL) stored this seq or this command first.
            throw SeqConflict(sessionId: sessionId, seq: write.events.first?.seq ?? write.seq)
        }
    }

    public func recordedCommands(sessionId: String, limit: Int) async throws -> [(key: String, seq: Int)] {
        struct Row: Decodable {
            let commandId: String
            let seq: Int
        }
        let rows = try await serial { db in
            try await db.select().columns("command_id", "seq").from("session_commands")
                .where("session_id", .equal, sessionId).orderBy("created_at", .descending).orderBy("seq", .descending)
                .limit(limit).all(decoding: Row.self, with: Self.decoding)
        }
        return rows.reversed().map { ($0.commandId, $0.seq) }
    }

    public func events(sessionId: String, afterSeq: Int) async throws -> [StoredEvent] {
        struct Row: Decodable {
            let body: String
            let commandId: String?
            let createdAt: Date
        }
        let rows = try await serial { db in
            try await db.select().columns("body", "command_id", "created_at").from("session_events")
                .where("session_id", .equal, sessionId).where("seq", .greaterThan, afterSeq).orderBy("seq")
                .all(decoding: Row.self, with: Self.decoding)
        }
        let decoder = JSONDecoder()
        return try rows.map { row in
            StoredEvent(
                event: try decoder.decode(SessionEvent.self, from: Data(row.body.utf8)), commandID: row.commandId,
                at: row.createdAt)
        }
    }
}
