import ChildProcesses
import Foundation
import Testing

@testable import PodiumServer

/// A real SMTP server (Debian's python3-aiosmtpd, run by `smtp-sink.py`) that keeps every message
/// it accepts as a file, for the tests of invitations, sign-ups and password resets.
final class SMTPSink: Sendable {
    static let script = TestServer.repositoryRoot.appendingPathComponent("Tests/PodiumServerTests/Support/smtp-sink.py")

    let directory: URL
    let port: Int
    private let process: ChildProcess
    /// The sink's standard input: it stops when this closes (or the test process ends).
    private let input: Pipe

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// How the sink speaks TLS, with the certificate and key files given.
    enum TLS {
        /// Offers STARTTLS and takes no mail before it.
        case startTLS(certificate: URL, key: URL)
        /// TLS from the first byte (smtps).
        case implicit(certificate: URL, key: URL)

        var arguments: [String] {
            switch self {
            case .startTLS(let certificate, let key): ["--starttls", certificate.path, key.path]
            case .implicit(let certificate, let key): ["--tls", certificate.path, key.path]
            }
        }
    }

    /// Starts a sink on a free port; `refuse`: it answers every recipient 550.
    init(refuse: Bool = false, tls: TLS? = nil) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        input = Pipe()
        process = ChildProcess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            arguments: [Self.script.path, directory.path] + (refuse ? ["--refuse"] : []) + (tls?.arguments ?? []),
            standardInput: .pipe(input), standardOutput: .null, standardError: .null)
        try process.run()
        let portFile = directory.appendingPathComponent("port")
        let deadline = ContinuousClock.now + .seconds(20)
        var port: Int?
        while port == nil {
            port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil {
                guard process.isRunning, ContinuousClock.now < deadline else {
                    process.send(SIGTERM)
                    throw Unavailable(
                        description: "the SMTP sink did not start: is python3-aiosmtpd installed (scripts/setup --test)?")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        self.port = port ?? 0
    }

    var relay: SMTPRelay { SMTPRelay(host: "127.0.0.1", port: port) }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.send(SIGTERM)
        _ = process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every message received so far, in order.
    func messages() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".eml") }.sorted { Int($0.dropLast(4)) ?? 0 < Int($1.dropLast(4)) ?? 0 }
            .compactMap { try? String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8) }
    }

    /// Messages to `address`.
    func messages(to address: String) -> [String] {
        messages().filter { $0.contains("X-Envelope-To: \(address)\r\n") }
    }

    /// Waits until `address` has received `count` messages; returns the last.
    func waitForMessage(to address: String, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> String
    {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let received = messages(to: address)
            if received.count >= count { return received[count - 1] }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no message \(count) to \(address) within 20 s", sourceLocation: sourceLocation)
        return ""
    }

    /// The token of the first link in `message` (`…#token=<64 hex digits>`), and the link.
    static func link(in message: String) -> (url: String, token: String)? {
        guard let match = message.range(of: #"https?://[^\s]+#token=[0-9a-f]{64}"#, options: .regularExpression) else {
            return nil
        }
        let url = String(message[match])
        return (url, String(url.suffix(64)))
    }
}
