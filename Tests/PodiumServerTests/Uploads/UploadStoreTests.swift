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
            // Only under the writer's lease.
            #expect(try await !store.advanceUpload(id: "u1", from: 0, to: 10, expiresAt: later, holder: "w1"))
            #expect(try await store.takeUploadLease(id: "u1", holder: "w1", until: later, now: Self.t0))
            #expect(try await store.advanceUpload(id: "u1", from: 0, to: 4_000_000_000, expiresAt: later, holder: "w1"))
            // A second writer that read the old offset loses.
            #expect(try await !store.advanceUpload(id: "u1", from: 0, to: 10, expiresAt: later, holder: "w1"))
            #expect(try await !store.advanceUpload(id: "u2", from: 0, to: 10, expiresAt: later, holder: "w1"))
            var expected = Self.upload("u1")
            expected.uploadOffset = 4_000_000_000
            expected.expiresAt = later
            #expect(try await store.upload(id: "u1") == expected)

            // Done: the answer is kept and no byte more is taken.
            #expect(try await store.finishUpload(id: "u1", result: #"{"id":"v1"}"#, expiresAt: later))
            #expect(
                try await !store.advanceUpload(id: "u1", from: 4_000_000_000, to: 5_000_000_000, expiresAt: later, holder: "w1"))
            #expect(try await store.upload(id: "u1")?.result == #"{"id":"v1"}"#)
            #expect(try await !store.finishUpload(id: "u2", result: "{}", expiresAt: later))

            #expect(try await store.deleteUpload(id: "u1"))
            #expect(try await !store.deleteUpload(id: "u1"))
            #expect(try await store.upload(id: "u1") == nil)
        }
    }

    /// The writer's lease: one holder at a time; taken over when it has run out, or after the
    /// holder, asked to let go, fails its renewal and releases it; the offset moves only under it.
    @Test(arguments: TestStores.kinds) func oneRequestAtATimeHoldsTheWritersLease(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await store.insertUpload(Self.upload("u1"))
            let soon = Self.t0.addingTimeInterval(20)
            #expect(try await store.takeUploadLease(id: "u1", holder: "a", until: soon, now: Self.t0))
            #expect(try await store.takeUploadLease(id: "u1", holder: "a", until: soon, now: Self.t0))
            #expect(try await !store.takeUploadLease(id: "u1", holder: "b", until: soon, now: Self.t0))
            #expect(try await !store.takeUploadLease(id: "u2", holder: "b", until: soon, now: Self.t0))
            #expect(try await store.renewUploadLease(id: "u1", holder: "a", until: soon.addingTimeInterval(20)) == .renewed)
            #expect(try await store.renewUploadLease(id: "u1", holder: "b", until: soon) == .lost)
            // Past the first term but inside the renewed one: still a's.
            #expect(try await !store.takeUploadLease(id: "u1", holder: "b", until: soon, now: soon.addingTimeInterval(1)))
            #expect(try await !store.advanceUpload(id: "u1", from: 0, to: 10, expiresAt: Self.t1, holder: "b"))

            // b asks; a's next renewal says so, a commits what it has and lets go; b takes it.
            try await store.wantUploadLease(id: "u1", holder: "b")
            #expect(try await store.renewUploadLease(id: "u1", holder: "a", until: soon) == .wanted)
            #expect(try await store.advanceUpload(id: "u1", from: 0, to: 10, expiresAt: Self.t1, holder: "a"))
            try await store.releaseUploadLease(id: "u1", holder: "b")  // not b's: nothing
            #expect(try await !store.takeUploadLease(id: "u1", holder: "b", until: soon, now: Self.t0))
            try await store.releaseUploadLease(id: "u1", holder: "a")
            #expect(try await store.takeUploadLease(id: "u1", holder: "b", until: soon, now: Self.t0))
            // Taking it cleared the wish: b renews.
            #expect(try await store.renewUploadLease(id: "u1", holder: "b", until: soon) == .renewed)
            #expect(try await !store.advanceUpload(id: "u1", from: 10, to: 20, expiresAt: Self.t1, holder: "a"))

            // A holder that stopped renewing (its node died): taken over once its term is past.
            #expect(try await !store.takeUploadLease(id: "u1", holder: "c", until: soon, now: soon))
            #expect(try await store.takeUploadLease(id: "u1", holder: "c", until: soon, now: soon.addingTimeInterval(0.5)))
            #expect(try await store.renewUploadLease(id: "u1", holder: "b", until: soon) == .lost)
            #expect(try await store.advanceUpload(id: "u1", from: 10, to: 20, expiresAt: Self.t1, holder: "c"))
            #expect(try await store.upload(id: "u1")?.uploadOffset == 20)
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
