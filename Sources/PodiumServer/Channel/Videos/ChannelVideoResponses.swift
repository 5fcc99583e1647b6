import Foundation
import PodiumCore
import PodiumStore

/// A chapter of a channel video: where it starts (seconds) and its title.
struct ChannelChapter: Codable, Sendable, Equatable {
    var start: Double
    var title: String

    /// The stored JSON, read leniently: a record written by an older version still shows.
    static func decode(_ json: String) -> [ChannelChapter] {
        (try? JSONDecoder().decode([ChannelChapter].self, from: Data(json.utf8))) ?? []
    }

    static func encode(_ chapters: [ChannelChapter]) -> String {
        (try? String(decoding: JSONEncoder().encode(chapters), as: UTF8.self)) ?? "[]"
    }

    /// Chapters as an admin sends them: each title given, starts within the video, at most 200;
    /// returned sorted by start.
    static func validated(_ chapters: [ChannelChapter], duration: Double) throws -> [ChannelChapter] {
        guard chapters.count <= 200 else { throw APIError.badRequest("A video has at most 200 chapters.") }
        return try chapters.map { chapter in
            let title = chapter.title.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !title.isEmpty, title.count <= 200 else {
                throw APIError.badRequest("Each chapter needs a title of 1 to 200 characters.")
            }
            guard chapter.start.isFinite, chapter.start >= 0, duration <= 0 || chapter.start < duration else {
                throw APIError.badRequest("A chapter starts at a second within the video (0 to \(Int(duration))).")
            }
            return ChannelChapter(start: chapter.start, title: title)
        }.sorted { $0.start < $1.start }
    }
}

/// A category as the channel API shows it (Appendix B's `kind` and `level` kept).
struct ChannelCategoryResponse: Encodable, Sendable {
    let record: ChannelVideoCategoryRecord

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(record.id, forKey: .id)
        try container.encode(record.parentId, forKey: .parentId)
        try container.encode(record.name, forKey: .name)
        try container.encode("video", forKey: .kind)
        try container.encode(record.parentId == nil ? 0 : 1, forKey: .level)
        try container.encode(record.position, forKey: .position)
        try container.encode(record.updatedAt, forKey: .updatedAt)
        try container.encode(record.archivedAt, forKey: .archivedAt)
    }

    enum CodingKeys: String, CodingKey { case id, parentId, name, kind, level, position, updatedAt, archivedAt }
}

/// A channel video as the API shows it. The same for everyone (so it can be cached and
/// revalidated): `membersOnly` says whether a non-member may play it, not whether the asker may.
struct ChannelVideoResponse: Encodable, Sendable {
    let entry: ChannelVideoEntry
    let membersOnly: Bool
    let isNew: Bool

    /// A video is "new" for a week after it is published.
    static let newFor: TimeInterval = 7 * 24 * 3600

    init(_ entry: ChannelVideoEntry, latestPublishedId: String?, now: Date) {
        self.entry = entry
        let record = entry.record
        membersOnly = !ChannelVideoAccess.isOpen(
            .init(id: record.id, free: record.free, promoted: record.promoted), latestPublishedId: latestPublishedId)
        isNew = record.publishedAt.map { now.timeIntervalSince($0) < Self.newFor } ?? false
    }

    func encode(to encoder: any Encoder) throws {
        let record = entry.record
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(record.id, forKey: .id)
        try container.encode(record.categoryId, forKey: .categoryId)
        try container.encode(record.subcategoryId, forKey: .subcategoryId)
        try container.encode(record.title, forKey: .title)
        try container.encode(record.description, forKey: .description)
        try container.encode(ChannelChapter.decode(record.chapters), forKey: .chapters)
        try container.encode(entry.poster.map { "/blobs/\($0)" }, forKey: .posterUrl)
        try container.encode(entry.duration, forKey: .duration)
        try container.encode(record.free, forKey: .free)
        try container.encode(record.promoted, forKey: .promoted)
        try container.encode(membersOnly, forKey: .membersOnly)
        try container.encode(isNew, forKey: .new)
        try container.encode(record.position, forKey: .position)
        try container.encode(record.publishedAt, forKey: .publishedAt)
        try container.encode(record.updatedAt, forKey: .updatedAt)
        try container.encode(record.archivedAt, forKey: .archivedAt)
        try container.encode(record.videoId, forKey: .libraryVideoId)
    }

    enum CodingKeys: String, CodingKey {
        case id, categoryId, subcategoryId, title, description, chapters, posterUrl, duration, free, promoted, membersOnly,
            new, position, publishedAt, updatedAt, archivedAt, libraryVideoId
    }
}

/// One row of "continue watching": the video, and where the person stopped.
struct ChannelContinueResponse: Encodable, Sendable {
    let video: ChannelVideoResponse
    let seconds: Double
    let duration: Double
    let updatedAt: Date
}

/// Where to play a video from: a per-person URL that expires, and where the person stopped.
struct ChannelStreamResponse: Encodable, Sendable {
    let url: String
    let expiresAt: Date
    let resumeAt: Double?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(resumeAt, forKey: .resumeAt)
    }

    enum CodingKeys: String, CodingKey { case url, expiresAt, resumeAt }
}

/// A library video an admin may publish on the channel.
struct ChannelLibraryVideoResponse: Encodable, Sendable {
    let id: String
    let title: String
    let duration: Double
    let posterUrl: String?
    let createdAt: Date

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(duration, forKey: .duration)
        try container.encode(posterUrl, forKey: .posterUrl)
        try container.encode(createdAt, forKey: .createdAt)
    }

    enum CodingKeys: String, CodingKey { case id, title, duration, posterUrl, createdAt }
}
