import Foundation
import PodiumStore

/// The channel's published videos, for the feed of what is new and for share previews.
struct ChannelVideoPublications: ChannelPublications {
    let store: any ChannelVideoStore

    /// More than a channel publishes: the feed keeps what is newer than a person's last visit.
    static let limit = 10_000

    func published() async throws -> [ChannelPublication] {
        try await store.channelVideos(ChannelVideoQuery(listing: .published, limit: Self.limit)).compactMap(Self.publication)
    }

    func published(id: String) async throws -> ChannelPublication? {
        guard let entry = try await store.channelVideo(id: id), entry.record.archivedAt == nil,
            try await store.channelVideoCategory(id: entry.record.categoryId)?.archivedAt == nil
        else { return nil }
        return Self.publication(entry)
    }

    static func publication(_ entry: ChannelVideoEntry) -> ChannelPublication? {
        guard let publishedAt = entry.record.publishedAt else { return nil }
        return ChannelPublication(
            kind: "video", id: entry.record.id, title: entry.record.title, description: entry.record.description,
            imagePath: entry.poster.map { "/blobs/\($0)" }, publishedAt: publishedAt)
    }
}
