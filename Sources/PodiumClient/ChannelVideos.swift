import Foundation

extension Endpoint {
    public static let channelVideoLibrary = Endpoint("GET", "/api/v1/channel/videos/library")
    public static let channelVideoStream = Endpoint("GET", "/api/v1/channel/videos/{id}/stream")
    public static let channelVideoCategoryVideos = Endpoint("GET", "/api/v1/channel/videos/categories/{id}/videos")
}

extension PodiumClient {
    /// The library videos an admin may put on the channel.
    public func channelVideoLibrary() async throws -> JSONValue { try await callJSON(.channelVideoLibrary) }

    /// A channel video's signed stream (playlist URL and its expiry).
    public func channelVideoStream(id: String) async throws -> JSONValue {
        try await callJSON(.channelVideoStream, ["id": id])
    }

    public func channelVideos(inCategory id: String) async throws -> JSONValue {
        try await callJSON(.channelVideoCategoryVideos, ["id": id])
    }
}
