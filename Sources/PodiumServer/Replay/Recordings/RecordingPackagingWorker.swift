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
/// ffprobe reads the playlist's duration and its audio's codec, written into a master playlist
/// (`master.m3u8`, one audio-only variant with its `CODECS`, e.g. `mp4a.40.2`) so that an HLS
/// player knows the take is audio alone. A take cut short (a closed laptop, a lost last chunk)
/// packages up to where its audio ends; one ffmpeg cannot read fails as `bad_audio`.
struct RecordingPackagingWorker: JobWorker {
    let kind = RecordingPackagingRequest.kind
    let store: any RecordingStore
    /// `<blob-dir>/recordings`.
    let directory: URL
    let settings: RecordingSettings
    let runner: any ToolRunner
    let logger: Logger

    /// The media playlist ffmpeg writes (segments).
    static let mediaPlaylistName = "index.m3u8"
    /// The master playlist clients open: the media playlist as an audio-only variant with its codec.
    static let playlistName = "master.m3u8"

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
                    work.appendingPathComponent(Self.mediaPlaylistName).path,
                ], limits: limits)
        } catch let error as IngestError {
            throw JobFailure(code: error.code, message: error.message)
        }
        let playlist = work.appendingPathComponent(Self.mediaPlaylistName)
        guard encoded.succeeded, FileManager.default.fileExists(atPath: playlist.path) else {
            logger.notice("recording \(id): ffmpeg could not read it", metadata: ["stderr": "\(encoded.stderr.prefix(500))"])
            throw encoded.timedOut
                ? JobFailure(code: "timeout", message: "Packaging the recording took too long.")
                : Self.unreadable
        }
        let probed = try await probe(playlist, limits: limits)
        let duration = probed.duration
        guard duration > 0 else { throw Self.unreadable }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: work.path)) ?? []
        let hlsBytes = files.reduce(0) { total, name in
            total
                + ((try? FileManager.default.attributesOfItem(atPath: work.appendingPathComponent(name).path)[.size]
                    as? NSNumber)?.intValue ?? 0)
        }
        // Written last, beside the media playlist: its BANDWIDTH is the package's average rate.
        let bandwidth = max(1, Int((Double(hlsBytes * 8) / duration).rounded(.up)))
        try Self.masterPlaylist(codecs: probed.codecs, bandwidth: bandwidth)
            .write(to: work.appendingPathComponent(Self.playlistName), atomically: true, encoding: .utf8)
        let target = directory.appendingPathComponent(id, isDirectory: true)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.moveItem(at: work, to: target)
        try await store.finishRecording(
            id: id, status: .ready, durationMs: Int((duration * 1000).rounded()), hlsBytes: hlsBytes, errorCode: nil,
            errorMessage: nil)
        progress(JobProgress(stage: "packaging", done: 1, total: 1))
        // Deleted with its session while it was packaged: nothing is left behind for it.
        guard try await store.recording(id: id) != nil else {
            try? FileManager.default.removeItem(at: target)
            try? FileManager.default.removeItem(at: source)
            logger.info("recording \(id) was deleted while it was packaged; its files are removed")
            return
        }
        logger.info("recording \(id) ready: \(take.chunks) chunk(s), \(take.bytes) bytes, \(duration) s, HLS \(hlsBytes) bytes")
    }

    static let unreadable = JobFailure(
        code: "bad_audio",
        message: "The recording's audio could not be read: its chunks are not Opus audio in WebM or Ogg, or are damaged.")

    /// A master playlist of one audio-only variant: `bandwidth` bits a second, `codecs` (RFC 6381).
    static func masterPlaylist(codecs: String, bandwidth: Int) -> String {
        """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),CODECS="\(codecs)"
        \(mediaPlaylistName)

        """
    }

    /// The codec string (RFC 6381) of an audio stream ffprobe describes: AAC by its profile
    /// (LC `mp4a.40.2`, HE `mp4a.40.5`, HE v2 `mp4a.40.29`), nil for anything else.
    static func codecString(codecName: String?, profile: String?) -> String? {
        guard codecName == "aac" else { return nil }
        switch profile?.uppercased() {
        case "HE-AAC": return "mp4a.40.5"
        case "HE-AACV2": return "mp4a.40.29"
        default: return "mp4a.40.2"
        }
    }

    /// The playlist's duration in seconds and its audio's codec string, by ffprobe.
    private func probe(_ playlist: URL, limits: ToolLimits) async throws -> (duration: Double, codecs: String) {
        let probed = try await runner.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "a:0", "-show_entries", "format=duration:stream=codec_name,profile", "-of",
                "json", playlist.path,
            ],
            limits: limits)
        guard probed.succeeded,
            let json = try? JSONSerialization.jsonObject(with: probed.stdout) as? [String: Any]
        else { throw Self.unreadable }
        let stream = (json["streams"] as? [[String: Any]])?.first
        guard
            let codecs = Self.codecString(
                codecName: stream?["codec_name"] as? String, profile: stream?["profile"] as? String)
        else { throw Self.unreadable }
        let duration = ((json["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init) ?? 0
        return (duration, codecs)
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
