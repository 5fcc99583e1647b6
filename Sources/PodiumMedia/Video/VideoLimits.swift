import Foundation

/// Bounds on one video ingest and on every `ffprobe`/`ffmpeg` run it makes.
///
/// Videos are untrusted input like PDFs: a small file can claim hours of 8K frames, so the file is
/// refused early by what `ffprobe` says, and packaging runs under a deadline, an address-space
/// limit and a file-size limit.
public struct VideoLimits: Sendable {
    /// The longest clip accepted.
    public var maxDuration: Duration
    /// The widest picture accepted, in pixels.
    public var maxWidth: Int
    /// The tallest picture accepted, in pixels.
    public var maxHeight: Int
    /// How long packaging one clip may take, every `ffmpeg` run together.
    public var packagingTimeout: Duration
    /// How long `ffprobe` may take.
    public var probeTimeout: Duration
    /// Address-space limit of each subprocess (`prlimit --as`), in bytes.
    public var memoryBytes: Int
    /// Size limit of any file a subprocess writes (`prlimit --fsize`), in bytes.
    public var maxOutputBytes: Int
    /// The length of an HLS segment, in seconds; every rendition has a keyframe at each multiple.
    public var segmentSeconds: Int
    /// Encoder threads (`-threads`); one per core by default.
    public var threads: Int
    /// The loudness every clip's sound is normalised to at packaging (EBU R128); nil leaves the
    /// sound as uploaded (and measures nothing).
    public var loudness: LoudnessTarget? = LoudnessTarget()
    /// The longest gap between keyframes (seconds) of an upload whose picture is copied, not
    /// encoded, into its first playable rendition (``VideoPackager/mayRemux(_:)``); 0 never copies.
    public var remuxKeyframeSeconds: Double = 10

    /// Creates limits; the defaults suit talks and lecture clips on a small server.
    /// - Parameters:
    ///   - maxDuration: the longest clip (3 hours).
    ///   - maxWidth: the widest picture (3840, 4K).
    ///   - maxHeight: the tallest picture (2160).
    ///   - packagingTimeout: the deadline of packaging one clip (2 hours).
    ///   - probeTimeout: the deadline of `ffprobe` (30 s).
    ///   - memoryBytes: the address-space limit of each subprocess (4 GiB: x264 at 1080p on two threads).
    ///   - maxOutputBytes: the largest file a subprocess may write (2 GiB: the MP4 of a long clip).
    ///   - segmentSeconds: the HLS segment length (4 s).
    ///   - threads: encoder threads (one per core).
    public init(
        maxDuration: Duration = .seconds(3 * 3600),
        maxWidth: Int = 3840,
        maxHeight: Int = 2160,
        packagingTimeout: Duration = .seconds(2 * 3600),
        probeTimeout: Duration = .seconds(30),
        memoryBytes: Int = 4 * 1024 * 1024 * 1024,
        maxOutputBytes: Int = 2 * 1024 * 1024 * 1024,
        segmentSeconds: Int = 4,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.maxDuration = maxDuration
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.packagingTimeout = packagingTimeout
        self.probeTimeout = probeTimeout
        self.memoryBytes = memoryBytes
        self.maxOutputBytes = maxOutputBytes
        self.segmentSeconds = max(1, segmentSeconds)
        self.threads = max(1, threads)
    }

    /// The limits of one subprocess.
    func toolLimits(timeout: Duration, capturedOutput: Int = 1024 * 1024) -> ToolLimits {
        ToolLimits(
            timeout: timeout, memoryBytes: memoryBytes, maxOutputBytes: maxOutputBytes,
            maxCapturedOutput: capturedOutput)
    }
}
