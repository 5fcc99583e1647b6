/// Runs an external program with limits and collects what it printed.
///
/// The ingester runs every tool through this protocol, so a server can swap in a sandboxing runner
/// (a container, a different limiter) without touching the pipeline.
public protocol ToolRunner: Sendable {
    /// Runs `tool` with `arguments` under `limits`.
    ///
    /// A run that exceeds its timeout is killed and returned with `timedOut == true`, not thrown.
    /// - Parameters:
    ///   - tool: a program name looked up on `PATH`, or a path containing a slash.
    ///   - arguments: the arguments, passed as they are (no shell).
    ///   - limits: deadline, memory, output-file and captured-output limits.
    /// - Throws: ``IngestError/toolMissing(tool:)`` when the program cannot be found or started;
    ///   `CancellationError` when the calling task is cancelled (the process is then killed).
    func run(_ tool: String, _ arguments: [String], limits: ToolLimits) async throws -> ToolResult
}
