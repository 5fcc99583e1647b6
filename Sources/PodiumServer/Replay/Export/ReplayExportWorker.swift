import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumStore

/// What a `replay-export` job makes: the export record it fills in.
struct ReplayExportRequest: Codable, Sendable {
    static let kind = "replay-export"
    var exportId: String
}

/// Reads what a session's MP4 is made of from the stores: its stored events with their offsets
/// since it started, its length (to its end, or to now while live), its deck, and the
/// presenter's audio takes (each take's file of received chunks, at its start's offset).
struct ReplayExportSources: Sendable {
    let sessions: any SessionStore
    let recordings: any RecordingStore
    /// Where takes' files live: `<blob-dir>/recordings/<id>.webm`.
    let blobDirectory: URL
    let now: @Sendable () -> Date

    func source(of session: SessionRecord) async throws -> ReplayExportSource {
        let started = session.createdAt
        let end = session.endedAt ?? now()
        func offset(_ date: Date) -> Int { Int((date.timeIntervalSince(started) * 1000).rounded()) }
        let events = try await sessions.events(sessionId: session.id, afterSeq: 0).map {
            ReplayExportSource.TimedEvent(at: $0.at.map(offset) ?? 0, event: $0.event)
        }
        let directory = blobDirectory.appendingPathComponent(RecordingFiles.directoryName)
        let audio = try await recordings.recordings(sessionId: session.id).compactMap { take -> ReplayExportSource.AudioTake? in
            let file = directory.appendingPathComponent("\(take.id).webm")
            guard take.status != .failed, take.bytes > 0, FileManager.default.fileExists(atPath: file.path) else { return nil }
            return ReplayExportSource.AudioTake(file: file, offset: offset(take.startedAt))
        }
        return ReplayExportSource(
            deckId: session.deckId, room: session.isRoom, duration: max(0, offset(end)), events: events, audio: audio)
    }
}

/// Makes a replay's MP4 (``ReplayScenes``, then ``ReplayVideoRenderer``), stores it as a blob and
/// marks the export ready. Progress: `render` (pictures drawn of distinct pictures), then
/// `encode` (milliseconds of video written).
struct ReplayExportWorker: JobWorker {
    let kind = ReplayExportRequest.kind
    let store: any ReplayExportStore
    let sessions: any SessionStore
    let decks: any DeckStore
    let sources: ReplayExportSources
    let blobs: any BlobStore
    let runner: any ToolRunner
    let workRoot: URL
    let logger: Logger

    func run(_ job: JobRecord, progress: @escaping @Sendable (JobProgress) -> Void) async throws {
        let request = try JSONDecoder().decode(ReplayExportRequest.self, from: Data(job.payload.utf8))
        guard var export = try await store.replayExport(id: request.exportId),
            let session = try await sessions.session(id: export.sessionId)
        else { return }  // deleted meanwhile
        guard export.status == .queued || export.status == .running else { return }
        export.status = .running
        try await store.updateReplayExport(export)

        let source = try await sources.source(of: session)
        let scenes = ReplayScenes.scenes(of: source)
        guard ReplayScenes.showsSlides(scenes) else {
            throw JobFailure(code: "nothing_shown", message: "Nothing was shown in this session, so there is nothing to export.")
        }
        var decks: [String: ReplayVideoRenderer.Deck] = [:]
        for scene in scenes {
            guard case .slide(let deckId, _, _, _) = scene.picture, decks[deckId] == nil else { continue }
            guard let deck = try await self.decks.deck(id: deckId), let file = blobs.file(named: deck.sourceHash) else {
                throw JobFailure(code: "deck_missing", message: "A deck shown in this session is no longer in the library.")
            }
            let pages = try await self.decks.pages(deckId: deckId)
            decks[deckId] = ReplayVideoRenderer.Deck(
                source: file,
                pageSizes: Dictionary(
                    pages.map { ($0.number, (width: $0.width, height: $0.height)) }, uniquingKeysWith: { a, _ in a }))
        }
        let directory = workRoot.appendingPathComponent("\(Self.workPrefix)\(export.id)")
        Self.removeAbandonedWork(in: workRoot, writtenBefore: Date().addingTimeInterval(-Self.abandonedAfter), logger: logger)
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("replay.mp4")
        // A take ffmpeg cannot read (its first chunk lost, say) is left out, not the whole video.
        var audio: [ReplayExportSource.AudioTake] = []
        for take in source.audio {
            if await readable(take.file) {
                audio.append(take)
            } else {
                logger.notice("replay export \(export.id): the audio take \(take.file.lastPathComponent) is unreadable, left out")
            }
        }
        try await ReplayVideoRenderer(runner: runner).render(
            scenes, decks: decks, audio: audio, to: output, in: directory
        ) { stage in
            switch stage {
            case .render(let done, let total): progress(JobProgress(stage: "render", done: done, total: total))
            case .encode(let done, let total): progress(JobProgress(stage: "encode", done: done, total: total))
            }
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
        export.blob = try blobs.put(fileAt: output, fileExtension: "mp4")
        export.bytes = bytes
        export.durationMs = scenes.reduce(0) { $0 + $1.duration }
        export.status = .ready
        try await store.updateReplayExport(export)
    }

    static let workPrefix = "replay-export-"
    /// An export's work directory with nothing written for this long was left by a node that
    /// stopped mid-export (its cleanup never ran): no export takes nearly as long.
    static let abandonedAfter: TimeInterval = 24 * 3600

    /// Removes the exports' work directories under `root` (this node's temporary directory) in
    /// which nothing was written since `cutoff`; their names.
    @discardableResult
    static func removeAbandonedWork(in root: URL, writtenBefore cutoff: Date, logger: Logger) -> [String] {
        var removed: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] where name.hasPrefix(workPrefix) {
            let directory = root.appendingPathComponent(name, isDirectory: true)
            guard RecordingFiles.usage(of: [directory]).lastWritten < cutoff else { continue }
            do {
                try FileManager.default.removeItem(at: directory)
                removed.append(name)
            } catch {
                logger.notice("replay export: could not remove the abandoned work directory \(name): \(error)")
            }
        }
        if !removed.isEmpty { logger.info("replay export: removed \(removed.count) abandoned work directory(ies)") }
        return removed
    }

    /// Whether ffprobe finds a sound stream in the file.
    private func readable(_ file: URL) async -> Bool {
        let result = try? await runner.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_type", "-of", "csv=p=0", file.path],
            limits: ToolLimits(timeout: .seconds(60)))
        guard let result, result.succeeded else { return false }
        return String(decoding: result.stdout, as: UTF8.self).contains("audio")
    }

    func failed(_ job: JobRecord, because failure: JobFailure) async {
        guard let request = try? JSONDecoder().decode(ReplayExportRequest.self, from: Data(job.payload.utf8)),
            var export = try? await store.replayExport(id: request.exportId)
        else { return }
        export.status = .failed
        export.errorCode = failure.code
        export.errorMessage = failure.message
        do {
            try await store.updateReplayExport(export)
        } catch {
            logger.error("replay export \(export.id): could not record its failure: \(error)")
        }
    }
}
