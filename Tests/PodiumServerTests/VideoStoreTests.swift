import Foundation
import Testing

@testable import PodiumStore

/// The video table on both databases: records come back as stored, updates keep what they
/// should, and deleting a video names the blobs that only it used.
@Suite("Video store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct VideoStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let t1 = Date(timeIntervalSince1970: 1_700_000_060.5)

    static func blob(_ digit: Character, _ ext: String) -> String { String(repeating: digit, count: 64) + "." + ext }

    static func seedOwner(_ store: SQLStore) async throws {
        try await store.insertUser(
            UserRecord(id: "u1", email: "ada@example.org", name: "Ada", role: .presenter, passwordHash: "h", createdAt: t0))
        try await store.insertFolder(FolderRecord(id: "f1", ownerId: "u1", name: "Clips", createdAt: t0))
    }

    @Test(arguments: TestStores.kinds) func aVideoComesBackAsStoredAndUpdated(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seedOwner(store)
            let queued = VideoRecord(
                id: "v1", ownerId: "u1", folderId: "f1", title: "Intro", status: .queued,
                sourceHash: Self.blob("a", "mp4"), sourceBytes: 5_000_000_000, createdAt: Self.t0)
            try await store.insertVideo(queued)
            #expect(try await store.video(id: "v1") == queued)

            var ready = queued
            ready.status = .ready
            ready.folderId = nil
            ready.duration = 4.04
            ready.width = 1280
            ready.height = 720
            ready.hasVideo = true
            ready.hasAudio = true
            ready.renditions = #"[{"playlist":"x.m3u8","bandwidth":1}]"#
            ready.masterPlaylist = Self.blob("b", "m3u8")
            ready.poster = Self.blob("c", "jpg")
            ready.thumbnailSprite = Self.blob("d", "jpg")
            ready.thumbnailTrack = Self.blob("e", "vtt")
            ready.mp4 = Self.blob("f", "mp4")
            ready.files = #"["\#(Self.blob("b", "m3u8"))","\#(Self.blob("c", "jpg"))"]"#
            try await store.updateVideo(ready)
            #expect(try await store.video(id: "v1") == ready)
            #expect(ready.fileNames == [Self.blob("b", "m3u8"), Self.blob("c", "jpg")])

            var failed = ready
            failed.status = .failed
            failed.errorCode = "corrupt"
            failed.errorMessage = "This video could not be read."
            try await store.updateVideo(failed)
            #expect(try await store.video(id: "v1") == failed)
        }
    }

    @Test(arguments: TestStores.kinds) func videosAreListedByOwnerAndFolderNewestFirst(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seedOwner(store)
            for (id, folder, date) in [("v1", "f1", Self.t0), ("v2", nil, Self.t1)] {
                try await store.insertVideo(
                    VideoRecord(
                        id: id, ownerId: "u1", folderId: folder, title: id, status: .queued,
                        sourceHash: Self.blob("a", "mp4"), sourceBytes: 1, createdAt: date))
            }
            #expect(try await store.videos(ownerId: "u1", folderId: nil).map(\.id) == ["v2", "v1"])
            #expect(try await store.videos(ownerId: "u1", folderId: "f1").map(\.id) == ["v1"])
            #expect(try await store.videos(ownerId: "u2", folderId: nil).isEmpty)
            // Deleting the folder keeps its videos, at the top level.
            try await store.deleteFolder(id: "f1")
            #expect(try await store.video(id: "v1")?.folderId == nil)
        }
    }

    @Test(arguments: TestStores.kinds) func aRoomsClipsAreTheRoomsAloneNotTheLibrarys(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seedOwner(store)
            for (id, room, date) in [("v1", nil, Self.t0), ("v2", "s1", Self.t0), ("v3", "s1", Self.t1), ("v4", "s2", Self.t1)] {
                try await store.insertVideo(
                    VideoRecord(
                        id: id, ownerId: "u1", folderId: nil, roomId: room, title: id, status: .queued,
                        sourceHash: Self.blob("a", "mp4"), sourceBytes: 1, createdAt: date))
            }
            #expect(try await store.video(id: "v2")?.roomId == "s1")
            #expect(try await store.videos(ownerId: "u1", folderId: nil).map(\.id) == ["v1"])
            #expect(try await store.videos(roomId: "s1").map(\.id) == ["v3", "v2"])
            #expect(try await store.videos(roomId: "s3").isEmpty)
        }
    }

    @Test(arguments: TestStores.kinds) func deletingAVideoNamesTheBlobsOnlyItUsed(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seedOwner(store)
            let shared = Self.blob("1", "m4s")
            let own = Self.blob("2", "m4s")
            let source = Self.blob("3", "mp4")
            try await store.insertVideo(
                VideoRecord(
                    id: "v1", ownerId: "u1", folderId: nil, title: "One", status: .ready, sourceHash: source,
                    sourceBytes: 1, files: #"["\#(shared)","\#(own)"]"#, createdAt: Self.t0))
            // The same upload again: the same source and segments.
            try await store.insertVideo(
                VideoRecord(
                    id: "v2", ownerId: "u1", folderId: nil, title: "Two", status: .ready, sourceHash: source,
                    sourceBytes: 1, files: #"["\#(shared)"]"#, createdAt: Self.t1))
            #expect(try await store.blobsUnused([shared, own, source], exceptVideo: "v1") == [own])
            #expect(try await store.blobsUnused([own], exceptVideo: "v2") == [])
            #expect(try await store.deleteVideo(id: "v1") == [own])
            #expect(try await store.video(id: "v1") == nil)
            #expect(try await store.deleteVideo(id: "v2") == [shared, source].sorted())
            #expect(try await store.deleteVideo(id: "v2") == [])
        }
    }

    /// Retiring files (#41): listed when due, dropped once by whichever node sweeps first (the
    /// compare-and-set a cluster's nodes rely on), and removable only when no other clip uses them.
    @Test(arguments: TestStores.kinds) func retiringFilesAreDroppedOnceAndKeptWhileAnotherClipUsesThem(
        _ kind: StoreKind
    ) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seedOwner(store)
            let (ladder, copy, shared) = (Self.blob("1", "m4s"), Self.blob("2", "m4s"), Self.blob("3", "m4s"))
            var first = VideoRecord(
                id: "v1", ownerId: "u1", folderId: nil, title: "Copied", status: .ready, sourceHash: Self.blob("a", "mp4"),
                sourceBytes: 1, files: #"["\#(ladder)"]"#, createdAt: Self.t0)
            first.retiringFiles = #"["\#(copy)","\#(shared)"]"#
            first.retireAt = Self.t1
            try await store.insertVideo(first)
            // The same bytes in another clip: one blob, kept for it.
            try await store.insertVideo(
                VideoRecord(
                    id: "v2", ownerId: "u1", folderId: nil, title: "Same", status: .ready, sourceHash: Self.blob("b", "mp4"),
                    sourceBytes: 1, files: #"["\#(shared)"]"#, createdAt: Self.t0))
            #expect(try await store.video(id: "v1") == first)
            #expect(try await store.video(id: "v1")?.servedFileNames == [ladder, copy, shared])
            #expect(try await store.videosRetiring(until: Self.t0).isEmpty)
            #expect(try await store.videosRetiring(until: Self.t1).map(\.id) == ["v1"])
            // Two nodes sweep at once: one drops them and may remove what no clip uses.
            #expect(try await store.retireFiles(videoId: "v1", retireAt: Self.t1) == [copy])
            #expect(try await store.retireFiles(videoId: "v1", retireAt: Self.t1) == nil)
            let swept = try #require(try await store.video(id: "v1"))
            #expect(swept.retiringFileNames.isEmpty && swept.retireAt == nil && swept.fileNames == [ladder])
            #expect(try await store.videosRetiring(until: Self.t1).isEmpty)
            // A clip's files moved to retiring, once, and only while they are as read.
            #expect(try await store.startRetiring(videoId: "v1", files: "[]", retiring: [ladder], retireAt: Self.t1) == false)
            #expect(
                try await store.startRetiring(videoId: "v1", files: swept.files, retiring: [ladder], retireAt: Self.t1))
            #expect(
                try await store.startRetiring(videoId: "v1", files: "[]", retiring: [ladder], retireAt: Self.t1) == false)
            let moved = try #require(try await store.video(id: "v1"))
            #expect(moved.fileNames.isEmpty && moved.retiringFileNames == [ladder] && moved.retireAt == Self.t1)
            // A deleted clip's retiring files are its own to remove too.
            #expect(try await store.deleteVideo(id: "v1") == [Self.blob("a", "mp4"), ladder].sorted())
        }
    }
}
