import Foundation

/// Audio takes' limits and timings (``ServerConfiguration/recordings``).
public struct RecordingSettings: Sendable {
    /// The largest chunk taken; more is `413 chunk_too_large`.
    public var maxChunkBytes = 1 << 20
    /// A take with no chunk for this long is stopped and packaged by the sweep (a closed laptop).
    public var stallAfter: TimeInterval = 120
    /// How often the sweep looks for such takes.
    public var sweepInterval = Duration.seconds(30)
    /// A new take of a session is refused (`409 recording_in_progress`) while another one had a
    /// chunk this recently; an older one is stopped and packaged instead.
    public var activeWindow: TimeInterval = 30
    /// The longest ffmpeg may take to package one take.
    public var packagingTimeout = Duration.seconds(900)
    /// The AAC bit rate of the packaged audio, bits per second.
    public var bitRate = 64_000
    /// HLS segments' length, seconds.
    public var segmentSeconds = 6
    /// Told after every sweep, with the time it swept at (the injected clock's) and the takes it
    /// stopped (none when it failed): tests wait on a sweep instead of sleeping.
    public var onSweep: (@Sendable (_ at: Date, _ stopped: [String]) -> Void)?

    public init() {}
}
