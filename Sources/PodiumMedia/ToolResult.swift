import Foundation

/// What a finished subprocess left behind.
public struct ToolResult: Sendable {
    /// The exit status; a process killed by a signal reports 128 + the signal number, as shells do.
    public var exitCode: Int32
    /// Standard output, up to ``ToolLimits/maxCapturedOutput`` bytes.
    public var stdout: Data
    /// Standard error as text (invalid UTF-8 repaired), up to 64 KiB: enough for a diagnosis.
    public var stderr: String
    /// Whether the process was killed because it ran past its timeout.
    public var timedOut: Bool
    /// Whether standard output was longer than what was kept.
    public var stdoutTruncated: Bool

    /// Creates a result.
    public init(exitCode: Int32, stdout: Data, stderr: String, timedOut: Bool, stdoutTruncated: Bool = false) {
        self.exitCode = exitCode
        self.stdout = stdout
        self.stderr = stderr
        self.timedOut = timedOut
        self.stdoutTruncated = stdoutTruncated
    }

    /// Whether the process exited by itself with status 0.
    public var succeeded: Bool { exitCode == 0 && !timedOut }
}
