import Foundation
import Hummingbird
import Logging
import PodiumMedia
import PodiumStore
import PodiumWire

/// The video library: upload, list, show (with packaging progress), rename, move and delete.
/// The packaged files are blobs: the pictures served by `/blobs/<name>`, the media only through
/// the capability URLs each answer carries (`/stream/<token>/<name>`, see ``VideoResponse``).
struct VideoController {
    let store: any VideoStore
    /// The library's folders.
    let deckStore: any DeckStore
    let blobs: any BlobStore
    let jobs: JobQueue
    let probe: VideoProbe
    let uploadDirectory: URL
    let maxUploadBytes: Int
    /// Signs the clips' stream URLs given to their owner (``ClipStreamSource``).
    let tokens: StreamTokens
    /// The clips' file sets the stream route holds, dropped when a clip is deleted.
    let clipFiles: StreamBlobSets
    let logger: Logger
    let now: @Sendable () -> Date
    /// Told when a clip's trim or loop changed, so a stage showing it takes them on now (``StageClipUpdates``).
    var clipChanged: @Sendable (VideoRecord) async -> Void = { _ in }

    static let placeholderTitle = "Untitled video"

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("videos", use: upload)
        group.get("videos", use: list)
        group.get("videos/:id", use: show)
        group.patch("videos/:id", use: update)
        group.put("videos/:id/clip", use: setClip)
        group.delete("videos/:id", use: delete)
    }

    /// Takes an uploaded clip, checks it with `ffprobe` at once (a bad file is refused with its
    /// reason and leaves nothing behind), stores it and queues its packaging (a `video` job).
    @Sendable func upload(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<
        UploadedResponse<VideoResponse>
    > {
        let user = try context.requireUser()
        let folderId = request.uri.queryParameters.get("folderId")
        if let folderId {
            guard let folder = try await deckStore.folder(id: folderId), folder.ownerId == user.id else {
                throw APIError.notFound("folder")
            }
        }
        let (video, jobId) = try await accept(request, ownerId: user.id, folderId: folderId, roomId: nil)
        return EditedResponse(
            status: .created,
            response: UploadedResponse(item: response(video, viewerKey: Self.viewerKey(user)), jobId: jobId))
    }

    /// The viewer key of the stream URLs given to a signed-in person.
    static func viewerKey(_ user: UserRecord) -> String { "user:\(user.id)" }

    /// A video as the API shows it to the person of `viewerKey`, with stream URLs made for them.
    func response(_ video: VideoRecord, viewerKey: String, queue: PackagingQueue? = nil) -> VideoResponse {
        let stream =
            video.status == .ready ? ClipStreamSource.URLs(videoId: video.id, viewerKey: viewerKey, tokens: tokens) : nil
        var answer = VideoResponse(video, progress: progress(of: video), stream: stream)
        if answer.progress != nil {
            if video.status == .queued, let queue, let position = queue.position(of: video.id) {
                answer.progress?.queuePosition = position
                answer.progress?.secondsLeft = queue.secondsLeft(of: video.id)
            } else {
                answer.progress?.secondsLeft = jobs.secondsLeft(subjectId: video.id).map { Int($0.rounded(.up)) }
            }
        }
        return answer
    }

    /// The clips waiting to be packaged, for their place in line and time left (read once per answer).
    func packagingQueue(for videos: [VideoRecord]) async -> PackagingQueue? {
        guard videos.contains(where: { $0.status == .queued }) else { return nil }
        do {
            let unfinished = try await jobs.unfinished(kind: VideoPackagingRequest.kind)
            let waiting = unfinished.filter { $0.state == .queued }
            var durations: [String: Double] = [:]
            for job in waiting {
                if let known = videos.first(where: { $0.id == job.subjectId }) {
                    durations[job.subjectId] = known.duration
                } else {
                    durations[job.subjectId] = try await store.video(id: job.subjectId)?.duration ?? 0
                }
            }
            // Seconds of packaging per second of clip: the last clip packaged here, or 1 (a
            // 10-minute 1080p clip took about 10 minutes on the 2-core reference machine).
            var pace = 1.0
            if let last = jobs.lastRun(kind: VideoPackagingRequest.kind),
                let video = try await store.video(id: last.subjectId), video.duration >= 1
            {
                pace = last.seconds / video.duration
            }
            // The clip packaged now (this node's), whose time left comes first.
            var ahead = 0.0
            for job in unfinished where job.state == .running {
                if let left = jobs.secondsLeft(subjectId: job.subjectId) {
                    ahead += left
                } else if let video = try await store.video(id: job.subjectId) {
                    ahead += video.duration * pace / 2
                }
            }
            return PackagingQueue(
                order: waiting.map(\.subjectId), durations: durations, busyFor: ahead, pace: pace)
        } catch {
            logger.warning("could not read the packaging queue: \(error)")
            return nil
        }
    }

    /// Receives an uploaded file, refuses what is not a clip (with a clear reason, leaving nothing
    /// behind), stores it and queues its packaging: the library's upload and a room's.
    func accept(_ request: Request, ownerId: String, folderId: String?, roomId: String?) async throws -> (VideoRecord, String) {
        let received = try await receive(request)
        defer { try? FileManager.default.removeItem(at: received.file) }
        return try await take(
            received, title: request.uri.queryParameters.get("title"), ownerId: ownerId, folderId: folderId, roomId: roomId)
    }

    /// A clip upload's body, on disk (the caller removes the file), refused past the limit.
    func receive(_ request: Request) async throws -> Upload.Received {
        try await Upload.receive(request, into: uploadDirectory, limit: maxUploadBytes)
    }

    /// Takes a received file (a one-shot upload's body, or a finished resumable upload) as a clip:
    /// probes it, stores it and queues its packaging, with the one-shot route's checks and codes.
    /// The caller removes the file.
    func take(_ received: Upload.Received, title: String?, ownerId: String, folderId: String?, roomId: String?)
        async throws -> (VideoRecord, String)
    {
        let probed: ProbedMedia
        do {
            probed = try await probe.probe(received.file)
        } catch let error as IngestError {
            throw Self.refusal(error)
        }
        let sourceHash = try blobs.put(fileAt: received.file, fileExtension: "video")
        let given = title ?? received.filename.map(Self.title(fromFilename:))
        let title = given.map(DeckController.cleanTitle).flatMap { $0.isEmpty ? nil : $0 } ?? Self.placeholderTitle
        let video = VideoRecord(
            id: IDs.make("v"), ownerId: ownerId, folderId: folderId, roomId: roomId, title: title, status: .queued,
            sourceHash: sourceHash, sourceBytes: received.bytes, duration: probed.duration, width: probed.width,
            height: probed.height, hasVideo: probed.hasVideo, hasAudio: probed.hasAudio, createdAt: now())
        do {
            try await store.insertVideo(video)
            let job = try await jobs.enqueue(
                kind: VideoPackagingRequest.kind, subjectId: video.id, ownerId: ownerId, payload: VideoPackagingRequest())
            return (video, job.id)
        } catch {
            // Without its job the video would stay queued for ever: the upload fails whole.
            await remove(video.id)
            throw error
        }
    }

    /// The HTTP answer to a file the probe refused.
    static func refusal(_ error: IngestError) -> APIError {
        switch error.code {
        case "empty": APIError(.badRequest, code: error.code, message: error.message)
        case "not_video": APIError(.unsupportedMediaType, code: error.code, message: error.message)
        case "tool_missing": APIError(.serviceUnavailable, code: error.code, message: error.message)
        default: APIError(.unprocessableContent, code: error.code, message: error.message)
        }
    }

    /// A room's clips as the API shows them to the person of `viewerKey`.
    func roomVideos(roomId: String, viewerKey: String) async throws -> [VideoResponse] {
        let videos = try await store.videos(roomId: roomId)
        let queue = await packagingQueue(for: videos)
        return videos.map { response($0, viewerKey: viewerKey, queue: queue) }
    }

    private func progress(of video: VideoRecord) -> IngestProgress? {
        jobs.progress(subjectId: video.id).map { IngestProgress(stage: $0.stage, done: $0.done, total: $0.total) }
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [VideoResponse] {
        let user = try context.requireUser()
        let videos = try await store.videos(ownerId: user.id, folderId: request.uri.queryParameters.get("folderId"))
        let queue = await packagingQueue(for: videos)
        return videos.map { response($0, viewerKey: Self.viewerKey(user), queue: queue) }
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> VideoResponse {
        let video = try await ownedVideo(context)
        return response(video, viewerKey: Self.viewerKey(try context.requireUser()), queue: await packagingQueue(for: [video]))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> VideoResponse {
        var video = try await ownedVideo(context)
        let patch = try await request.decode(as: DeckController.DeckPatch.self, context: context)
        if let title = patch.title {
            let cleaned = DeckController.cleanTitle(title)
            guard !cleaned.isEmpty else { throw APIError.badRequest("A video needs a title.") }
            video.title = cleaned
        }
        if let folderId = patch.folderId {
            if let folderId {
                guard let folder = try await deckStore.folder(id: folderId), folder.ownerId == video.ownerId else {
                    throw APIError.notFound("folder")
                }
            }
            video.folderId = folderId
        }
        // Only the title and folder: the packaging job may be saving the rest meanwhile.
        if let stored = try await store.video(id: video.id) {
            var changed = stored
            changed.title = video.title
            changed.folderId = video.folderId
            try await store.updateVideo(changed)
            video = changed
        }
        return response(video, viewerKey: Self.viewerKey(try context.requireUser()))
    }

    /// Deletes the video and the blobs only it used (its upload, segments, playlists, pictures).
    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let video = try await ownedVideo(context)
        await remove(video.id)
        return .noContent
    }

    private func remove(_ videoId: String) async {
        clipFiles.invalidate(videoId)
        do {
            for name in try await store.deleteVideo(id: videoId) { try blobs.remove(named: name) }
        } catch {
            logger.error("video \(videoId): could not remove it or its files: \(error)")
        }
    }

    /// The video named in the path, if the signed-in user owns it (admins see every one).
    func ownedVideo(_ context: AppRequestContext) async throws -> VideoRecord {
        let user = try context.requireUser()
        guard let video = try await store.video(id: try context.parameters.require("id")),
            video.ownerId == user.id || user.role == .admin
        else { throw APIError.notFound("video") }
        return video
    }

    static func title(fromFilename name: String) -> String {
        let base = (name as NSString).lastPathComponent
        let stem = (base as NSString).deletingPathExtension
        return stem.isEmpty ? base : stem
    }
}

/// The clips waiting to be packaged, the next first, and what is known of the work before them:
/// a queued clip's place in line (1: next) and about how long until it is packaged whole (the
/// time left of the clip packaged now, then each waiting clip's length times this server's pace).
struct PackagingQueue: Sendable {
    var order: [String]
    var durations: [String: Double]
    /// Seconds until the clips packaged now are done.
    var busyFor: Double
    /// Seconds of packaging per second of clip.
    var pace: Double

    func position(of videoId: String) -> Int? { order.firstIndex(of: videoId).map { $0 + 1 } }

    func secondsLeft(of videoId: String) -> Int? {
        guard let index = order.firstIndex(of: videoId) else { return nil }
        let clips = order[...index].reduce(0.0) { $0 + (durations[$1] ?? 0) }
        guard durations[videoId] ?? 0 > 0 else { return nil }
        return Int((busyFor + clips * pace).rounded(.up))
    }
}
