import Foundation
import HTTPTypes
import Hummingbird
import PodiumStore
import Synchronization

/// The blobs each streamable resource may serve (a video's master and variant playlists,
/// segments, poster and thumbnails), kept in memory so that a segment request, the bulk of
/// playback, reads no database. A change drops the resource's entry (``invalidate(_:)``); entries
/// also expire after `lifetime`, which bounds how long another node's change goes unseen here.
/// One instance per kind of resource: the channel's videos, the library's clips.
final class StreamBlobSets: Sendable {
    struct Entry: Sendable, Equatable {
        let files: Set<String>
        let loadedAt: Date
        /// Loaded for a name the set before it lacked: until `missInterval` has passed, another
        /// miss answers this set instead of loading again.
        var forMiss = false
    }

    private let entries = Mutex<[String: Entry]>([:])
    let lifetime: TimeInterval
    /// How often misses (`needing` a file the held set lacks) may load a resource's set again: the
    /// first miss after a set was loaded loads at once (the clip's ladder may have just been
    /// stored: a player that fetched its master within a second of that found its new rungs
    /// missing), later ones once this much time has passed since. A name no blob answers, asked
    /// again and again under a valid token, costs a store query at most this often per resource.
    let missInterval: TimeInterval
    let now: @Sendable () -> Date

    init(lifetime: TimeInterval = 60, missInterval: TimeInterval = 1, now: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.missInterval = missInterval
        self.now = now
    }

    /// The files of `id`, from memory or from `load`; nil when `load` says the resource may not
    /// be streamed (unknown, hidden, not ready). With `needing`, a held set without that file is
    /// loaded again (see ``missInterval``): a clip's files grow while its ladder is packaged
    /// (another node's change too).
    func files(of id: String, needing: String? = nil, load: () async throws -> Set<String>?) async throws -> Set<String>? {
        let moment = now()
        if let files = heldFiles(of: id, needing: needing, at: moment) { return files }
        // A held set still within its lifetime that lacks the name: this load is a miss's.
        let forMiss = entries.withLock { $0[id] }.map { moment.timeIntervalSince($0.loadedAt) < lifetime } ?? false
        guard let files = try await load() else {
            _ = entries.withLock { $0.removeValue(forKey: id) }
            return nil
        }
        entries.withLock { $0[id] = Entry(files: files, loadedAt: moment, forMiss: forMiss && needing != nil) }
        return files
    }

    /// The files of `id` held in memory, while ``files(of:needing:load:)`` would return them at
    /// `moment` without loading; nil when it would load (none held, too old, a miss to look up).
    func heldFiles(of id: String, needing: String? = nil, at moment: Date? = nil) -> Set<String>? {
        guard let entry = entries.withLock({ $0[id] }) else { return nil }
        let age = (moment ?? now()).timeIntervalSince(entry.loadedAt)
        guard age >= 0, age < lifetime else { return nil }
        let held = needing.map(entry.files.contains) ?? true
        guard held || (entry.forMiss && age < missInterval) else { return nil }
        return entry.files
    }

    /// The files of `id` for a request of `file`: a caption file (`captions-<language>.vtt` or
    /// `.m3u8`) is answered from the caption store, never from the set, so it never loads the set
    /// again; any other name the held set lacks may (see ``files(of:needing:load:)``).
    func files(of id: String, serving file: String, load: () async throws -> Set<String>?) async throws -> Set<String>? {
        try await files(of: id, needing: CaptionStreams.isCaptionFile(file) ? nil : file, load: load)
    }

    /// The blob path of `file` when ``respond(file:files:blobs:request:context:)`` would answer it
    /// from the set of `id` held now, with no store read: nil when a source with captions answers it
    /// from its caption store first (a caption file, a playlist), when the set is not held (or would
    /// be loaded again), and when `file` is not in it (the route's 404). What a stream's file
    /// answered on the connection's loop serves (``StreamSource/heldFile(_:claims:)``).
    func heldPath(of file: String, in id: String, blobs: any BlobStore, captions: Bool) -> String? {
        if captions, Self.mayBeCaptions(file) { return nil }
        guard let files = heldFiles(of: id, needing: CaptionStreams.isCaptionFile(file) ? nil : file),
            files.contains(file)
        else { return nil }
        return blobs.path(named: file)
    }

