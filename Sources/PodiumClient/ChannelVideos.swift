import Foundation

extension Endpoint {
    public static let channelVideoLibrary = Endpoint("GET", "/api/v1/channel/videos/library")
    public static let channelVideoStream = Endpoint("GET", "/api/v1/channel/videos/{id}/stream")
    public static let channelVideoCategoryVideos = Endpoint("GET", "/api/v1/channel/videos/categories/{id}/videos")
}

/// A video of the channel as its lists show it.
public struct ChannelVideo: Codable, Sendable, Equatable {
    /// A chapter mark: where it starts (seconds) and its title.
    public struct Chapter: Codable, Sendable, Equatable {
        public var start: Double
        public var title: String
    }
    public var id: String
    public var categoryId: String?
    public var subcategoryId: String?
    public var title: String
    public var description: String
    public var chapters: [Chapter]
    /// Its poster frame (`/blobs/…`); nil without one.
    public var posterUrl: String?
    public var duration: Double
    public var free: Bool
    public var promoted: Bool
    /// Whether only members may watch it.
    public var membersOnly: Bool
    /// Published in the last week (`new` on the wire).
    public var isNew: Bool
    public var position: Int
    /// Nil while a draft.
    public var publishedAt: Date?
    public var updatedAt: Date
    public var archivedAt: Date?
    /// The library video it plays.
    public var libraryVideoId: String

    enum CodingKeys: String, CodingKey {
        case id, categoryId, subcategoryId, title, description, chapters, posterUrl, duration, free, promoted, membersOnly,
            isNew = "new", position, publishedAt, updatedAt, archivedAt, libraryVideoId
    }
}

/// Where to play a channel video from: a per-person URL that expires, and where the person stopped.
public struct ChannelVideoStream: Codable, Sendable, Equatable {
    public var url: String
    public var expiresAt: Date
    /// Nil: from the start.
    public var resumeAt: Double?
}

/// A library video an admin may publish on the channel.
public struct ChannelLibraryVideo: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var duration: Double
    public var posterUrl: String?
    public var createdAt: Date
}

/// One row of "continue watching": the video, and where the person stopped.
public struct ChannelContinueWatching: Codable, Sendable, Equatable {
    public var video: ChannelVideo
    public var seconds: Double
    public var duration: Double
    public var updatedAt: Date
}

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
