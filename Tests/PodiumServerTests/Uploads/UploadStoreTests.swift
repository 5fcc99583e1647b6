import Foundation
import Testing

@testable import PodiumStore

/// Resumable uploads on both databases: the offset moves only by compare-and-set, a finished
/// upload keeps its answer and takes no more bytes, expired ones are swept.
@Suite("Upload store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct UploadStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let t1 = Date(timeIntervalSince1970: 1_700_086_400.5)

    static func upload(_ id: String, expiresAt: Date = t1) -> UploadRecord {
        UploadRecord(
            id: id, ownerKey: "user:u1", target: "video", metadata: #"{"filename":"talk.mp4"}"#,
            uploadLength: 5_000_000_000, expiresAt: expiresAt, createdAt: t0)
    }

    @Test(arguments: TestStores.kinds) func theOffsetMovesOnlyFromWhereItIs(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await store.insertUpload(Self.upload("u1"))
            #expect(try await store.upload(id: "u1") == Self.upload("u1"))
            #expect(try await store.upload(id: "u2") == nil)

            let later = Self.t1.addingTimeInterval(60)
            #expect(try await store.advanceUpload(id: "u1", from: 0, to: 4_000_000_000, expiresAt: later))
            // A second writer that read the old offset loses.
            #expect(try await !store.advanceUpload(id: "u1", from: 0, to: 10, expiresAt: later))
            #expect(try await !store.advanceUpload(id: "u2", from: 0, to: 10, expiresAt: later))
            var expected = Self.upload("u1")
            expected.uploadOffset = 4_000_000_000
            expected.expiresAt = later
            #expect(try await store.upload(id: "u1") == expected)

            // Done: the answer is kept and no byte more is taken.
            #expect(try await store.finishUpload(id: "u1", result: #"{"id":"v1"}"#, expiresAt: later))
            #expect(try await !store.advanceUpload(id: "u1", from: 4_000_000_000, to: 5_000_000_000, expiresAt: later))
            #expect(try await store.upload(id: "u1")?.result == #"{"id":"v1"}"#)
            #expect(try await !store.finishUpload(id: "u2", result: "{}", expiresAt: later))

            #expect(try await store.deleteUpload(id: "u1"))
            #expect(try await !store.deleteUpload(id: "u1"))
            #expect(try await store.upload(id: "u1") == nil)
        }
    }

    @Test(arguments: TestStores.kinds) func expiredUploadsAreSwept(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await store.insertUpload(Self.upload("old", expiresAt: Self.t0))
            try await store.insertUpload(Self.upload("new", expiresAt: Self.t1))
            #expect(try await store.deleteExpiredUploads(before: Self.t0) == [])
            #expect(try await store.deleteExpiredUploads(before: Self.t0.addingTimeInterval(1)) == ["old"])
            #expect(try await store.upload(id: "old") == nil)
            #expect(try await store.upload(id: "new") != nil)
        }
    }
}
