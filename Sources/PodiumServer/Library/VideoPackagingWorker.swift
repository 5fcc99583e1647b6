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
/// In two steps when the clip has more than one rung (issue #41, "playable in a minute"): first
/// a playable rendition (the upload's own H.264 picture copied when it allows, else the lowest
/// rung encoded for speed, see ``VideoPackager/packageFirstRendition(_:probed:into:loudness:progress:)``;
/// with the sound, and the poster), stored, and the clip
/// made `ready` with a master playlist that lists it alone (``VideoRecord/ladderComplete`` false:
/// no MP4 yet); then the whole ladder, stored, and the record switched to a new master that lists
/// every rung, with the MP4 and the thumbnails. A first rendition encoded as the ladder's lowest
/// rung is that rung: the ladder lists it and does not encode it again. What else the first step
/// stored (the upload's picture copied, its sound, its master) leaves the master playlist then
/// and becomes the clip's ``VideoRecord/retiringFiles``: still served (a player that loaded them
/// plays on; a request for the earlier master is answered with the current one, see
/// ``CaptionStreams``) until every stream token issued before has expired (``retireAfter``),
/// then removed by ``VideoRetirementService``.
///
/// Nothing is served before the video is `ready`: packaging writes to a work directory of its
/// own, named after the video so a run after a crash first removes what the stopped run left.
/// A run stopped after the first step goes on with the ladder: the clip stays playable, and what
/// the stopped run stored beyond what its master plays is removed first.
struct VideoPackagingWorker: JobWorker {
    let kind = VideoPackagingRequest.kind
    let store: any VideoStore
    let blobs: any BlobStore
    let probe: VideoProbe
    let packager: VideoPackager
    let workRoot: URL
    let logger: Logger
    /// Called once the first rendition is stored and the clip is playable, before the ladder:
    /// tests hold packaging here (see ``ServerConfiguration/videoLadderHold``).
    var afterFirstRendition: @Sendable (_ videoId: String) async throws -> Void = { _ in }
    /// How long files that leave the master playlist stay served: the longest a stream token
    /// lives (a stage's, `--stage-video-link-hours`, or any other), so no player that was given
    /// them is cut off.
    var retireAfter: TimeInterval = 12 * 3600
    var now: @Sendable () -> Date = { Date() }

