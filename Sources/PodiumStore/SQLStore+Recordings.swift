import Foundation
import SQLKit

/// Audio takes on SQL: plain statements both databases run (`RETURNING` included).
extension SQLStore: RecordingStore {
    public func insertRecording(_ recording: RecordingRecord) async throws {
        try await serial { db in
            try await db.insert(into: "recordings")
                .model(recording, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil)
                .run()
        }
    }

    public func recording(id: String) async throws -> RecordingRecord? {
        try await serial { db in
            try await db.select().column("*").from("recordings").where("id", .equal, id)
                .first(decoding: RecordingRecord.self, with: Self.decoding)
        }
    }

    public func recordings(sessionId: String) async throws -> [RecordingRecord] {
        try await serial { db in
            try await db.select().column("*").from("recordings").where("session_id", .equal, sessionId)
                .orderBy("started_at").orderBy("created_at").orderBy("id")
                .all(decoding: RecordingRecord.self, with: Self.decoding)
        }
    }

    public func appendRecordingChunk(id: String, n: Int, bytes: Int, at: Date) async throws -> RecordingChunkAppend {
        struct Moved: Decodable {
            let chunks: Int
            let bytes: Int
        }
        struct State: Decodable {
            let status: String
            let chunks: Int
        }
        return try await transaction { db in
            let moved = try await db.raw(
                """
                UPDATE recordings SET chunks = chunks + 1, bytes = bytes + \(bind: bytes), last_chunk_at = \(bind: at)
                WHERE id = \(bind: id) AND chunks = \(bind: n) AND status = 'recording'
                RETURNING chunks, bytes
                """
            ).all(decoding: Moved.self)
            if let row = moved.first {
                try await db.raw(
                    """
                    INSERT INTO recording_chunks (recording_id, n, bytes, received_at)
                    VALUES (\(bind: id), \(bind: n), \(bind: bytes), \(bind: at))
                    """
                ).run()
                return .appended(chunks: row.chunks, bytes: row.bytes)
            }
            guard
                let state = try await db.raw("SELECT status, chunks FROM recordings WHERE id = \(bind: id)")
                    .first(decoding: State.self)
            else { return .missing }
            if state.status != RecordingRecord.Status.recording.rawValue { return .stopped }
            return .outOfOrder(expected: state.chunks)
        }
    }

    public func recordingChunkBytes(id: String, n: Int) async throws -> Int? {
        struct Row: Decodable { let bytes: Int }
        return try await serial { db in
            try await db.raw("SELECT bytes FROM recording_chunks WHERE recording_id = \(bind: id) AND n = \(bind: n)")
                .first(decoding: Row.self)?.bytes
        }
    }

    public func stopRecording(id: String, at: Date) async throws -> Bool {
        struct Stopped: Decodable { let id: String }
        return try await serial { db in
            try await db.raw(
                """
                UPDATE recordings SET status = 'packaging', stopped_at = \(bind: at)
                WHERE id = \(bind: id) AND status = 'recording'
                RETURNING id
                """
            ).all(decoding: Stopped.self).isEmpty == false
        }
    }

    public func finishRecording(
        id: String, status: RecordingRecord.Status, durationMs: Int?, hlsBytes: Int?, errorCode: String?,
        errorMessage: String?
    ) async throws {
        try await serial { db in
            try await db.raw(
                """
                UPDATE recordings SET status = \(bind: status.rawValue), duration_ms = \(bind: durationMs),
                  hls_bytes = \(bind: hlsBytes), error_code = \(bind: errorCode), error_message = \(bind: errorMessage)
                WHERE id = \(bind: id)
                """
            ).run()
        }
    }

    public func stalledRecordings(before: Date) async throws -> [RecordingRecord] {
        try await serial { db in
            try await db.raw(
                """
                SELECT * FROM recordings
                WHERE status = 'recording' AND COALESCE(last_chunk_at, created_at) < \(bind: before)
                ORDER BY created_at
                """
            ).all(decoding: RecordingRecord.self, with: Self.decoding)
        }
    }
}
