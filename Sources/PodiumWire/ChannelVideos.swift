import Foundation

/// A video of the channel as its lists show it. The same for everyone (so it can be cached and
/// revalidated): `membersOnly` says whether a non-member may play it, not whether the asker may.
/// Every field is sent, `null` when empty.
public struct ChannelVideo: Codable, Sendable, Equatable {
    /// A chapter mark: where it starts (seconds) and its title.
    public struct Chapter: Codable, Sendable, Equatable {
        public var start: Double
        public var title: String

        public init(start: Double, title: String) {
            self.start = start
            self.title = title
        }
    }

    public var id: String
    @NullEncoded public var categoryId: String?
    @NullEncoded public var subcategoryId: String?
    public var title: String
    public var description: String
    public var chapters: [Chapter]
    /// Its poster frame (`/blobs/…`); nil without one.
    @NullEncoded public var posterUrl: String?
    public var duration: Double
    public var free: Bool
    public var promoted: Bool
    /// Whether only members may watch it.
    public var membersOnly: Bool
    /// Published in the last week (`new` on the wire).
    public var isNew: Bool
    public var position: Int
    /// Nil while a draft.
    @NullEncoded public var publishedAt: Date?
    public var updatedAt: Date
    @NullEncoded public var archivedAt: Date?
    /// The library video it plays.
    public var libraryVideoId: String

    enum CodingKeys: String, CodingKey {
        case id, categoryId, subcategoryId, title, description, chapters, posterUrl, duration, free, promoted, membersOnly,
            isNew = "new", position, publishedAt, updatedAt, archivedAt, libraryVideoId
    }

    public init(
        id: String, categoryId: String?, subcategoryId: String?, title: String, description: String, chapters: [Chapter],
        posterUrl: String?, duration: Double, free: Bool, promoted: Bool, membersOnly: Bool, isNew: Bool, position: Int,
        publishedAt: Date?, updatedAt: Date, archivedAt: Date?, libraryVideoId: String
    ) {
        self.id = id
        self.categoryId = categoryId
        self.subcategoryId = subcategoryId
        self.title = title
        self.description = description
        self.chapters = chapters
        self.posterUrl = posterUrl
        self.duration = duration
        self.free = free
        self.promoted = promoted
        self.membersOnly = membersOnly
        self.isNew = isNew
        self.position = position
        self.publishedAt = publishedAt
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
        self.libraryVideoId = libraryVideoId
    }
}

/// A category (level 0) or subcategory (level 1) of the channel's videos (Appendix B's `kind`
/// and `level` kept). Every field is sent, `null` when empty.
public struct ChannelVideoCategory: Codable, Sendable, Equatable {
    public var id: String
    @NullEncoded public var parentId: String?
    public var name: String
    /// `video`.
    public var kind: String
    public var level: Int
    public var position: Int
    public var updatedAt: Date
    @NullEncoded public var archivedAt: Date?

    public init(
        id: String, parentId: String?, name: String, kind: String, level: Int, position: Int, updatedAt: Date,
        archivedAt: Date?
    ) {
        self.id = id
        self.parentId = parentId
        self.name = name
        self.kind = kind
        self.level = level
        self.position = position
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
    }
}

/// Where to play a channel video from: a per-person URL that expires, and where the person stopped.
public struct ChannelVideoStream: Codable, Sendable, Equatable {
    public var url: String
    public var expiresAt: Date
    /// Nil (`null`): from the start.
    @NullEncoded public var resumeAt: Double?

    public init(url: String, expiresAt: Date, resumeAt: Double?) {
        self.url = url
        self.expiresAt = expiresAt
        self.resumeAt = resumeAt
    }
}

/// A library video an admin may publish on the channel.
public struct ChannelLibraryVideo: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var duration: Double
    @NullEncoded public var posterUrl: String?
    public var createdAt: Date

    public init(id: String, title: String, duration: Double, posterUrl: String?, createdAt: Date) {
        self.id = id
        self.title = title
        self.duration = duration
        self.posterUrl = posterUrl
        self.createdAt = createdAt
    }
}

/// One row of "continue watching": the video, and where the person stopped.
public struct ChannelContinueWatching: Codable, Sendable, Equatable {
    public var video: ChannelVideo
    public var seconds: Double
    public var duration: Double
    public var updatedAt: Date

    public init(video: ChannelVideo, seconds: Double, duration: Double, updatedAt: Date) {
        self.video = video
        self.seconds = seconds
        self.duration = duration
        self.updatedAt = updatedAt
    }
}
