import ChildProcesses
import Foundation

/// Runs tools as local subprocesses (``ChildProcess``), under `prlimit`.
///
/// `prlimit --as=… --fsize=… -- tool …` sets the address-space and file-size limits and then execs the
/// tool, so the limits apply to the tool itself and the pid we hold is the tool's. A watchdog task kills
/// the process group with SIGKILL at the deadline; cancelling the calling task kills it too. Output is
/// drained concurrently from both pipes, so a tool that fills one pipe while we wait on the other cannot
/// deadlock, and the child is reaped as it exits, so none is left a zombie.
///
/// The struct has no stored state; each run keeps its own state in a ``ProcessMonitor``.
public struct SystemToolRunner: ToolRunner {
    /// Creates a runner that resolves tools on the server's `PATH`.
    public init() {}

    public func run(_ tool: String, _ arguments: [String], limits: ToolLimits) async throws -> ToolResult {
        try await run(tool, arguments, limits: limits, streaming: nil)
    }

    public func run(
        _ tool: String, _ arguments: [String], limits: ToolLimits, onStdout: @escaping @Sendable (Data) -> Void
    ) async throws -> ToolResult {
        try await run(tool, arguments, limits: limits, streaming: onStdout)
    }

    private func run(
        _ tool: String, _ arguments: [String], limits: ToolLimits, streaming: (@Sendable (Data) -> Void)?
    ) async throws -> ToolResult {
        let executable = try Self.locate(tool)
        let prlimit = try Self.locate("prlimit")
        try Task.checkCancellation()

        let stdout = Pipe()
        let stderr = Pipe()
        let process = ChildProcess(
            prlimit,
            arguments: ["--as=\(max(1, limits.memoryBytes))", "--fsize=\(max(1, limits.maxOutputBytes))", "--", executable.path]
                + arguments,
            standardInput: .null, standardOutput: .pipe(stdout), standardError: .pipe(stderr))

        let monitor = ProcessMonitor(stdoutLimit: limits.maxCapturedOutput, onStdout: streaming)
        do {
            try process.run { monitor.exited(status: $0.status, bySignal: $0.isSignal) }
        } catch {
            // The file was found but could not be started (permissions, wrong architecture, ...).
            throw IngestError.toolMissing(tool: tool)
        }
        monitor.started(pid: process.processIdentifier)
        monitor.drain(stdout.fileHandleForReading, isStdout: true)
        monitor.drain(stderr.fileHandleForReading, isStdout: false)

        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    // The watchdog. It is cancelled as soon as the process has finished; a cancelled
                    // sleep must not kill, hence the check of the sleep's outcome.
                    guard (try? await Task.sleep(for: limits.timeout)) != nil else { return }
                    monitor.kill(timedOut: true)
                }
                await monitor.finished()
                group.cancelAll()
            }
        } onCancel: {
            monitor.kill(timedOut: false)
        }
        // Keep the pipes alive until both are drained.
        withExtendedLifetime((stdout, stderr)) {}
        try Task.checkCancellation()
        return monitor.result()
    }

    /// Finds a program the way a shell would: a name containing `/` is taken as a path, any other name is
    /// looked up in each directory of `PATH`.
    /// - Throws: ``IngestError/toolMissing(tool:)`` when no executable regular file is found.
    static func locate(_ tool: String) throws -> URL {
        let fileManager = FileManager.default
        func isProgram(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            return fileManager.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && fileManager.isExecutableFile(atPath: path)
        }
        if tool.contains("/") {
            guard isProgram(tool) else { throw IngestError.toolMissing(tool: tool) }
            return URL(fileURLWithPath: tool)
        }
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":") where !directory.isEmpty && !tool.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(tool)
            if isProgram(candidate.path) { return candidate }
        }
        throw IngestError.toolMissing(tool: tool)
    }
}
