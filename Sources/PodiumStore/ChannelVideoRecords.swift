import Foundation

/// A category of the channel's videos. One level of sub-categories: a category with a
/// `parentId` is a sub-category of that (top-level) category.
public struct ChannelVideoCategoryRecord: Sendable, Equatable, Codable {
    public var id: String
    public var parentId: String?
    public var name: String
    /// Order among its siblings, smallest first.
    public var position: Int
    public var updatedAt: Date
    /// Set when deleted from the public catalogue; the record stays until deleted for ever.
    public var archivedAt: Date?

    public init(id: String, parentId: String?, name: String, position: Int, updatedAt: Date, archivedAt: Date? = nil) {
        self.id = id
        self.parentId = parentId
        self.name = name
        self.position = position
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
    }
}

/// A video of the channel: an already packaged library video (`videoId`) with the channel's
/// own title, description, chapters and place in the catalogue.
public struct ChannelVideoRecord: Sendable, Equatable, Codable {
    public var id: String
    /// The library video (`videos.id`) that is played.
    public var videoId: String
    public var categoryId: String
    /// A sub-category of `categoryId`, if any.
    public var subcategoryId: String?
    public var title: String
    public var description: String
    /// JSON, `[{"start": seconds, "title": "…"}]`, ordered by start.
    public var chapters: String
    /// Non-members may play it.
    public var free: Bool
    /// Currently promoted: non-members may play it, and the catalogue shows it first.
    public var promoted: Bool
    public var position: Int
    /// Nil until published; public reads list only published, unarchived videos.
    public var publishedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    public var archivedAt: Date?

    public init(
        id: String, videoId: String, categoryId: String, subcategoryId: String? = nil, title: String,
        description: String = "", chapters: String = "[]", free: Bool = false, promoted: Bool = false, position: Int = 0,
        publishedAt: Date? = nil, createdAt: Date, updatedAt: Date, archivedAt: Date? = nil
    ) {
        self.id = id
        self.videoId = videoId
        self.categoryId = categoryId
        self.subcategoryId = subcategoryId
        self.title = title
        self.description = description
        self.chapters = chapters
        self.free = free
        self.promoted = promoted
        self.position = position
        self.publishedAt = publishedAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
    }
}

/// A channel video with what the catalogue shows of the library video it plays.
public struct ChannelVideoEntry: Sendable, Equatable {
    public var record: ChannelVideoRecord
    /// Seconds.
    public var duration: Double
    /// The poster's blob name.
    public var poster: String?
    /// The master playlist's blob name; nil while the library video is not ready.
    public var masterPlaylist: String?

    public init(record: ChannelVideoRecord, duration: Double, poster: String?, masterPlaylist: String?) {
        self.record = record
        self.duration = duration
        self.poster = poster
        self.masterPlaylist = masterPlaylist
    }
}

/// Which items a listing holds: what the public sees, everything but the archive, or the archive.
public enum ChannelListing: String, Sendable, Equatable {
    /// Published and not archived (categories: not archived).
    case published
    /// Published or not, not archived.
    case all
    case archived
}

/// What a listing of channel videos asks for.
public struct ChannelVideoQuery: Sendable, Equatable {
    public var listing: ChannelListing
    /// A top-level category (its sub-categories' videos included) or a sub-category.
    public var categoryId: String?
    /// Words that must all appear in the title or the description, in any case.
    public var search: String?
    public var limit: Int
    public var offset: Int

    public init(
        listing: ChannelListing = .published, categoryId: String? = nil, search: String? = nil, limit: Int = 50,
        offset: Int = 0
    ) {
        self.listing = listing
        self.categoryId = categoryId
        self.search = search
        self.limit = limit
        self.offset = offset
    }
}

/// Where a person stopped watching a channel video.
public struct ChannelPositionRecord: Sendable, Equatable {
    public var viewerKey: String
    public var channelVideoId: String
    public var seconds: Double
    public var duration: Double
    public var updatedAt: Date

    public init(viewerKey: String, channelVideoId: String, seconds: Double, duration: Double, updatedAt: Date) {
        self.viewerKey = viewerKey
        self.channelVideoId = channelVideoId
        self.seconds = seconds
        self.duration = duration
        self.updatedAt = updatedAt
    }
}
