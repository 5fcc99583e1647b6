import Foundation
import PodiumStore

// The channel's video catalogue goes straight to the real store.
extension GatedStore {
    func channelVideoCategories(_ listing: ChannelListing) async throws -> [ChannelVideoCategoryRecord] {
        try await base.channelVideoCategories(listing)
    }

    func channelVideoCategory(id: String) async throws -> ChannelVideoCategoryRecord? {
        try await base.channelVideoCategory(id: id)
    }

    func insertChannelVideoCategory(_ category: ChannelVideoCategoryRecord) async throws -> ChannelVideoCategoryRecord {
        try await base.insertChannelVideoCategory(category)
    }

    func updateChannelVideoCategory(_ category: ChannelVideoCategoryRecord) async throws {
        try await base.updateChannelVideoCategory(category)
    }

    func deleteChannelVideoCategory(id: String) async throws -> Bool {
        try await base.deleteChannelVideoCategory(id: id)
    }

    func reorderChannelVideoCategories(_ ids: [String], at: Date) async throws {
        try await base.reorderChannelVideoCategories(ids, at: at)
    }

    func channelVideos(_ query: ChannelVideoQuery) async throws -> [ChannelVideoEntry] {
        try await base.channelVideos(query)
    }

    func channelVideo(id: String) async throws -> ChannelVideoEntry? {
        try await base.channelVideo(id: id)
    }

    func channelVideosUpdatedAt() async throws -> Date? {
        try await base.channelVideosUpdatedAt()
    }

    func latestPublishedChannelVideoId() async throws -> String? {
        try await base.latestPublishedChannelVideoId()
    }

    func insertChannelVideo(_ video: ChannelVideoRecord) async throws -> ChannelVideoRecord {
        try await base.insertChannelVideo(video)
    }

    func updateChannelVideo(_ video: ChannelVideoRecord) async throws {
        try await base.updateChannelVideo(video)
    }

    func deleteChannelVideo(id: String) async throws {
        try await base.deleteChannelVideo(id: id)
    }

    func reorderChannelVideos(_ ids: [String], at: Date) async throws {
        try await base.reorderChannelVideos(ids, at: at)
    }

    func channelFavourites(viewerKey: String) async throws -> [ChannelVideoEntry] {
        try await base.channelFavourites(viewerKey: viewerKey)
    }

    func isChannelFavourite(viewerKey: String, channelVideoId: String) async throws -> Bool {
        try await base.isChannelFavourite(viewerKey: viewerKey, channelVideoId: channelVideoId)
    }

    func addChannelFavourite(viewerKey: String, channelVideoId: String, at: Date) async throws {
        try await base.addChannelFavourite(viewerKey: viewerKey, channelVideoId: channelVideoId, at: at)
    }

    func removeChannelFavourite(viewerKey: String, channelVideoId: String) async throws {
        try await base.removeChannelFavourite(viewerKey: viewerKey, channelVideoId: channelVideoId)
    }

    func saveChannelPosition(_ position: ChannelPositionRecord) async throws {
        try await base.saveChannelPosition(position)
    }

    func channelPosition(viewerKey: String, channelVideoId: String) async throws -> ChannelPositionRecord? {
        try await base.channelPosition(viewerKey: viewerKey, channelVideoId: channelVideoId)
    }

    func channelPositions(viewerKey: String, limit: Int) async throws -> [(
        position: ChannelPositionRecord, video: ChannelVideoEntry
    )] {
        try await base.channelPositions(viewerKey: viewerKey, limit: limit)
    }

    func adoptChannelViewer(from anonymousKey: String, into accountKey: String) async throws {
        try await base.adoptChannelViewer(from: anonymousKey, into: accountKey)
    }
}
