import Foundation
import Logging
import PodiumMedia
import PodiumStore

/// The payload of a `recording` job: nothing beyond the take itself (the job's subject).
struct RecordingPackagingRequest: Codable, Sendable {
    static let kind = "recording"
}

/// Packages a stopped audio take as HLS audio: ffmpeg reads the chunks as they were appended
/// (`<blob-dir>/recordings/<id>.webm`, cut to the length the store counted, so a chunk half
/// written when a node died is left out) and writes AAC (mono, ~64 kb/s) in fMP4 segments of
/// ~6 s with a VOD playlist into a work directory, which then becomes `<blob-dir>/recordings/<id>/`;
/// ffprobe reads the playlist's duration. A take cut short (a closed laptop, a lost last chunk)
/// packages up to where its audio ends; one ffmpeg cannot read fails as `bad_audio`.
struct RecordingPackagingWorker: JobWorker {
    let kind = RecordingPackagingRequest.kind
    let store: any RecordingStore
    /// `<blob-dir>/recordings`.
    let directory: URL
    let settings: RecordingSettings
    let runner: any ToolRunner
    let logger: Logger

    static let playlistName = "index.m3u8"

    func run(_ job: JobRecord, progress: @escaping @Sendable (JobProgress) -> Void) async throws {
        let id = job.subjectId
        guard let take = try await store.recording(id: id) else {
            logger.info("recording \(id) was deleted before it was packaged")
            return
        }
        guard take.status == .packaging else { return }
        let source = directory.appendingPathComponent("\(id).webm")
        guard take.bytes > 0, FileManager.default.fileExists(atPath: source.path) else {
            throw JobFailure(code: "empty", message: "The recording has no audio: no chunk arrived.")
        }
        // What was counted, nothing of an attempt cut off half way.
        if let size = (try? FileManager.default.attributesOfItem(atPath: source.path)[.size] as? NSNumber)?.intValue,
            size > take.bytes
        {
            let handle = try FileHandle(forWritingTo: source)
            try handle.truncate(atOffset: UInt64(take.bytes))
            try handle.close()
        }
        let work = directory.appendingPathComponent(".\(id).work", isDirectory: true)
        try? FileManager.default.removeItem(at: work)
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        progress(JobProgress(stage: "packaging", done: 0, total: 1))

        let limits = ToolLimits(timeout: settings.packagingTimeout, maxCapturedOutput: 1 << 20)
        let encoded: ToolResult
        do {
            encoded = try await runner.run(
                "ffmpeg",
                [
                    "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", source.path, "-map", "0:a:0", "-vn",
                    "-c:a", "aac", "-b:a", String(settings.bitRate), "-ac", "1", "-f", "hls",
                    "-hls_time", String(settings.segmentSeconds), "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
                    "-hls_fmp4_init_filename", "init.mp4",
                    "-hls_segment_filename", work.appendingPathComponent("seg-%05d.m4s").path,
                    work.appendingPathComponent(Self.playlistName).path,
                ], limits: limits)
        } catch let error as IngestError {
            throw JobFailure(code: error.code, message: error.message)
        }
        let playlist = work.appendingPathComponent(Self.playlistName)
        guard encoded.succeeded, FileManager.default.fileExists(atPath: playlist.path) else {
            logger.notice("recording \(id): ffmpeg could not read it", metadata: ["stderr": "\(encoded.stderr.prefix(500))"])
            throw encoded.timedOut
                ? JobFailure(code: "timeout", message: "Packaging the recording took too long.")
                : Self.unreadable
        }
        let duration = try await probeDuration(playlist, limits: limits)
        guard duration > 0 else { throw Self.unreadable }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: work.path)) ?? []
        let hlsBytes = files.reduce(0) { total, name in
            total
                + ((try? FileManager.default.attributesOfItem(atPath: work.appendingPathComponent(name).path)[.size]
                    as? NSNumber)?.intValue ?? 0)
        }
        let target = directory.appendingPathComponent(id, isDirectory: true)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.moveItem(at: work, to: target)
        try await store.finishRecording(
            id: id, status: .ready, durationMs: Int((duration * 1000).rounded()), hlsBytes: hlsBytes, errorCode: nil,
            errorMessage: nil)
        progress(JobProgress(stage: "packaging", done: 1, total: 1))
        logger.info("recording \(id) ready: \(take.chunks) chunk(s), \(take.bytes) bytes, \(duration) s, HLS \(hlsBytes) bytes")
    }

    static let unreadable = JobFailure(
        code: "bad_audio",
        message: "The recording's audio could not be read: its chunks are not Opus audio in WebM or Ogg, or are damaged.")

    /// The playlist's duration in seconds, by ffprobe.
    private func probeDuration(_ playlist: URL, limits: ToolLimits) async throws -> Double {
        let probed = try await runner.run(
            "ffprobe",
            ["-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", playlist.path],
            limits: limits)
        guard probed.succeeded else { throw Self.unreadable }
        return Double(String(decoding: probed.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    func failed(_ job: JobRecord, because failure: JobFailure) async {
        do {
            try await store.finishRecording(
                id: job.subjectId, status: .failed, durationMs: nil, hlsBytes: nil, errorCode: failure.code,
                errorMessage: failure.message)
        } catch {
            logger.error("could not record the failure of recording \(job.subjectId) (\(failure)): \(error)")
        }
    }
}