    func run(_ job: JobRecord, progress: @escaping @Sendable (JobProgress) -> Void) async throws {
        let videoId = job.subjectId
        guard var video = try await saving(videoId, { try await store.video(id: videoId) }) else {
            logger.info("video \(videoId) was deleted before it was packaged")
            return
        }
        // Playable from its first rendition, and a run stopped before its ladder was stored.
        let resuming = video.status == .ready && !video.ladderComplete
        guard video.status == .queued || video.status == .processing || resuming else { return }
        guard let source = blobs.file(named: video.sourceHash) else {
            throw JobFailure(code: "corrupt", message: "The uploaded file is missing from storage. Upload it again.")
        }
        let work = workRoot.appendingPathComponent("video-\(videoId)")
        // What a run stopped half way left: its work directory, and the blobs it had begun to store.
        try? FileManager.default.removeItem(at: work)
        defer { try? FileManager.default.removeItem(at: work) }
        /// The files the clip plays now, which stay: after a first rendition, what its master and poster name.
        var kept: [String] = []
        if resuming {
            kept = HLSBlobs.reachable(from: video.masterPlaylist, poster: video.poster, in: blobs)
            let leftover = video.fileNames.filter { !kept.contains($0) }
            if !leftover.isEmpty {
                await removeUnused(leftover, of: videoId)
                video.files = Self.json(kept)
                try await saving(videoId) { try await store.updateVideo(try await current(video)) }
            }
        } else if !video.fileNames.isEmpty {
            await removeUnused(video.fileNames, of: videoId)
            video.files = "[]"
        }
        do {
            progress(JobProgress(stage: "probing", done: 0, total: 1))
            let probed = try await probe.probe(source)
            if !resuming {
                video.status = .processing
                video.duration = probed.duration
                video.width = probed.width
                video.height = probed.height
                video.hasVideo = probed.hasVideo
                video.hasAudio = probed.hasAudio
                try await saving(videoId) { try await store.updateVideo(try await current(video)) }
            }
            // Its sound's loudness first (EBU R128), which the ladder's audio is normalised with:
            // part of packaging (the stage the API shows while it runs).
            progress(JobProgress(stage: "packaging", done: 0, total: max(1, Int(probed.duration * 1000))))
            let loudness = try await packager.measureLoudness(source, probed: probed)
            if !resuming, VideoPackager.packagesFirstRendition(probed) {
                let first = try await packager.packageFirstRendition(
                    source, probed: probed, into: work.appendingPathComponent("first"), loudness: loudness
                ) { step in
                    progress(JobProgress(stage: step.stage, done: step.done, total: step.total))
                }
                let plan = try HLSBlobs.plan(first)
                video.files = Self.json(plan.stored.files)
                try await saving(videoId) { try await store.updateVideo(try await current(video)) }
                try HLSBlobs.put(plan, in: blobs)
                video.renditions = String(decoding: try JSONEncoder().encode(plan.stored.variants), as: UTF8.self)
                video.masterPlaylist = plan.stored.masterPlaylist
                video.poster = plan.stored.poster
                video.loudness = first.loudness?.inputIntegrated
                video.status = .ready
                video.errorCode = nil
                video.errorMessage = nil
                guard (try await saving(videoId, { try await store.video(id: videoId) })) != nil else {
                    logger.info("video \(videoId) was deleted while it was packaged")
                    await removeUnused(video.fileNames, of: videoId)
                    return
                }
                // Its ladder's stage from the moment it is playable: what its card shows next.
                progress(JobProgress(stage: "renditions", done: 0, total: max(1, Int(probed.duration * 1000))))
                try await saving(videoId) { try await store.updateVideo(try await current(video)) }
                logger.info("video \(videoId) playable from its first rendition; packaging its ladder")
                kept = plan.stored.files
                try? FileManager.default.removeItem(at: work.appendingPathComponent("first"))
                try await afterFirstRendition(videoId)
            }
            let playable = video.status == .ready
            let reused = reusableRung(of: video, probed: probed, work: work)
            let packaged = try await packager.package(
                source, probed: probed, into: work.appendingPathComponent("ladder"), loudness: loudness,
                reusing: reused?.rung
            ) { step in
                // While the clip plays from its first rendition, its ladder is `renditions`.
                let stage = playable && step.stage == "packaging" ? "renditions" : step.stage
                progress(JobProgress(stage: stage, done: step.done, total: step.total))
            }
            let plan = try HLSBlobs.plan(packaged)
            let stored = plan.stored
            let ladderFiles = stored.files + (reused?.files ?? [])
            // Recorded before anything is stored, so whatever a stop leaves is known.
            video.files = Self.json(kept + ladderFiles)
            try await saving(videoId) { try await store.updateVideo(try await current(video)) }
            try HLSBlobs.put(plan, in: blobs)
            // What the first step stored that the ladder does not play leaves with the first master.
            let leaving = Set(kept).subtracting(ladderFiles)
            video.files = Self.json(ladderFiles)
            if !leaving.isEmpty {
                video.retiringFiles = Self.json(Array(leaving.union(video.retiringFileNames)))
                video.retireAt = now().addingTimeInterval(retireAfter)
                logger.info("video \(videoId): \(leaving.count) files of its first rendition leave its master playlist")
            }
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

    /// The clip's first rendition when it is the ladder's lowest rung (see
    /// ``VideoPackager/isLadderRung(_:of:)``): to be listed by the ladder as it is, with its files
    /// (playlist, init, segments) and a copy of its playlist ffmpeg can read in `work`. Nil before
    /// a first rendition, for a copy of the upload's picture, or when its files cannot be read
    /// (then the ladder encodes the rung anew and the first one's files retire).
    private func reusableRung(of video: VideoRecord, probed: ProbedMedia, work: URL)
        -> (rung: VideoPackager.PackagedRung, files: [String])?
    {
        guard video.status == .ready,
            let variants = try? JSONDecoder().decode([PackagedVideo.Variant].self, from: Data(video.renditions.utf8)),
            let variant = variants.first(where: { $0.height != nil }), VideoPackager.isLadderRung(variant, of: probed)
        else { return nil }
        let copy = work.appendingPathComponent("reused-rung/index.m3u8")
        do {
            try HLSBlobs.writeReadableCopy(of: variant.playlist, in: blobs, to: copy)
        } catch {
            logger.notice("video \(video.id): its first rung cannot be reused, the ladder encodes it: \(error)")
            return nil
        }
        let files = HLSBlobs.reachable(from: variant.playlist, poster: nil, in: blobs)
        return (VideoPackager.PackagedRung(variant: variant, readablePlaylist: copy), files)
    }

    /// A sorted JSON array of blob names, without repeats (the record's `files`).
    private static func json(_ names: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(Array(Set(names)).sorted())) ?? Data("[]".utf8), as: UTF8.self)
    }

    func failed(_ job: JobRecord, because failure: JobFailure) async {
        do {
            // A clip playable from its first rendition stays so: its ladder is missing, and it
            // keeps what it plays (a run after this one, were there any, would add the rest).
            guard var video = try await store.video(id: job.subjectId) else { return }
            if video.status == .ready {
                guard !video.ladderComplete else { return }
                logger.error("video \(job.subjectId) stays on its first rendition: its ladder failed (\(failure))")
                let kept = HLSBlobs.reachable(from: video.masterPlaylist, poster: video.poster, in: blobs)
                await removeUnused(video.fileNames.filter { !kept.contains($0) }, of: video.id)
                video.files = Self.json(kept)
                try await store.updateVideo(video)
                return
            }
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
