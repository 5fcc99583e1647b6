import Foundation

extension Endpoint {
    public static let channelVideoLibrary = Endpoint("GET", "/api/v1/channel/videos/library")
    public static let channelVideoStream = Endpoint("GET", "/api/v1/channel/videos/{id}/stream")
    public static let channelVideoCategoryVideos = Endpoint("GET", "/api/v1/channel/videos/categories/{id}/videos")
}

// ChannelVideo, ChannelVideoCategory, ChannelVideoStream, ChannelLibraryVideo and
// ChannelContinueWatching are PodiumWire's (re-exported).

extension PodiumClient {
    /// The library videos an admin may put on the channel.
    public func channelVideoLibrary() async throws -> [ChannelLibraryVideo] { try await call(.channelVideoLibrary) }

    /// A channel video's signed stream (playlist URL and its expiry).
    public func channelVideoStream(id: String) async throws -> ChannelVideoStream {
        try await call(.channelVideoStream, ["id": id])
    }

    public func channelVideos(inCategory id: String) async throws -> [ChannelVideo] {
        try await call(.channelVideoCategoryVideos, ["id": id])
    }
}
