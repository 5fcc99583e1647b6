import ChildProcesses
import Foundation
import PodiumMedia
import Testing

/// The real `podium serve` binary in a child process, for tests that kill it.
final class ServerProcess {
    static let binary = TestServer.repositoryRoot.appendingPathComponent(".build/debug/podium")

    /// Set by ``start()``.
    private(set) var process: ChildProcess?
    let dataDirectory: URL
    /// More `serve` options (`--database`), and environment variables over the test's own.
    let extraArguments: [String]
    let extraEnvironment: [String: String]
    private(set) var port = 0
    private let output = Pipe()

    init(dataDirectory: URL, arguments: [String] = [], environment: [String: String] = [:]) {
        self.dataDirectory = dataDirectory
        extraArguments = arguments
        extraEnvironment = environment
    }

    /// Starts the server on a free port and waits for its banner.
    func start() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw Failure("no server binary at \(Self.binary.path): run `swift build --product podium` first")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PODIUM_ADMIN_PASSWORD"] = TestServer.adminPassword
        // Small page images, as TestServer's (480 px): these tests kill and restart servers, they
        // do not look at pixels, and drawing the demo deck and the 192-page deck at 1920 px was
        // most of their time.
        environment["PODIUM_PAGE_IMAGE_SIZE"] = "480"
        let process = ChildProcess(
            Self.binary,
            arguments: [
                "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory.path,
                "--web-root", TestServer.repositoryRoot.appendingPathComponent("Public").path, "--log-level", "warning",
            ] + extraArguments,
            environment: environment.merging(extraEnvironment) { $1 }, standardOutput: .pipe(output), standardError: .null)
        try process.run()
        self.process = process
        // Starting takes seconds on a loaded machine (the admin's password is hashed at the
        // production cost): read on a thread of our own, not one of the pool's (see `blocking`).
        let handle = output.fileHandleForReading
        (port, outputText) = try await blocking { try Self.port(fromBannerOn: handle) }
    }

    /// What the server wrote to standard output so far (the banner and after, as read).
    private(set) var outputText = ""

    /// Reads the server's output until it contains `text`; returns the line that does.
    func waitForOutput(containing text: String) async throws -> String {
        func line(in output: String) -> String? {
            output.split(separator: "\n").first { $0.contains(text) }.map(String.init)
        }
        while line(in: outputText) == nil {
            let handle = self.output.fileHandleForReading
            let chunk = try await blocking { handle.availableData }
            guard !chunk.isEmpty else { throw Failure("the server's output ended without \(text): \(outputText)") }
            outputText += String(decoding: chunk, as: UTF8.self)
        }
        return line(in: outputText)!
    }

    /// Reads the server's output until the banner names the port the kernel chose (bounded by the
    /// suite's time limit: a server that never starts fails the test).
    private static func port(fromBannerOn handle: FileHandle) throws -> (Int, String) {
        var text = ""
        while true {
            let chunk = handle.availableData
            guard !chunk.isEmpty else { throw Failure("the server exited before it listened: \(text)") }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"https?://localhost:(\d+)"#, options: .regularExpression),
                let port = Int(text[range].split(separator: ":").last ?? ""), port != 0
            {
                return (port, text)
            }
        }
    }

    func kill(_ signal: Int32) {
        process?.send(signal)
    }

    /// Waits for the server to exit (a graceful stop takes a while); how it ended.
    @discardableResult
    func waitUntilExit() async -> ChildProcess.Termination? {
        await process?.exited()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
