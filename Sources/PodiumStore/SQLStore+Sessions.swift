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

    public func appendEvents(sessionId: String, _ events: [StoredEvent], at date: Date) async throws {
        guard !events.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let rows = try events.map { stored in
            [
                SQLBind(sessionId), SQLBind(stored.event.seq), SQLBind(stored.event.type),
                SQLBind(String(decoding: try encoder.encode(stored.event), as: UTF8.self)),
                stored.commandID.map { SQLBind($0) } ?? SQLBind(String?.none), SQLBind(date),
            ] as [any SQLExpression]
        }
        // One multi-row INSERT is atomic, and the (session_id, seq) primary key refuses a seq
        // that was already stored, so a history can never fork.
        try await serial { db in
            var insert = db.insert(into: "session_events")
                .columns("session_id", "seq", "type", "body", "command_id", "created_at")
            for row in rows { insert = insert.values(row) }
            try await insert.run()
        }
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
