import Foundation

/// Bounds on one PDF ingest and on every subprocess it runs.
///
/// PDFs are untrusted input: a small file can describe enormous pages or endless content streams, so every
/// tool runs under a deadline, an address-space limit and a file-size limit, and the document itself is
/// refused early when it is too big or has too many pages.
public struct IngestLimits: Sendable {
    /// The largest PDF accepted, in bytes.
    public var maxBytes: Int
    /// The most pages a PDF may have.
    public var maxPages: Int
    /// How long one subprocess may run before it is killed.
    public var stepTimeout: Duration
    /// How long a whole deck may take: many pages each just under `stepTimeout` must not hold
    /// the ingest queue for hours.
    public var deckTimeout: Duration
    /// Address-space limit of each subprocess (`prlimit --as`), in bytes.
    public var memoryBytes: Int
    /// Size limit of any file a subprocess writes (`prlimit --fsize`), in bytes.
    public var maxOutputBytes: Int
    /// How many subprocesses run at once while rendering.
    public var parallelism: Int
    /// The long side of a page's large image, in pixels; the medium image is half of it and the
    /// thumbnail a sixth. Rendering is most of an ingest's work and grows with the square of this.
    public var pageImageSize: Int

    /// Creates limits; the defaults suit a server rendering conference-sized decks.
    /// - Parameters:
    ///   - maxBytes: the largest PDF accepted (200 MiB).
    ///   - maxPages: the most pages accepted (2000).
    ///   - stepTimeout: the deadline of each subprocess (120 s).
    ///   - deckTimeout: the deadline of a whole deck (30 min).
    ///   - memoryBytes: the address-space limit of each subprocess (2 GiB).
    ///   - maxOutputBytes: the largest file a subprocess may write (512 MiB).
    ///   - parallelism: subprocesses at once (one per core).
    ///   - pageImageSize: the long side of a page's large image (1920 px: 960 and 320 for the others).
    public init(
        maxBytes: Int = 200 * 1024 * 1024,
        maxPages: Int = 2000,
        stepTimeout: Duration = .seconds(120),
        deckTimeout: Duration = .seconds(30 * 60),
        memoryBytes: Int = 2 * 1024 * 1024 * 1024,
        maxOutputBytes: Int = 512 * 1024 * 1024,
        parallelism: Int = ProcessInfo.processInfo.activeProcessorCount,
        pageImageSize: Int = 1920
    ) {
        self.maxBytes = maxBytes
        self.maxPages = maxPages
        self.stepTimeout = stepTimeout
        self.deckTimeout = deckTimeout
        self.memoryBytes = memoryBytes
        self.maxOutputBytes = maxOutputBytes
        self.parallelism = parallelism
        self.pageImageSize = pageImageSize
    }

    /// The limits of one subprocess.
    /// - Parameter capturedOutput: how many bytes of standard output to keep.
    func toolLimits(capturedOutput: Int = 1024 * 1024) -> ToolLimits {
        ToolLimits(
            timeout: stepTimeout, memoryBytes: memoryBytes, maxOutputBytes: maxOutputBytes,
            maxCapturedOutput: capturedOutput)
    }
}
