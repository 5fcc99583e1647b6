import Foundation
import HTTPTypes
import Hummingbird
import PodiumStore
import Synchronization

/// The blobs each playable channel video may serve (its master and variant playlists, segments,
/// poster and thumbnails), kept in memory so that a segment request, the bulk of playback, reads
/// no database. An admin's change drops the video's entry (``invalidate(_:)``); entries also
/// expire after `lifetime`, which bounds how long another node's change goes unseen here.
final class ChannelVideoBlobSets: Sendable {
    struct Entry: Sendable, Equatable {
        let files: Set<String>
        let loadedAt: Date
    }

    private let entries = Mutex<[String: Entry]>([:])
    let lifetime: TimeInterval
    let now: @Sendable () -> Date

    init(lifetime: TimeInterval = 60, now: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.now = now
    }

    /// The files of `channelVideoId` while it is playable; nil when it is not (unknown,
    /// unpublished, archived, its category archived, or its library video not ready).
    func files(of channelVideoId: String, store: any PodiumStore) async throws -> Set<String>? {
        let moment = now()
        if let entry = entries.withLock({ $0[channelVideoId] }), moment.timeIntervalSince(entry.loadedAt) < lifetime {
            return entry.files
        }
        guard let entry = try await store.channelVideo(id: channelVideoId),
            entry.record.publishedAt != nil, entry.record.archivedAt == nil,
            let category = try await store.channelVideoCategory(id: entry.record.categoryId), category.archivedAt == nil,
            let video = try await store.video(id: entry.record.videoId), video.status == .ready
        else {
            _ = entries.withLock { $0.removeValue(forKey: channelVideoId) }
            return nil
        }
        let files = Set(video.fileNames)
        entries.withLock { $0[channelVideoId] = Entry(files: files, loadedAt: moment) }
        return files
    }

    /// Forgets one video's files: it changed (archived, unpublished, deleted).
    func invalidate(_ channelVideoId: String) {
        _ = entries.withLock { $0.removeValue(forKey: channelVideoId) }
    }

    /// Forgets every video's files: a category changed, which may hide many.
    func invalidateAll() {
        entries.withLock { $0.removeAll() }
    }

    /// How many videos are held (for tests).
    var count: Int { entries.withLock { $0.count } }
}

/// Serves `/stream/<token>/<file>` for tokens of kind `video` (`video:<channel video id>`): only
/// the blobs of that video, with ranges, cached for long by the person's browser (a blob's bytes
/// never change; the cache is private, so a shared cache never answers a URL past its token).
struct VideoStreamSource: StreamSource {
    let store: any PodiumStore
    let blobs: any BlobStore
    let blobSets: ChannelVideoBlobSets
    let fileIO = FileIO()

    func respond(file: String, claims: StreamClaims, request: Request, context: AppRequestContext) async throws -> Response {
        guard let files = try await blobSets.files(of: String(claims.id), store: store) else {
            throw APIError.notFound("video")
        }
        // Another video's blob, or a name that is no blob, is refused like a missing file.
        guard files.contains(file), let url = blobs.file(named: file) else { throw APIError.notFound("file") }
        var headers = HTTPFields()
        headers[.contentType] = WebController.mediaType(for: file)
        headers[.cacheControl] = "private, max-age=31536000, immutable"
        return try await RangeResponse(file: url, entityTag: RangeResponse.entityTag(forBlob: file), headers: headers)
            .response(to: request, context: context, fileIO: fileIO)
    }
}
