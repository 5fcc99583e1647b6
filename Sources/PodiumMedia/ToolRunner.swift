import Foundation

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

    /// Runs `tool` like ``run(_:_:limits:)``, handing each chunk of its standard output to
    /// `onStdout` as it arrives (`ffmpeg -progress pipe:1`, say), in order, one call at a time.
    func run(
        _ tool: String, _ arguments: [String], limits: ToolLimits, onStdout: @escaping @Sendable (Data) -> Void
    ) async throws -> ToolResult
}

extension ToolRunner {
    /// For runners that cannot stream: the whole output is handed over once the tool has finished.
    public func run(
        _ tool: String, _ arguments: [String], limits: ToolLimits, onStdout: @escaping @Sendable (Data) -> Void
    ) async throws -> ToolResult {
        let result = try await run(tool, arguments, limits: limits)
        onStdout(result.stdout)
        return result
    }
}
