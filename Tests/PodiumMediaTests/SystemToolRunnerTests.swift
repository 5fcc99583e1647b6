import Foundation
import Testing

@testable import PodiumMedia

@Suite("SystemToolRunner")
struct SystemToolRunnerTests {
    let runner = SystemToolRunner()

    @Test("captures exit status, stdout and stderr")
    func capturesOutput() async throws {
        let result = try await runner.run(
            "sh", ["-c", "printf hello; printf oops >&2; exit 3"], limits: ToolLimits(timeout: .seconds(30)))
        #expect(result.exitCode == 3)
        #expect(String(decoding: result.stdout, as: UTF8.self) == "hello")
        #expect(result.stderr == "oops")
        #expect(!result.timedOut)
    }

    @Test("a process past its timeout is killed, reaped and reported as timed out")
    func timeout() async throws {
        let result = try await runner.run("sleep", ["5"], limits: ToolLimits(timeout: .milliseconds(200)))
        #expect(result.timedOut)
        #expect(result.exitCode == 128 + SIGKILL)

        // The shell prints its pid and becomes `sleep`: once run returns, that pid must be gone, not a zombie.
        let shell = try await runner.run(
            "sh", ["-c", "echo $$; exec sleep 5"], limits: ToolLimits(timeout: .milliseconds(200)))
        #expect(shell.timedOut)
        let pid = try #require(pid_t(String(decoding: shell.stdout, as: UTF8.self).trimmingCharacters(in: .newlines)))
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }

    @Test("cancelling the caller kills the running process and throws CancellationError")
    func cancellation() async throws {
        let directory = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The child writes its pid into a FIFO: reading it waits for exactly that moment, so the
        // process is surely running when the test cancels (no polling, no sleeping).
        let marker = directory.appendingPathComponent("pid")
        #expect(mkfifo(marker.path, 0o600) == 0)
        let runner = self.runner
        let task = Task {
            try await runner.run(
                "sh", ["-c", "echo $$ > '\(marker.path)'; exec sleep 30"], limits: ToolLimits(timeout: .seconds(60)))
        }
        // open(2) on a FIFO blocks until the writer opens it; then read its one line.
        let fifo = open(marker.path, O_RDONLY)
        #expect(fifo >= 0)
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = read(fifo, &bytes, bytes.count)
        close(fifo)
        let text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
        let pid = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }

    @Test("an unknown program is tool_missing")
    func missingTool() async throws {
        await #expect(throws: IngestError.toolMissing(tool: "podium-no-such-tool")) {
            _ = try await runner.run("podium-no-such-tool", [], limits: ToolLimits(timeout: .seconds(5)))
        }
        await #expect(throws: IngestError.toolMissing(tool: "/nonexistent/tool")) {
            _ = try await runner.run("/nonexistent/tool", [], limits: ToolLimits(timeout: .seconds(5)))
        }
    }

    @Test("megabytes on both pipes cannot deadlock, and captured stdout is capped")
    func drainsBothPipes() async throws {
        // Far more than a pipe buffer on each stream: reading one pipe while the child blocks on the
        // other would hang here.
        let script = "head -c 3000000 /dev/zero; head -c 3000000 /dev/zero >&2; echo done >&2"
        let result = try await runner.run(
            "sh", ["-c", script], limits: ToolLimits(timeout: .seconds(60), maxCapturedOutput: 1000))
        #expect(result.exitCode == 0)
        #expect(result.stdout.count == 1000)
        #expect(result.stdoutTruncated)
        #expect(result.stderr.utf8.count <= 64 * 1024)
    }

    @Test("a process killed by a signal reports 128 + the signal")
    func signalled() async throws {
        let result = try await runner.run("sh", ["-c", "kill -SEGV $$"], limits: ToolLimits(timeout: .seconds(30)))
        #expect(result.exitCode == 128 + SIGSEGV)
        #expect(!result.timedOut)
    }

    @Test("prlimit's file-size limit stops a process writing a larger file")
    func fileSizeLimit() async throws {
        let directory = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big")
        let result = try await runner.run(
            "sh", ["-c", "head -c 100000 /dev/zero > '\(file.path)'"],
            limits: ToolLimits(timeout: .seconds(30), maxOutputBytes: 4096))
        #expect(result.exitCode != 0)
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
        #expect((size?.intValue ?? 0) <= 4096)
    }

    @Test("prlimit's address-space limit applies to the tool")
    func memoryLimit() async throws {
        // The tool itself runs under the limit: sh reports it with `ulimit -v`, in KiB.
        let result = try await runner.run(
            "sh", ["-c", "ulimit -v"], limits: ToolLimits(timeout: .seconds(30), memoryBytes: 512 * 1024 * 1024))
        #expect(
            String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "524288")
    }

    @Test("many runs at once all complete")
    func concurrentRuns() async throws {
        let runner = self.runner
        let outputs = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let result = try await runner.run("echo", ["\(index)"], limits: ToolLimits(timeout: .seconds(30)))
                    return String(decoding: result.stdout, as: UTF8.self)
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(outputs == Set((0..<16).map { "\($0)\n" }))
    }
}
