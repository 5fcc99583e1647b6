import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumStore

/// The payload of a `radio-track` job: the track is the job's subject.
struct RadioTrackRequest: Codable, Sendable {
    static let kind = "radio-track"
}

/// Packages an uploaded radio track into AAC segments (MPEG-TS) stored as blobs named by their
/// content, records them, and tells the stations so the schedule takes the track in. Like
/// ``VideoPackagingWorker``: the blob names are recorded before the blobs are stored, so a run
/// stopped half way leaves nothing its successor does not know to remove.
struct RadioTrackWorker: JobWorker {
    let kind = RadioTrackRequest.kind
    let store: any ChannelRadioStore
    let blobs: any BlobStore
    let packager: AudioPackager
    let workRoot: URL
    let logger: Logger
    let now: @Sendable () -> Date
    /// Told when a station's tracks changed (one became ready).
    let tracksChanged: @Sendable (_ radioId: String) async -> Void

    func run(_ job: JobRecord, progress: @escaping @Sendable (JobProgress) -> Void) async throws {
        guard var track = try await saving(job.subjectId, { try await store.radioTrack(id: job.subjectId) }) else {
            logger.info("radio track \(job.subjectId) was deleted before it was packaged")
            return
        }
        guard track.status == .queued || track.status == .processing else { return }
        guard let source = blobs.file(named: track.sourceBlob) else {
            throw JobFailure(code: "corrupt", message: "The uploaded file is missing from storage. Upload it again.")
        }
        let work = workRoot.appendingPathComponent("radio-\(track.id)")
        try? FileManager.default.removeItem(at: work)
        defer { try? FileManager.default.removeItem(at: work) }
        let leftOver = track.segmentList.map(\.blob)
        if !leftOver.isEmpty { await removeUnused(leftOver, of: track.id) }
        var stored: [ChannelRadioTrackRecord.Segment] = []
        do {
            progress(JobProgress(stage: "probing", done: 0, total: 1))
            let duration = try await packager.check(source)
            track.status = .processing
            track.duration = duration
            track.segments = "[]"
            try await save(track)
            let segments = try await packager.package(source, duration: duration, into: work) { done, total in
                progress(JobProgress(stage: "packaging", done: done, total: total))
            }
            // Named first and recorded, then stored.
            let named = try segments.map { ($0, "\(try FileBlobStore.sha256(of: $0.file)).ts") }
            stored = named.map { ChannelRadioTrackRecord.Segment(blob: $0.1, duration: $0.0.duration) }
            track.segments = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
            track.duration = stored.reduce(0) { $0 + $1.duration }
            try await save(track)
            for (segment, name) in named {
                let put = try blobs.put(fileAt: segment.file, fileExtension: "ts")
                guard put == name else { throw HLSBlobs.NameMismatch(planned: name, stored: put) }
            }
        } catch let error as IngestError {
            throw JobFailure(code: error.code, message: error.message)
        } catch let failure as JobFailure {
            throw failure
        } catch  where !Task.isCancelled {
            logger.error("radio track \(track.id) failed unexpectedly: \(error)")
            throw JobFailure(code: "internal", message: "The server could not process this track.")
        }
        track.status = .ready
        track.errorCode = nil
        track.errorMessage = nil
        guard try await saving(track.id, { try await store.radioTrack(id: track.id) }) != nil else {
            await removeUnused(stored.map(\.blob), of: track.id)
            return
        }
        try await save(track)
        logger.info("radio track \(track.id) ready: \(stored.count) segments, \(track.duration) s")
        await tracksChanged(track.radioId)
    }

    func failed(_ job: JobRecord, because failure: JobFailure) async {
        do {
            guard var track = try await store.radioTrack(id: job.subjectId), track.status != .ready else { return }
            await removeUnused(track.segmentList.map(\.blob), of: track.id)
            track.segments = "[]"
            track.status = .failed
            track.errorCode = failure.code
            track.errorMessage = failure.message
            track.updatedAt = now()
            try await store.updateRadioTrack(track)
        } catch {
            logger.error("could not record the failure of radio track \(job.subjectId) (\(failure)): \(error)")
        }
    }

    /// Saves the packaging fields, keeping the title, artist, website and position an admin may
    /// have changed meanwhile.
    private func save(_ track: ChannelRadioTrackRecord) async throws {
        try await saving(track.id) {
            guard var current = try await store.radioTrack(id: track.id) else { return }
            current.status = track.status
            current.errorCode = track.errorCode
            current.errorMessage = track.errorMessage
            current.duration = track.duration
            current.segments = track.segments
            current.updatedAt = now()
            try await store.updateRadioTrack(current)
        }
    }

    private func removeUnused(_ names: [String], of trackId: String) async {
        guard !names.isEmpty else { return }
        do {
            for name in try await store.radioBlobsUnused(names, exceptTrack: trackId) { try blobs.remove(named: name) }
        } catch {
            logger.error("radio track \(trackId): could not remove the files of an unfinished run: \(error)")
        }
    }

    private func saving<T>(_ trackId: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch  where !Task.isCancelled {
            logger.error("radio track \(trackId): the store failed: \(error)")
            throw JobFailure(code: "unavailable", message: "The server could not save this track. Upload it again.")
        }
    }
}
