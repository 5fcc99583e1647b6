import Foundation
import PodiumCore
import SQLKit

/// The pointer side log of recorded sessions (migration 33): a batch a row.
extension SQLStore: ReplayStore {
    public func appendReplaySamples(sessionId: String, _ samples: [ReplaySample]) async throws {
        guard let start = samples.first?.at else { return }
        let text = ReplaySampleCoding.encode(samples, from: start)
        // A batch is named by a random id: batches of one session may come from two nodes.
        let batch = UUID().uuidString.lowercased()
        try await serial { db in
            try await db.insert(into: "replay_samples").columns("session_id", "batch", "started_at", "count", "samples")
                .values(SQLBind(sessionId), SQLBind(batch), SQLBind(start), SQLBind(samples.count), SQLBind(text)).run()
        }
    }

    public func replaySamples(sessionId: String) async throws -> [ReplaySample] {
        struct Row: Decodable {
            let startedAt: Date
            let samples: String
        }
        let rows = try await serial { db in
            try await db.select().columns("started_at", "samples").from("replay_samples")
                .where("session_id", .equal, sessionId).orderBy("started_at").orderBy("batch")
                .all(decoding: Row.self, with: Self.decoding)
        }
        return rows.flatMap { ReplaySampleCoding.decode($0.samples, from: $0.startedAt) }.sorted { $0.at < $1.at }
    }

    public func replayEvents(sessionId: String) async throws -> [StoredEventText] {
        struct Row: Decodable {
            let body: String
            let commandId: String?
            let createdAt: Date
        }
        let rows = try await serial { db in
            try await db.select().columns("body", "command_id", "created_at").from("session_events")
                .where("session_id", .equal, sessionId).orderBy("seq")
                .all(decoding: Row.self, with: Self.decoding)
        }
        let decoder = JSONDecoder()
        return try rows.map { row in
            StoredEventText(
                stored: StoredEvent(
                    event: try decoder.decode(SessionEvent.self, from: Data(row.body.utf8)), commandID: row.commandId,
                    at: row.createdAt),
                json: row.body)
        }
    }
}
