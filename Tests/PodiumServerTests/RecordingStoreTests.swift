import Foundation
import Testing

@testable import PodiumStore

/// Audio takes on both databases: chunks appended only in order and only while recording, a
/// retried chunk known by its length, stopped once, finished with its outcome, a session's takes
/// in order, and the takes with no chunk for a while found by the sweep.
@Suite("Recording store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct RecordingStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)

    static func take(_ id: String, session: String, startedAt: Date = t0, owner: String = "user:u1") -> RecordingRecord {
        RecordingRecord(
            id: id, sessionId: session, ownerKey: owner, startedAt: startedAt, mimeType: "audio/webm;codecs=opus",
            createdAt: startedAt)
    }

    @Test(arguments: TestStores.kinds) func takesAreAppendedStoppedFinishedAndSwept(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await StoreTests.seed(store)
            try await store.insertRecording(Self.take("r2", session: "s1", startedAt: Self.t0 + 60))
            try await store.insertRecording(Self.take("r1", session: "s1"))
            #expect(try await store.recordings(sessionId: "s1").map(\.id) == ["r1", "r2"])
            #expect(try await store.recordings(sessionId: "nope").isEmpty)
            #expect(try await store.recording(id: "r1") == Self.take("r1", session: "s1"))

            #expect(
                try await store.appendRecordingChunk(id: "r1", n: 0, bytes: 100, at: Self.t0 + 2)
                    == .appended(chunks: 1, bytes: 100))
            #expect(try await store.appendRecordingChunk(id: "r1", n: 2, bytes: 50, at: Self.t0 + 3) == .outOfOrder(expected: 1))
            #expect(try await store.appendRecordingChunk(id: "r1", n: 0, bytes: 100, at: Self.t0 + 3) == .outOfOrder(expected: 1))
            #expect(
                try await store.appendRecordingChunk(id: "r1", n: 1, bytes: 70, at: Self.t0 + 4)
                    == .appended(chunks: 2, bytes: 170))
            #expect(try await store.appendRecordingChunk(id: "none", n: 0, bytes: 1, at: Self.t0) == .missing)
            #expect(try await store.recordingChunkBytes(id: "r1", n: 0) == 100)
            #expect(try await store.recordingChunkBytes(id: "r1", n: 1) == 70)
            #expect(try await store.recordingChunkBytes(id: "r1", n: 2) == nil)
            let r1 = try #require(try await store.recording(id: "r1"))
            #expect(r1.chunks == 2 && r1.bytes == 170 && r1.lastChunkAt == Self.t0 + 4 && r1.status == .recording)

            // No chunk since t0+4 (r1) and none at all since its creation at t0+60 (r2).
            #expect(try await store.stalledRecordings(before: Self.t0 + 4).isEmpty)
            #expect(try await store.stalledRecordings(before: Self.t0 + 5).map(\.id) == ["r1"])
            #expect(try await store.stalledRecordings(before: Self.t0 + 61).map(\.id) == ["r1", "r2"])

            #expect(try await store.stopRecording(id: "r1", at: Self.t0 + 10))
            #expect(try await !store.stopRecording(id: "r1", at: Self.t0 + 11))
            #expect(try await store.appendRecordingChunk(id: "r1", n: 2, bytes: 5, at: Self.t0 + 12) == .stopped)
            #expect(try await store.stalledRecordings(before: Self.t0 + 61).map(\.id) == ["r2"])
            try await store.finishRecording(
                id: "r1", status: .ready, durationMs: 4_020, hlsBytes: 33_000, errorCode: nil, errorMessage: nil)
            var ready = r1
            ready.status = .ready
            ready.stoppedAt = Self.t0 + 10
            ready.durationMs = 4_020
            ready.hlsBytes = 33_000
            #expect(try await store.recording(id: "r1") == ready)
            try await store.finishRecording(
                id: "r2", status: .failed, durationMs: nil, hlsBytes: nil, errorCode: "bad_audio", errorMessage: "Unreadable.")
            let failed = try #require(try await store.recording(id: "r2"))
            #expect(failed.status == .failed && failed.errorCode == "bad_audio" && failed.errorMessage == "Unreadable.")

            // A take goes with its session.
            try await store.serial { db in try await db.raw("DELETE FROM sessions WHERE id = 's1'").run() }
            #expect(try await store.recordings(sessionId: "s1").isEmpty)
            #expect(try await store.recordingChunkBytes(id: "r1", n: 0) == nil)
        }
    }
}
