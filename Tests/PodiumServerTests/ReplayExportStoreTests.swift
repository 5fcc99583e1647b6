import Foundation
import SQLKit
import Testing

@testable import PodiumStore

/// Replay exports on both databases: stored, read back as stored (dates, nulls), updated through
/// their life (queued, running, ready with a file, published; failed with its error), listed
/// newest first, and gone with their session.
@Suite("Replay export store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct ReplayExportStoreTests {
    static let t1 = Date(timeIntervalSince1970: 1_700_000_060.5)
    static let t2 = Date(timeIntervalSince1970: 1_700_000_075.75)

    @Test(arguments: TestStores.kinds) func anExportIsStoredUpdatedListedAndGoesWithItsSession(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let session = try await StoreTests.seed(store)
            let first = ReplayExportRecord(id: "rx1", sessionId: session.id, ownerId: "u1", createdAt: Self.t1)
            var second = ReplayExportRecord(id: "rx2", sessionId: session.id, ownerId: "u1", createdAt: Self.t2)
            try await store.insertReplayExport(first)
            try await store.insertReplayExport(second)
            #expect(try await store.replayExport(id: "rx1") == first)
            #expect(try await store.replayExport(id: "nope") == nil)
            #expect(try await store.replayExports(sessionId: session.id).map(\.id) == ["rx2", "rx1"])

            second.status = .running
            try await store.updateReplayExport(second)
            #expect(try await store.replayExport(id: "rx2")?.status == .running)
            second.status = .ready
            second.blob = String(repeating: "a", count: 64) + ".mp4"
            second.bytes = 5_000_000_000
            second.durationMs = 3_600_000
            second.channelVideoId = "cv1"
            try await store.updateReplayExport(second)
            #expect(try await store.replayExport(id: "rx2") == second)

            var failed = first
            failed.status = .failed
            failed.errorCode = "encode_failed"
            failed.errorMessage = "The video could not be encoded."
            try await store.updateReplayExport(failed)
            #expect(try await store.replayExport(id: "rx1") == failed)
            // Back to nothing: the nulls are stored as nulls.
            try await store.updateReplayExport(first)
            #expect(try await store.replayExport(id: "rx1") == first)

            try await store.serial { db in try await db.raw("DELETE FROM sessions WHERE id = 's1'").run() }
            #expect(try await store.replayExports(sessionId: session.id).isEmpty)
        }
    }
}
