import Foundation
import PodiumCore
import PodiumStore
import PodiumWire

/// A chapter of a channel video: where it starts (seconds) and its title (PodiumWire's).
typealias ChannelChapter = ChannelVideo.Chapter

extension ChannelVideo.Chapter {
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

/// A category as the channel API shows it (PodiumWire's `ChannelVideoCategory`).
typealias ChannelCategoryResponse = ChannelVideoCategory

extension ChannelVideoCategory {
    init(record: ChannelVideoCategoryRecord) {
        self.init(
            id: record.id, parentId: record.parentId, name: record.name, kind: "video", level: record.parentId == nil ? 0 : 1,
            position: record.position, updatedAt: record.updatedAt, archivedAt: record.archivedAt)
    }
}

/// A channel video as the API shows it (PodiumWire's `ChannelVideo`). The same for everyone (so
/// it can be cached and revalidated): `membersOnly` says whether a non-member may play it, not
/// whether the asker may.
typealias ChannelVideoResponse = ChannelVideo

extension ChannelVideo {
    /// A video is "new" for a week after it is published.
    static let newFor: TimeInterval = 7 * 24 * 3600

    init(_ entry: ChannelVideoEntry, latestPublishedId: String?, now: Date) {
        let record = entry.record
        let membersOnly = !ChannelVideoAccess.isOpen(
            .init(id: record.id, free: record.free, promoted: record.promoted), latestPublishedId: latestPublishedId)
        self.init(
            id: record.id, categoryId: record.categoryId, subcategoryId: record.subcategoryId, title: record.title,
            description: record.description, chapters: ChannelChapter.decode(record.chapters),
            posterUrl: entry.poster.map { "/blobs/\($0)" }, duration: entry.duration, free: record.free,
            promoted: record.promoted, membersOnly: membersOnly,
            isNew: record.publishedAt.map { now.timeIntervalSince($0) < Self.newFor } ?? false, position: record.position,
            publishedAt: record.publishedAt, updatedAt: record.updatedAt, archivedAt: record.archivedAt,
            libraryVideoId: record.videoId)
    }
}

/// One row of "continue watching": the video, and where the person stopped.
typealias ChannelContinueResponse = ChannelContinueWatching

/// Where to play a video from: a per-person URL that expires, and where the person stopped.
typealias ChannelStreamResponse = ChannelVideoStream

/// A library video an admin may publish on the channel.
typealias ChannelLibraryVideoResponse = ChannelLibraryVideo
