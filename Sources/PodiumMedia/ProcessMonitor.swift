import ChildProcesses
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Watches one child process: drains its two pipes, records its exit, kills it on demand, and wakes one
/// waiter when it is completely finished (exited *and* both pipes at end of file).
///
/// Waiting for both the exit and the ends of file matters: output written just before exiting would be
/// lost otherwise. Every mutable field lives in one `Mutex`, and what feeds it (a reader thread per pipe,
/// ``ChildProcess``'s exit handler) runs on threads of its own, never on the Swift concurrency pool, so
/// no cooperative thread ever blocks in `read(2)` or `waitpid(2)`.
///
/// The pipes are read with plain blocking `read(2)` on a thread each (``PipeReader`` says why not
/// with `DispatchIO`).
final class ProcessMonitor: Sendable {
    private struct State {
        var stdout = Data()
        var stderr = Data()
        var stdoutTruncated = false
        var openStreams = 2
        var exit: (status: Int32, bySignal: Bool)?
        var pid: pid_t = 0
        var timedOut = false
        var waiter: CheckedContinuation<Void, Never>?

        var isFinished: Bool { openStreams == 0 && exit != nil }
    }

    private let state = Mutex(State())
    private let stdoutLimit: Int
    private let stderrLimit: Int
    /// Given each chunk of standard output as it arrives (on the reader thread, outside the lock),
    /// for tools that report progress there while they run.
    private let onStdout: (@Sendable (Data) -> Void)?

    init(stdoutLimit: Int, stderrLimit: Int = 64 * 1024, onStdout: (@Sendable (Data) -> Void)? = nil) {
        self.stdoutLimit = max(0, stdoutLimit)
        self.stderrLimit = stderrLimit
        self.onStdout = onStdout
    }

    /// Records the pid once the process has been spawned, so ``kill(timedOut:)`` can reach it.
    func started(pid: pid_t) {
        state.withLock { $0.pid = pid }
    }

    /// Records the exit reported by ``ChildProcess``'s exit handler.
    func exited(status: Int32, bySignal: Bool) {
        finish { $0.exit = (status, bySignal) }
    }

    /// Reads `handle` to its end on a thread of its own (``PipeReader``), keeping at most the
    /// configured number of bytes.
    ///
    /// Reading continues past the cap and drops the excess: a child blocked on a full pipe would otherwise
    /// never exit.
    func drain(_ handle: FileHandle, isStdout: Bool) {
        PipeReader.readToEnd(
            handle, name: isStdout ? "podium-tool-stdout" : "podium-tool-stderr",
            onData: { [self] chunk in
                append(chunk, isStdout: isStdout)
                if isStdout, let onStdout { onStdout(Data(chunk)) }
            },
            onEnd: { [self] in finish { $0.openStreams -= 1 } })
    }

    /// Sends SIGKILL to the process group if the process has not exited yet.
    ///
    /// ``ChildProcess`` starts every child in its own process group, so killing the group also
    /// takes down anything the tool spawned. The exit check and the kill happen under the lock that
    /// ``exited(status:bySignal:)`` takes, which keeps the window for pid reuse to the instant between
    /// the child's `waitpid` and its exit handler.
    /// - Parameter timedOut: marks the result as timed out.
    func kill(timedOut: Bool) {
        state.withLock { state in
            guard state.exit == nil, state.pid > 0 else { return }
            if timedOut { state.timedOut = true }
            if sendKill(-state.pid) != 0 { _ = sendKill(state.pid) }
        }
    }

    /// Suspends until the process has exited and both pipes are drained.
    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyDone = state.withLock { state in
                if state.isFinished { return true }
                state.waiter = continuation
                return false
            }
            if alreadyDone { continuation.resume() }
        }
    }

    /// The collected result; call after ``finished()``.
    func result() -> ToolResult {
        state.withLock { state in
            let status = state.exit.map { $0.bySignal ? 128 + $0.status : $0.status } ?? -1
            return ToolResult(
                exitCode: status, stdout: state.stdout, stderr: String(decoding: state.stderr, as: UTF8.self),
                timedOut: state.timedOut, stdoutTruncated: state.stdoutTruncated)
        }
    }

    private func append(_ data: ArraySlice<UInt8>, isStdout: Bool) {
        state.withLock { state in
            let limit = isStdout ? stdoutLimit : stderrLimit
            let kept = isStdout ? state.stdout.count : state.stderr.count
            let room = max(0, limit - kept)
            if data.count > room, isStdout { state.stdoutTruncated = true }
            guard room > 0 else { return }
            let bytes = Data(data.prefix(room))
            if isStdout { state.stdout.append(bytes) } else { state.stderr.append(bytes) }
        }
    }

    /// Applies `change` and, when that completes the process, resumes the waiter outside the lock.
    private func finish(_ change: (inout State) -> Void) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            change(&state)
            guard state.isFinished else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}

/// `kill(2)`, named apart from ``ProcessMonitor/kill(timedOut:)``.
private func sendKill(_ pid: pid_t) -> Int32 {
    kill(pid, SIGKILL)
}
