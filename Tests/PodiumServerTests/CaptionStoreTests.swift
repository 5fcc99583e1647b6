import Foundation
import Testing

@testable import PodiumStore

/// Caption tracks on both databases: one per clip and language, replaced in place (keeping when
/// it was created), listed by language, deleted alone or with their clip.
@Suite("Caption store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct CaptionStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let t1 = Date(timeIntervalSince1970: 1_700_000_060.5)

    static func seed(_ store: SQLStore) async throws {
        try await VideoStoreTests.seedOwner(store)
        for id in ["v1", "v2", "v3"] {
            try await store.insertVideo(
                VideoRecord(
                    id: id, ownerId: "u1", folderId: nil, title: id, status: .ready,
                    sourceHash: VideoStoreTests.blob("a", "mp4"), sourceBytes: 1, createdAt: t0))
        }
    }

    static func track(_ video: String, _ language: String, _ text: String = "WEBVTT\n", at date: Date = t0)
        -> CaptionTrackRecord
    {
        CaptionTrackRecord(
            videoId: video, language: language, label: language.uppercased(), kind: .subtitles, webvtt: text,
            createdAt: date, updatedAt: date)
    }

    @Test(arguments: TestStores.kinds) func tracksAreStoredReplacedListedAndDeleted(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seed(store)
            #expect(try await store.putCaptionTrack(Self.track("v1", "en")) == Self.track("v1", "en"))
            _ = try await store.putCaptionTrack(Self.track("v1", "de-CH"))
            _ = try await store.putCaptionTrack(Self.track("v2", "fr"))
            #expect(try await store.captionTracks(videoId: "v1").map(\.language) == ["de-CH", "en"])
            #expect(try await store.captionTrack(videoId: "v1", language: "en") == Self.track("v1", "en"))
            #expect(try await store.captionTrack(videoId: "v1", language: "fr") == nil)

            // Replacing keeps the creation time and changes the rest.
            var replacement = Self.track("v1", "en", "WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n", at: Self.t1)
            replacement.kind = .captions
            replacement.label = "English (CC)"
            let stored = try await store.putCaptionTrack(replacement)
            replacement.createdAt = Self.t0
            #expect(stored == replacement)
            #expect(try await store.captionTrack(videoId: "v1", language: "en") == replacement)
            #expect(try await store.captionTracks(videoId: "v1").count == 2)

            #expect(try await store.captionLanguages(videoIds: ["v1", "v2", "v3"]) == ["v1": ["de-CH", "en"], "v2": ["fr"]])
            #expect(try await store.captionLanguages(videoIds: []) == [:])

            #expect(try await store.deleteCaptionTrack(videoId: "v1", language: "de-CH"))
            #expect(try await !store.deleteCaptionTrack(videoId: "v1", language: "de-CH"))
            #expect(try await store.captionTracks(videoId: "v1").map(\.language) == ["en"])

            // A clip's tracks go with it.
            _ = try await store.deleteVideo(id: "v2")
            #expect(try await store.captionTracks(videoId: "v2").isEmpty)
            #expect(try await store.captionLanguages(videoIds: ["v1", "v2"]) == ["v1": ["en"]])
        }
    }
}
