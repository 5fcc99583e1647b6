import ChildProcesses
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Children started with `posix_spawn` (``ChildProcess``): what they get, what they do not
/// inherit, and how they end, with as many descriptors open as a busy server has.
@Suite("ChildProcess")
struct ChildProcessTests {
    static let sh = URL(fileURLWithPath: "/bin/sh")

    /// Runs `script` under `sh` to its end; its exit and standard output.
    static func run(
        _ script: String, environment: [String: String]? = nil, directory: URL? = nil
    ) async throws -> (ChildProcess.Termination, String) {
        let output = Pipe()
        let process = ChildProcess(
            sh, arguments: ["-c", script], environment: environment, directory: directory, standardInput: .null,
            standardOutput: .pipe(output), standardError: .null)
        try process.run()
        let reader = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }
        let termination = await process.exited()
        return (termination, String(decoding: await reader.value, as: UTF8.self))
    }

    @Test func exitStatusOutputEnvironmentAndDirectory() async throws {
        let (termination, output) = try await Self.run(
            #"printf '%s %s' "$GREETING" "$(pwd)"; exit 3"#, environment: ["GREETING": "hello"],
            directory: URL(fileURLWithPath: "/tmp"))
        #expect(termination == .exit(3))
        #expect(output == "hello /tmp")
    }

    @Test func aSignalEndsItAndSaysWhich() async throws {
        let process = ChildProcess(Self.sh, arguments: ["-c", "exec sleep 30"])
        try process.run()
        #expect(process.isRunning)
        process.send(SIGKILL)
        #expect(await process.exited() == .signal(SIGKILL))
        #expect(!process.isRunning)
        process.send(SIGKILL)  // once it is gone, nothing is sent
    }

    @Test func aMissingProgramIsAnErrorNotAChild() throws {
        let process = ChildProcess(URL(fileURLWithPath: "/nonexistent/tool"))
        #expect(throws: ChildProcess.SpawnError.self) { try process.run() }
        #expect(!process.isRunning)
    }

    /// More descriptors open than glibc's directory buffer holds names of (about 1,300): where
    /// Foundation's `Process.run()` read past that buffer and crashed. None of them reaches the
    /// children; each child still runs and ends.
    @Test func withThousandsOfDescriptorsOpenChildrenRunAndInheritNone() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let wanted = rlim_t(4096)
        if limit.rlim_cur < wanted, limit.rlim_max >= wanted {
            var raised = limit
            raised.rlim_cur = wanted
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised)
        }
        defer { setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) }
        // Not close-on-exec: a child would inherit them, unless they are closed in it.
        var open: [Int32] = []
        defer { for fd in open { close(fd) } }
        for _ in 0..<2_000 {
            let fd = Glibc.open("/dev/null", O_RDONLY)
            guard fd >= 0 else { break }
            open.append(fd)
        }
        #expect(open.count == 2_000, "could open only \(open.count) descriptors")
        let last = try #require(open.last)
        for _ in 0..<20 {
            let (termination, output) = try await Self.run(
                "test -e /proc/$$/fd/\(last) && echo inherited; test -e /proc/$$/fd/1 && echo stdout")
            #expect(termination == .exit(0))
            #expect(output == "stdout\n")
        }
    }
}