    /// Whether a source with caption tracks asks its caption store about `file` before its set:
    /// a caption file, or a playlist (a master lists the caption tracks).
    static func mayBeCaptions(_ file: String) -> Bool {
        file.hasPrefix("captions-") || file.hasSuffix(".m3u8")
    }

    /// Forgets one resource's files: it changed (archived, unpublished, deleted).
    func invalidate(_ id: String) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    /// Forgets every resource's files: a category changed, which may hide many.
    func invalidateAll() {
        entries.withLock { $0.removeAll() }
    }

    /// How many resources are held (for tests).
    var count: Int { entries.withLock { $0.count } }

    /// Answers `file` when it is one of `files`, with ranges, cached for long by the person's
    /// browser (a blob's bytes never change; the cache is private, so a shared cache never
    /// answers a URL past its token). Another resource's blob, or a name that is no blob, is
    /// refused like a missing file.
    static func respond(
        file: String, files: Set<String>, blobs: any BlobStore, request: Request, context: AppRequestContext
    ) async throws -> Response {
        // The file's one stat is RangeResponse's (a missing file is its 404).
        guard files.contains(file), let path = blobs.path(named: file) else { throw APIError.notFound("file") }
        return try await fileAnswer(file, path: path).response(to: request, context: context)
    }

    /// A stream's blob `file` at `path` (stat once: a missing file is 404), with its headers: its
    /// type, cached for long by the person's browser.
    static func fileAnswer(_ file: String, path: String) throws -> RangeResponse {
        var headers = HTTPFields()
        headers[.contentType] = WebController.mediaType(for: file)
        headers[.cacheControl] = "private, max-age=31536000, immutable"
        return try RangeResponse(path: path, entityTag: RangeResponse.entityTag(forBlob: file), headers: headers)
    }
}

/// The channel's playable videos' blob sets (see ``StreamBlobSets``), keyed by channel video id.
typealias ChannelVideoBlobSets = StreamBlobSets

extension StreamBlobSets {
    /// The files of `channelVideoId` while it is playable; nil when it is not (unknown,
    /// unpublished, archived, its category archived, or its library video not ready).
    func files(
        of channelVideoId: String, serving file: String, store: any ChannelVideoStore, videoStore: any VideoStore
    ) async throws -> Set<String>? {
        try await files(of: channelVideoId, serving: file) {
            guard let entry = try await store.channelVideo(id: channelVideoId),
                entry.record.publishedAt != nil, entry.record.archivedAt == nil,
                let category = try await store.channelVideoCategory(id: entry.record.categoryId), category.archivedAt == nil,
                let video = try await videoStore.video(id: entry.record.videoId), video.status == .ready
            else { return nil }
            return video.servedFileNames
        }
    }
}

/// Serves `/stream/<token>/<file>` for tokens of kind `video` (`video:<channel video id>`): only
/// the blobs of that video (see ``StreamBlobSets/respond(file:files:blobs:request:context:)``).
struct VideoStreamSource: StreamSource {
    let store: any ChannelVideoStore
    let videoStore: any VideoStore
    let blobs: any BlobStore
    let blobSets: ChannelVideoBlobSets
    /// The library clip's caption tracks, served beside its files (nil: none).
    var captions: CaptionStreams? = nil

    func respond(file: String, claims: StreamClaims, request: Request, context: AppRequestContext) async throws -> Response {
        guard
            let files = try await blobSets.files(
                of: String(claims.id), serving: file, store: store, videoStore: videoStore)
        else {
            throw APIError.notFound("video")
        }
        if let captions, StreamBlobSets.mayBeCaptions(file),
            let entry = try await store.channelVideo(id: String(claims.id)),
            let video = try await videoStore.video(id: entry.record.videoId),
            let answer = try await captions.respond(file: file, video: video, blobs: blobs)
        {
            return answer
        }
        return try await StreamBlobSets.respond(file: file, files: files, blobs: blobs, request: request, context: context)
    }

    func heldFile(_ file: String, claims: StreamClaims) -> String? {
        blobSets.heldPath(of: file, in: String(claims.id), blobs: blobs, captions: captions != nil)
    }
}
