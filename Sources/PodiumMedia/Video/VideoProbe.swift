import Foundation
import Logging

/// Decides by content, never by name, whether an upload is a clip Podium can package: runs
/// `ffprobe` and judges its container, streams, length and picture size against ``VideoLimits``.
public struct VideoProbe: Sendable {
    public let limits: VideoLimits
    private let runner: any ToolRunner
    private let logger: Logger

    /// Containers accepted for video (`ffprobe`'s names, any one of the comma-separated aliases).
    static let videoContainers: Set<String> = ["mov", "mp4", "webm", "matroska"]
    /// Containers accepted for audio-only files, besides the video containers (M4A is `mov,mp4`).
    static let audioContainers: Set<String> = ["ogg", "mp3", "wav", "flac"]

    public init(
        limits: VideoLimits = VideoLimits(), runner: any ToolRunner = SystemToolRunner(),
        logger: Logger = Logger(label: "podium.media.video")
    ) {
        self.limits = limits
        self.runner = runner
        self.logger = logger
    }

    /// Probes `file` and judges it.
    /// - Throws: ``IngestError`` (`empty`, `not_video`, `corrupt`, `too_long`,
    ///   `resolution_too_large`, `timeout`, `tool_missing`); file-system errors when `file` cannot be read.
    public func probe(_ file: URL) async throws -> ProbedMedia {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        // A FIFO or device would block the probe forever.
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw IngestError.notVideo() }
        if ((attributes[.size] as? NSNumber)?.intValue ?? 0) == 0 { throw IngestError.emptyVideo }
        let handle = try FileHandle(forReadingFrom: file)
        let prefix = try handle.read(upToCount: 1024) ?? Data()
        try? handle.close()
        // ffprobe's answer for a PDF is a confusing mp3 error: say what it is.
        if PDFIngester.looksLikePDF(prefix) { throw IngestError.notVideo("a PDF") }

        let result: ToolResult
        do {
            result = try await runner.run(
                "ffprobe",
                ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "file:" + file.path],
                limits: limits.toolLimits(timeout: limits.probeTimeout, capturedOutput: 4 * 1024 * 1024))
        } catch let error as IngestError where error.code == "tool_missing" {
            throw IngestError.videoToolMissing(tool: "ffprobe")
        }
        if result.timedOut { throw IngestError.corruptVideo(detail: "inspecting it took too long") }
        guard result.succeeded, let output = ProbeOutput.parse(result.stdout), let format = output.format,
            let formatName = format.formatName
        else {
            logger.notice("ffprobe refused a file", metadata: ["stderr": "\(result.stderr.prefix(500))"])
            throw IngestError.corruptVideo(detail: "its format is not recognised or the file is cut off")
        }
        return try judge(output, formatName: formatName)
    }

    /// The decision on `ffprobe`'s answer, apart from running it, so it can be tested on its own.
    func judge(_ output: ProbeOutput, formatName: String) throws -> ProbedMedia {
        let aliases = Set(formatName.split(separator: ",").map(String.init))
        if aliases.contains("image2") || aliases.contains(where: { $0.hasSuffix("_pipe") }) {
            throw IngestError.notVideo("an image")
        }
        let streams = output.streams ?? []
        // Cover art in an audio file is a "video" stream of one picture: not a video.
        let video = streams.first { $0.codecType == "video" && $0.disposition?.attachedPic != 1 }
        let hasAudio = streams.contains { $0.codecType == "audio" }
        if video != nil {
            guard !aliases.isDisjoint(with: Self.videoContainers) else { throw IngestError.notVideo() }
        } else {
            guard hasAudio, !aliases.isDisjoint(with: Self.videoContainers.union(Self.audioContainers)) else {
                throw IngestError.notVideo()
            }
        }
        let duration = Double(output.format?.duration ?? "") ?? 0
        guard duration.isFinite, duration > 0 else { throw IngestError.corruptVideo(detail: "its length is unknown") }
        if duration > Double(limits.maxDuration.components.seconds) { throw IngestError.tooLong(limit: limits.maxDuration) }
        var width = 0
        var height = 0
        var frameRate = 0.0
        var info: VideoStreamInfo?
        if let video {
            width = video.width ?? 0
            height = video.height ?? 0
            guard width > 0, height > 0 else { throw IngestError.corruptVideo(detail: "its picture size is unknown") }
            if width > limits.maxWidth || height > limits.maxHeight {
                throw IngestError.resolutionTooLarge(maxWidth: limits.maxWidth, maxHeight: limits.maxHeight)
            }
            // The limits bound what is decoded (the stored size); the size recorded is the size
            // shown: ffmpeg turns the picture as it packages it, so the renditions and the poster
            // of a phone clip filmed upright are portrait.
            if video.isQuarterTurned { swap(&width, &height) }
            frameRate = ProbeOutput.rate(video.avgFrameRate) ?? ProbeOutput.rate(video.rFrameRate) ?? 30
            if frameRate > 240 { frameRate = 30 }  // a timebase, not a frame rate
            info = VideoStreamInfo(
                codec: video.codecName ?? "", profile: video.profile, level: video.level, pixelFormat: video.pixFmt,
                bitRate: (video.bitRate ?? output.format?.bitRate).flatMap { Int($0) }, rotation: video.rotation)
        }
        return ProbedMedia(
            container: formatName, duration: duration, width: width, height: height, frameRate: frameRate,
            hasVideo: video != nil, hasAudio: hasAudio, video: info)
    }
}
