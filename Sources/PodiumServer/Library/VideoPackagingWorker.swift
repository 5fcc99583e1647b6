import Foundation
import Logging
import PodiumMedia
import PodiumStore

/// The payload of a `video` job: nothing beyond the video itself (the job's subject), kept as
/// an object so later fields (a room to join, say) need no new kind.
struct VideoPackagingRequest: Codable, Sendable {
    static let kind = "video"
}

/// Packages an uploaded clip for HLS: probes it, runs ``VideoPackager``, stores every file as a
/// blob (named by its content, so nodes sharing one blob directory are safe) with the playlists
/// rewritten to refer to the blob names, and records the result. The `video` kind of job.
///
/// Nothing is served before the video is `ready`: packaging writes to a work directory of its
/// own, named after the video so a run after a crash first removes what the stopped run left.
struct VideoPackagingWorker: JobWorker {
    let kind = VideoPackagingRequest.kind
    let store: any VideoStore
    let blobs: any BlobStore
    let probe: VideoProbe
    let packager: VideoPackager
    let workRoot: URL
    let logger: Logger

    func run(_ job: JobRecord, progress: @escaping @Sendable (JobProgress) -> Void) async throws {
        let videoId = job.subjectId
        guard var video = try await saving(videoId, { try await store.video(id: videoId) }) else {
            logger.info("video \(videoId) was deleted before it was packaged")
            return
        }
        guard video.status == .queued || video.status == .processing else { return }
        guard let source = blobs.file(named: video.sourceHash) else {
            throw JobFailure(code: "corrupt", message: "The uploaded file is missing from storage. Upload it again.")
        }
        let work = workRoot.appendingPathComponent("video-\(videoId)")
        // What a run stopped half way left: its work directory, and the blobs it had begun to store.
        try? FileManager.default.removeItem(at: work)
        defer { try? FileManager.default.removeItem(at: work) }
        if !video.fileNames.isEmpty {
            await removeUnused(video.fileNames, of: videoId)
            video.files = "[]"
        }
        do {
            progress(JobProgress(stage: "probing", done: 0, total: 1))
            let probed = try await probe.probe(source)
            video.status = .processing
            video.duration = probed.duration
            video.width = probed.width
            video.height = probed.height
            video.hasVideo = probed.hasVideo
            video.hasAudio = probed.hasAudio
            try await saving(videoId) { try await store.updateVideo(try await current(video)) }
            // Its sound's loudness first (EBU R128), which the ladder's audio is normalised with:
            // part of packaging (the stage the API shows while it runs).
            progress(JobProgress(stage: "packaging", done: 0, total: max(1, Int(probed.duration * 1000))))
            let loudness = try await packager.measureLoudness(source, probed: probed)
            let packaged = try await packager.package(source, probed: probed, into: work, loudness: loudness) { step in
                progress(JobProgress(stage: step.stage, done: step.done, total: step.total))
            }
            let plan = try HLSBlobs.plan(packaged)
            let stored = plan.stored
            // Recorded before anything is stored, so whatever a stop leaves is known.
            video.files = String(decoding: try JSONEncoder().encode(stored.files), as: UTF8.self)
            try await saving(videoId) { try await store.updateVideo(try await current(video)) }
            try HLSBlobs.put(plan, in: blobs)
            video.renditions = String(decoding: try JSONEncoder().encode(stored.variants), as: UTF8.self)
            video.masterPlaylist = stored.masterPlaylist
            video.poster = stored.poster
            video.thumbnailSprite = stored.thumbnailSprite
            video.thumbnailTrack = stored.thumbnailTrack
            video.mp4 = stored.mp4
            video.loudness = packaged.loudness?.inputIntegrated
        } catch let error as IngestError {
            throw JobFailure(code: error.code, message: error.message)
        } catch let failure as JobFailure {
            throw failure
        } catch  where !Task.isCancelled {
            logger.error("video \(videoId) failed unexpectedly: \(error)")
            throw JobFailure(code: "internal", message: "The server could not process this video.")
        }
        video.status = .ready
        video.errorCode = nil
        video.errorMessage = nil
        guard (try await saving(videoId, { try await store.video(id: videoId) })) != nil else {
            logger.info("video \(videoId) was deleted while it was packaged")
            await removeUnused(video.fileNames, of: videoId)
            return
        }
        try await saving(videoId) { try await store.updateVideo(try await current(video)) }
        logger.info("video \(videoId) ready: \(video.width)x\(video.height), \(video.duration) s")
    }

    func failed(_ job: JobRecord, because failure: JobFailure) async {
        do {
            guard var video = try await store.video(id: job.subjectId), video.status != .ready else { return }
            await removeUnused(video.fileNames, of: video.id)
            video.files = "[]"
            video.status = .failed
            video.errorCode = failure.code
            video.errorMessage = failure.message
            try await store.updateVideo(video)
        } catch {
            logger.error("could not record the failure of video \(job.subjectId) (\(failure)): \(error)")
        }
    }

    /// Removes those of a video's blobs that no other video uses: what a stopped or failed run
    /// stored, or a run that finished after its video was deleted.
    private func removeUnused(_ names: [String], of videoId: String) async {
        guard !names.isEmpty else { return }
        do {
            for name in try await store.blobsUnused(names, exceptVideo: videoId) { try blobs.remove(named: name) }
        } catch {
            logger.error("video \(videoId): could not remove the files of an unfinished run: \(error)")
        }
    }

    /// `video` with the title and folder it has now: a rename or move during packaging is kept.
    private func current(_ video: VideoRecord) async throws -> VideoRecord {
        var merged = video
        if let stored = try await store.video(id: video.id) {
            merged.title = stored.title
            merged.folderId = stored.folderId
        }
        return merged
    }

    /// Runs a store call; a store failure is logged and becomes the video's reason for failing.
    private func saving<T>(_ videoId: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch  where !Task.isCancelled {
            logger.error("video \(videoId): the store failed: \(error)")
            throw JobFailure(
                code: "unavailable", message: "The server could not save this video: its database failed. Upload it again.")
        }
    }
}
