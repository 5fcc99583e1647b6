import Foundation
import Testing

@testable import PodiumStore

/// The channel's catalogue on both databases: categories and videos as stored, listings (public,
/// all, archive) with category, search and paging, favourites and positions, and a person's
/// anonymous data adopted into their account.
@Suite("Channel video store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct ChannelVideoStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let t1 = Date(timeIntervalSince1970: 1_700_000_060.5)
    static let t2 = Date(timeIntervalSince1970: 1_700_000_120.75)

    static func blob(_ digit: Character, _ ext: String) -> String { String(repeating: digit, count: 64) + "." + ext }

    /// An owner, a ready library video `lv1`, categories `news` (with sub-category `local`) and `kitchen`.
    static func seed(_ store: SQLStore) async throws {
        try await store.insertUser(
            UserRecord(id: "u1", email: "ada@example.org", name: "Ada", role: .admin, passwordHash: "h", createdAt: t0))
        try await store.insertVideo(
            VideoRecord(
                id: "lv1", ownerId: "u1", folderId: nil, title: "Source", status: .ready, sourceHash: blob("a", "mp4"),
                sourceBytes: 10, duration: 12.5, masterPlaylist: blob("b", "m3u8"), poster: blob("c", "jpg"),
                createdAt: t0))
        _ = try await store.insertChannelVideoCategory(.init(id: "news", parentId: nil, name: "News", position: 9, updatedAt: t0))
        _ = try await store.insertChannelVideoCategory(
            .init(id: "kitchen", parentId: nil, name: "Kitchen", position: 0, updatedAt: t0))
        _ = try await store.insertChannelVideoCategory(
            .init(id: "local", parentId: "news", name: "Local", position: 0, updatedAt: t0))
    }

    static func video(
        _ id: String, category: String = "news", sub: String? = nil, title: String, description: String = "",
        published: Date? = t1
    ) -> ChannelVideoRecord {
        ChannelVideoRecord(
            id: id, videoId: "lv1", categoryId: category, subcategoryId: sub, title: title, description: description,
            chapters: #"[{"start":0,"title":"Start"}]"#, free: false, promoted: false, publishedAt: published, createdAt: t0,
            updatedAt: t0)
    }

    @Test(arguments: TestStores.kinds) func categoriesAreOrderedArchivedAndDeletedOnlyWhenUnused(_ kind: StoreKind)
        async throws
    {
        try await TestStores.with(kind) { store in
            try await Self.seed(store)
            // Inserted at the end whatever position was asked.
            #expect(try await store.channelVideoCategories(.published).map(\.id) == ["news", "kitchen", "local"])
            #expect(try await store.channelVideoCategory(id: "local")?.parentId == "news")
            try await store.reorderChannelVideoCategories(["kitchen", "news", "local"], at: Self.t1)
            #expect(try await store.channelVideoCategories(.all).map(\.id) == ["kitchen", "news", "local"])
            #expect(try await store.channelVideosUpdatedAt() == Self.t1)

            var kitchen = try #require(try await store.channelVideoCategory(id: "kitchen"))
            kitchen.archivedAt = Self.t2
            kitchen.updatedAt = Self.t2
            kitchen.name = "Czech kitchen"
            try await store.updateChannelVideoCategory(kitchen)
            #expect(try await store.channelVideoCategory(id: "kitchen") == kitchen)
            #expect(try await store.channelVideoCategories(.published).map(\.id) == ["news", "local"])
            #expect(try await store.channelVideoCategories(.archived).map(\.id) == ["kitchen"])

            _ = try await store.insertChannelVideo(Self.video("cv1", category: "kitchen", title: "Dumplings"))
            #expect(try await store.deleteChannelVideoCategory(id: "kitchen") == false)  // a video uses it
            #expect(try await store.deleteChannelVideoCategory(id: "news") == false)  // it has a sub-category
            try await store.deleteChannelVideo(id: "cv1")
            #expect(try await store.deleteChannelVideoCategory(id: "kitchen") == true)
            #expect(try await store.channelVideoCategory(id: "kitchen") == nil)
        }
    }

    @Test(arguments: TestStores.kinds) func videosAreListedByCategorySearchAndPage(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seed(store)
            let first = try await store.insertChannelVideo(
                Self.video("cv1", title: "Prague at night", description: "Lights over the Vltava"))
            #expect(first.position == 0)
            let second = try await store.insertChannelVideo(
                Self.video("cv2", sub: "local", title: "Brno news", description: "100% local_news", published: Self.t2))
            #expect(second.position == 1)
            _ = try await store.insertChannelVideo(Self.video("cv3", category: "kitchen", title: "Goulash", published: nil))

            let entry = try #require(try await store.channelVideo(id: "cv1"))
            #expect(entry.record == first)
            #expect(
                entry.duration == 12.5 && entry.poster == Self.blob("c", "jpg") && entry.masterPlaylist == Self.blob("b", "m3u8"))

            // Public: published only; a top-level category holds its sub-categories' videos.
            #expect(try await store.channelVideos(.init()).map(\.record.id) == ["cv1", "cv2"])
            #expect(try await store.channelVideos(.init(listing: .all)).map(\.record.id) == ["cv1", "cv2", "cv3"])
            #expect(try await store.channelVideos(.init(categoryId: "news")).map(\.record.id) == ["cv1", "cv2"])
            #expect(try await store.channelVideos(.init(categoryId: "local")).map(\.record.id) == ["cv2"])
            #expect(try await store.channelVideos(.init(categoryId: "kitchen")).isEmpty)
            #expect(try await store.channelVideos(.init(limit: 1, offset: 1)).map(\.record.id) == ["cv2"])

            // Search: every word, title or description, any case; LIKE's wildcards taken literally.
            #expect(try await store.channelVideos(.init(search: "VLTAVA")).map(\.record.id) == ["cv1"])
            #expect(try await store.channelVideos(.init(search: "prague  lights")).map(\.record.id) == ["cv1"])
            #expect(try await store.channelVideos(.init(search: "prague brno")).isEmpty)
            #expect(try await store.channelVideos(.init(search: "100%")).map(\.record.id) == ["cv2"])
            #expect(try await store.channelVideos(.init(search: "l_cal")).isEmpty)
            #expect(try await store.channelVideos(.init(search: "%")).map(\.record.id) == ["cv2"])

            #expect(try await store.latestPublishedChannelVideoId() == "cv2")
            try await store.reorderChannelVideos(["cv2", "cv1", "cv3"], at: Self.t2)
            #expect(try await store.channelVideos(.init()).map(\.record.id) == ["cv2", "cv1"])

            // Archived: out of public reads and of "the latest"; its category archived hides it too.
            var archived = try #require(try await store.channelVideo(id: "cv2")).record
            archived.archivedAt = Self.t2
            archived.title = "Brno"
            archived.free = true
            archived.promoted = true
            try await store.updateChannelVideo(archived)
            #expect(try await store.channelVideo(id: "cv2")?.record == archived)
            #expect(try await store.channelVideos(.init()).map(\.record.id) == ["cv1"])
            #expect(try await store.channelVideos(.init(listing: .archived)).map(\.record.id) == ["cv2"])
            #expect(try await store.latestPublishedChannelVideoId() == "cv1")
            var news = try #require(try await store.channelVideoCategory(id: "news"))
            news.archivedAt = Self.t2
            try await store.updateChannelVideoCategory(news)
            #expect(try await store.channelVideos(.init()).isEmpty)
            #expect(try await store.latestPublishedChannelVideoId() == nil)
        }
    }

    @Test(arguments: TestStores.kinds) func favouritesAndPositionsAreAdoptedAtSignIn(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seed(store)
            for id in ["cv1", "cv2", "cv3"] { _ = try await store.insertChannelVideo(Self.video(id, title: id)) }

            try await store.addChannelFavourite(viewerKey: "v_anon", channelVideoId: "cv1", at: Self.t0)
            try await store.addChannelFavourite(viewerKey: "v_anon", channelVideoId: "cv2", at: Self.t1)
            try await store.addChannelFavourite(viewerKey: "v_anon", channelVideoId: "cv2", at: Self.t2)  // again is once
            #expect(try await store.channelFavourites(viewerKey: "v_anon").map(\.record.id) == ["cv2", "cv1"])
            #expect(try await store.isChannelFavourite(viewerKey: "v_anon", channelVideoId: "cv1"))
            try await store.addChannelFavourite(viewerKey: "u1", channelVideoId: "cv3", at: Self.t0)

            // The anonymous browser watched cv1 recently and cv2 long ago; the account watched cv2 since.
            try await store.saveChannelPosition(
                .init(viewerKey: "v_anon", channelVideoId: "cv1", seconds: 6, duration: 12.5, updatedAt: Self.t2))
            try await store.saveChannelPosition(
                .init(viewerKey: "v_anon", channelVideoId: "cv2", seconds: 3, duration: 12.5, updatedAt: Self.t0))
            try await store.saveChannelPosition(
                .init(viewerKey: "u1", channelVideoId: "cv2", seconds: 9, duration: 12.5, updatedAt: Self.t1))
            try await store.saveChannelPosition(
                .init(viewerKey: "u1", channelVideoId: "cv1", seconds: 1, duration: 12.5, updatedAt: Self.t0))

            try await store.adoptChannelViewer(from: "v_anon", into: "u1")
            #expect(Set(try await store.channelFavourites(viewerKey: "u1").map(\.record.id)) == ["cv1", "cv2", "cv3"])
            #expect(try await store.channelFavourites(viewerKey: "v_anon").isEmpty)
            #expect(try await store.channelPosition(viewerKey: "u1", channelVideoId: "cv1")?.seconds == 6)  // newer won
            #expect(try await store.channelPosition(viewerKey: "u1", channelVideoId: "cv2")?.seconds == 9)  // kept
            #expect(try await store.channelPosition(viewerKey: "v_anon", channelVideoId: "cv1") == nil)
            let recent = try await store.channelPositions(viewerKey: "u1", limit: 10)
            #expect(recent.map(\.video.record.id) == ["cv1", "cv2"])
            #expect(
                recent.first?.position
                    == .init(viewerKey: "u1", channelVideoId: "cv1", seconds: 6, duration: 12.5, updatedAt: Self.t2))

            try await store.removeChannelFavourite(viewerKey: "u1", channelVideoId: "cv3")
            #expect(!(try await store.isChannelFavourite(viewerKey: "u1", channelVideoId: "cv3")))
            // Deleting a video for ever takes its favourites and positions with it.
            try await store.deleteChannelVideo(id: "cv1")
            #expect(try await store.channelPositions(viewerKey: "u1", limit: 10).map(\.video.record.id) == ["cv2"])
            #expect(try await store.channelFavourites(viewerKey: "u1").map(\.record.id) == ["cv2"])
            // Deleting the library video removes the channel's entries that play it.
            _ = try await store.deleteVideo(id: "lv1")
            #expect(try await store.channelVideos(.init(listing: .all)).isEmpty)
        }
    }
}
