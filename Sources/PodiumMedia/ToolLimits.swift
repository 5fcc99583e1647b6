/// Limits for one subprocess.
public struct ToolLimits: Sendable {
    /// How long the process may run before it is killed with SIGKILL.
    public var timeout: Duration
    /// Address-space limit (`prlimit --as`), in bytes.
    public var memoryBytes: Int
    /// Size limit of any file the process writes (`prlimit --fsize`), in bytes.
    public var maxOutputBytes: Int
    /// How many bytes of standard output to keep; the rest is read and dropped so the process never blocks.
    public var maxCapturedOutput: Int

    /// Creates limits.
    /// - Parameters:
    ///   - timeout: the deadline.
    ///   - memoryBytes: the address-space limit (2 GiB).
    ///   - maxOutputBytes: the largest file the process may write (512 MiB).
    ///   - maxCapturedOutput: standard output kept (16 MiB).
    public init(
        timeout: Duration, memoryBytes: Int = 2 * 1024 * 1024 * 1024, maxOutputBytes: Int = 512 * 1024 * 1024,
        maxCapturedOutput: Int = 16 * 1024 * 1024
    ) {
        self.timeout = timeout
        self.memoryBytes = memoryBytes
        self.maxOutputBytes = maxOutputBytes
        self.maxCapturedOutput = maxCapturedOutput
    }
}
