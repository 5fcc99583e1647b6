import Foundation
import Logging

/// Audio for the channel's radio: decides whether an upload is a sound file (by content, with
/// `ffprobe`) and packages it into AAC segments of about six seconds in MPEG-TS, which every HLS
/// player (Video.js included) plays and which a live playlist can list track after track with a
/// discontinuity between them.
public struct AudioPackager: Sendable {
    /// One packaged segment: its file (in the work directory) and length in seconds.
    public struct Segment: Sendable, Equatable {
        public var file: URL
        public var duration: Double
    }

    public static let segmentSeconds = 6
    static let kilobits = 128

    public let limits: VideoLimits
    private let probe: VideoProbe
    private let runner: any ToolRunner
    private let logger: Logger

    public init(
        limits: VideoLimits = VideoLimits(), runner: any ToolRunner = SystemToolRunner(),
        logger: Logger = Logger(label: "podium.media.audio")
    ) {
        self.limits = limits
        self.runner = runner
        self.logger = logger
        probe = VideoProbe(limits: limits, runner: runner, logger: logger)
    }

    /// Probes `file`; refuses anything but sound (a video is refused too: the radio plays audio).
    /// - Returns: the length in seconds.
    /// - Throws: ``IngestError`` (`empty`, `not_audio`, `corrupt`, `too_long`, `tool_missing`).
    public func check(_ file: URL) async throws -> Double {
        let probed: ProbedMedia
        do {
            probed = try await probe.probe(file)
        } catch let error as IngestError {
            switch error.code {
            case "empty": throw IngestError(code: "empty", message: "This file is empty. Choose the track again and upload it.")
            case "not_video", "resolution_too_large": throw IngestError.notAudio
            case "corrupt":
                throw IngestError(
                    code: "corrupt",
                    message: "This audio file could not be read: its format is not recognised or it is cut off. "
                        + "Export it again (MP3, M4A, WAV, OGG or FLAC) and upload the new file.")
            default: throw error
            }
        }
        guard probed.hasAudio, !probed.hasVideo else { throw IngestError.notAudio }
        return probed.duration
    }

    /// Packages `source` into `directory` (created; the caller removes it).
    /// - Parameter progress: milliseconds of the track encoded of its length.
    /// - Throws: ``IngestError`` (`corrupt`, `timeout`, `tool_missing`); `CancellationError`.
    public func package(
        _ source: URL, duration: Double, into directory: URL,
        progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void
    ) async throws -> [Segment] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let total = max(1, Int(duration * 1000))
        progress(0, total)
        let reader = ProgressReader { microseconds in progress(min(total, Int(microseconds / 1000)), total) }
        let playlist = directory.appendingPathComponent("index.m3u8")
        let arguments = [
            "-nostdin", "-v", "error", "-y", "-i", "file:" + source.path, "-progress", "pipe:1", "-nostats",
            "-map_metadata", "-1", "-vn", "-map", "0:a:0", "-c:a", "aac", "-b:a", "\(Self.kilobits)k", "-ac", "2",
            "-ar", "48000", "-threads", String(limits.threads),
            "-f", "hls", "-hls_time", String(Self.segmentSeconds), "-hls_playlist_type", "vod",
            "-hls_segment_type", "mpegts", "-hls_segment_filename", directory.appendingPathComponent("s%05d.ts").path,
            playlist.path,
        ]
        let toolLimits = limits.toolLimits(timeout: limits.packagingTimeout, capturedOutput: 64 * 1024)
        let result: ToolResult
        do {
            result = try await runner.run("ffmpeg", arguments, limits: toolLimits, onStdout: { reader.consume($0) })
        } catch let error as IngestError where error.code == "tool_missing" {
            throw IngestError.videoToolMissing(tool: "ffmpeg")
        }
        if result.timedOut { throw IngestError.packagingTimeout(limits.packagingTimeout) }
        guard result.succeeded else {
            logger.notice("ffmpeg failed", metadata: ["exit": "\(result.exitCode)", "stderr": "\(result.stderr.suffix(800))"])
            throw IngestError(
                code: "corrupt",
                message: "This audio file could not be decoded to the end. It may be damaged: "
                    + "export it again and upload the new file.")
        }
        let segments = try Self.segments(
            of: String(contentsOf: playlist, encoding: .utf8), in: directory)
        guard !segments.isEmpty else {
            throw IngestError(code: "corrupt", message: "This audio file gave no sound to play. Upload another file.")
        }
        progress(total, total)
        return segments
    }

    /// The segments a VOD media playlist lists, with their `#EXTINF` lengths.
    static func segments(of playlist: String, in directory: URL) throws -> [Segment] {
        var segments: [Segment] = []
        var pending: Double?
        for line in playlist.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("#EXTINF:") {
                pending = Double(line.dropFirst("#EXTINF:".count).split(separator: ",").first ?? "")
            } else if !line.isEmpty, !line.hasPrefix("#"), let duration = pending {
                // ffmpeg writes the bare name beside the playlist; refuse anything that leaves it.
                guard !line.contains("/") else { throw IngestError(code: "corrupt", message: "Unexpected segment \(line).") }
                segments.append(Segment(file: directory.appendingPathComponent(line), duration: duration))
                pending = nil
            }
        }
        return segments
    }
}

extension IngestError {
    /// The file is not a sound file (a video, a PDF, an image, text…).
    public static let notAudio = IngestError(
        code: "not_audio",
        message: "This file is not an audio file. Upload a track as MP3, M4A, WAV, OGG or FLAC.")
}
