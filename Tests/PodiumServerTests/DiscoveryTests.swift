import ChildProcesses
import Foundation
import PodiumMedia
import Testing

@testable import PodiumClient
@testable import PodiumServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// DNS-SD on the local network: the real binary advertises itself through a real Avahi daemon
/// (a private one with its own D-Bus, started by scripts/avahi-sandbox), and the SDK's
/// ``ServerBrowser`` finds it with the right port and live sessions' count.
@Suite("Discovery on the local network", .serialized, .timeLimit(.minutes(1)))
struct DiscoveryTests {
    /// Requests as a script would make them: no cookies kept.
    static let plainSession = URLSession(configuration: PodiumClient.cookielessConfiguration())

    static let sandboxScript = TestServer.repositoryRoot.appendingPathComponent("scripts/avahi-sandbox")

    /// Whether a private Avahi can run here: as root, with avahi-daemon, avahi-utils and dbus.
    static var sandboxPossible: Bool {
        guard getuid() == 0 else { return false }
        return ["/usr/sbin/avahi-daemon", "/usr/bin/avahi-publish-service", "/usr/bin/avahi-browse", "/usr/bin/dbus-daemon"]
            .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs scripts/avahi-sandbox and waits for what it prints last ("DBUS_SYSTEM_BUS_ADDRESS=…",
    /// an error, or for `stop` its PID files gone). Its output goes to a file and its end is
    /// watched there: the daemons it starts keep a pipe's descriptor open, and the script's exit
    /// is not always reported to this process in time (bounded by the suite's time limit).
    static func sandbox(_ command: String, _ directory: URL) async throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("podium-avahi-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        let process = ChildProcess(
            sandboxScript, arguments: [command, directory.path], standardInput: .null, standardOutput: .file(output),
            standardError: .file(output))
        try process.run()
        for _ in 0..<300 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if command == "start", text.contains("DBUS_SYSTEM_BUS_ADDRESS=") { return (0, text) }
            if text.contains("avahi-sandbox:") { return (2, text) }
            if command == "stop", !FileManager.default.fileExists(atPath: directory.appendingPathComponent("avahi.pid").path) {
                return (0, text)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return (2, "avahi-sandbox \(command) did not finish: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    /// Browses until `accept` holds for the server named `name` (each browse waits `timeout`).
    static func find(
        _ name: String, attempts: Int = 15, _ accept: (DiscoveredServer) -> Bool = { _ in true }
    ) async throws -> DiscoveredServer? {
        for _ in 0..<attempts {
            let found = try await ServerBrowser(timeout: .milliseconds(800)).browse()
            if let server = found.first(where: { $0.name == name }), accept(server) { return server }
        }
        return nil
    }

    @Test(
        .enabled(
            if: sandboxPossible,
            "a private Avahi daemon needs root and avahi-daemon, avahi-utils and dbus (scripts/setup --test): not here, skipped"
        ))
    func theSDKFindsTheServerWithItsPortAndLiveSessions() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-mdns-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let avahi = directory.appendingPathComponent("avahi")
        let started = try await Self.sandbox("start", avahi)
        defer { _ = try? FileManager.default.removeItem(at: avahi) }
        #expect(started.status == 0, "\(started.output)")
        guard started.status == 0,
            let bus = started.output.split(separator: "\n").first(where: { $0.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=") })
        else { return }
        let address = String(bus.dropFirst("DBUS_SYSTEM_BUS_ADDRESS=".count))

        let name = "Podium test \(UUID().uuidString.prefix(8))"
        let server = ServerProcess(
            dataDirectory: directory.appendingPathComponent("data"),
            environment: [
                "DBUS_SYSTEM_BUS_ADDRESS": address, "PODIUM_DISCOVERY_NAME": name, "PODIUM_DISCOVERY_POLL_SECONDS": "0.2",
            ])
        do {
            try await server.start()
            let said = try await server.waitForOutput(containing: "on the local network")
            #expect(said.contains("Advertised on the local network as \"\(name)\""), "\(said)")

            let found = try #require(try await Self.find(name))
            #expect(found.port == server.port)
            #expect(found.liveSessions == 0)
            #expect(found.url.absoluteString.hasSuffix(":\(server.port)/"))
            #expect(found.version?.isEmpty == false)
            // One of the addresses it gives answers as this server (it listens on 127.0.0.1 only).
            #expect(found.addresses.contains("127.0.0.1"), "\(found.addresses)")
            let (_, response) = try await Self.plainSession.data(
                from: URL(string: "http://127.0.0.1:\(found.port)/readyz")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)

            let api = PodiumClient(baseURL: URL(string: server.url + "/")!)
            try await api.signIn(email: "admin", password: TestServer.adminPassword)
            let deck = try await api.waitUntilReady(
                deck: try await api.uploadDeck(pdf: Data(contentsOf: TestServer.demoDeck)).item.id)
            _ = try await api.startSession(deckId: deck.id)
            let counted = try await Self.find(name) { $0.liveSessions == 1 }
            #expect(counted?.liveSessions == 1)

            server.kill(SIGTERM)
            await server.waitUntilExit()
            // Withdrawn when the server stops.
            #expect(try await Self.find(name, attempts: 1) == nil)
        } catch {
            server.kill(SIGTERM)
            _ = try? await Self.sandbox("stop", avahi)
            throw error
        }
        _ = try await Self.sandbox("stop", avahi)
    }

    /// Without a responder the server still starts, and says why it is not advertised.
    @Test func withoutAvahiTheServerSaysWhyItIsNotAdvertised() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-nomdns-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = ServerProcess(
            dataDirectory: directory,
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory.path)/no-bus", "PATH": "/usr/bin:/bin"])
        try await server.start()
        defer { server.kill(SIGTERM) }
        let said = try await server.waitForOutput(containing: "on the local network")
        #expect(said.contains("Not advertised on the local network: "), "\(said)")
        #expect(said.contains("avahi"), "\(said)")  // what to install or start
    }
}

/// The browser's parsing of a real answer: Avahi's reply to a one-shot query for `_podium._tcp`
/// (captured on the test machine), with name compression, TXT, SRV, AAAA and A records.
@Suite("mDNS answers")
struct MulticastAnswerTests {
    static let avahiAnswer =
        "000084000001000500000000075f706f6469756d045f746370056c6f63616c00000c0001c00c000c00010000000a00100d506f6469756d206f6e206c6162c00cc030001000010000000a003406706174683d2f0e76657273696f6e3d302e32322e300a73657373696f6e733d33126e616d653d506f6469756d206f6e206c6162c030002100010000000a000b000000001fbb02766dc019c092001c00010000000a001000000000000000000000000000000001c092000100010000000a00047f000001"

    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test func aRealAvahiAnswerGivesTheServer() throws {
        let message = try DNSMessage(parsing: Self.bytes(Self.avahiAnswer))
        #expect(message.isResponse)
        var collector = ServerBrowser.Collector(serviceDomain: "_podium._tcp.local")
        collector.add(message.records)
        #expect(collector.missingQuestions().isEmpty)
        let server = try #require(collector.servers().first)
        #expect(server.name == "Podium on lab")
        #expect(server.host == "vm.local")
        #expect(server.port == 8123)
        #expect(server.addresses == ["127.0.0.1"])
        #expect(server.liveSessions == 3)
        #expect(server.version == "0.22.0")
        #expect(server.url.absoluteString == "http://127.0.0.1:8123/")
    }

    @Test func truncatedOrLoopingAnswersAreRejected() {
        let answer = Self.bytes(Self.avahiAnswer)
        for length in stride(from: 0, to: answer.count - 1, by: 7) {
            _ = try? DNSMessage(parsing: Array(answer.prefix(length)))  // no crash, no hang
        }
        // A name pointing at itself.
        let loop: [UInt8] = [0, 0, 0x84, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 12, 0, 12, 0, 1]
        #expect(throws: (any Error).self) { try DNSMessage(parsing: loop) }
    }
}

/// The advertiser's child process, with stand-ins for `avahi-publish-service` that say what the
/// real one says: its outcome read from the child's output, and a stopped child really gone.
@Suite("Discovery publisher process", .timeLimit(.minutes(1)))
struct PublisherProcessTests {
    /// A stand-in tool in a fresh directory: `body` is the rest of a `sh` script.
    static func tool(_ body: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-publisher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let tool = directory.appendingPathComponent("avahi-publish-service")
        try "#!/bin/sh\n\(body)\n".write(to: tool, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        return tool
    }

    /// The stand-ins answer at once; a shell's start-up on a machine busy with other work once took
    /// more than the server's 5 s, and an established service was taken as failed.
    static let patience: Duration = .seconds(20)

    static let noDaemon = "echo 'Failed to create client object: Daemon not running' >&2\nexit 1"
    static let established = "echo \"Established under name '$2'\"\nexec sleep 60"

    @Test func aToolWithoutItsDaemonFailsWithTheReason() async throws {
        let tool = try Self.tool(Self.noDaemon)
        defer { try? FileManager.default.removeItem(at: tool.deletingLastPathComponent()) }
        let publisher = PublisherProcess(
            tool: tool.path, arguments: ["--service", "Podium on test", "_podium._tcp", "8080"], patience: Self.patience)
        guard case .failure(let reason) = await publisher.start() else {
            Issue.record("a tool that cannot reach its daemon was taken as published")
            return
        }
        #expect(reason.contains("no Avahi daemon running"), "\(reason)")
        try await waitUntil("the exited tool's output ended") { !publisher.isRunning }
    }

    @Test func anEstablishedServiceRunsUntilStopped() async throws {
        let tool = try Self.tool(Self.established)
        defer { try? FileManager.default.removeItem(at: tool.deletingLastPathComponent()) }
        let publisher = PublisherProcess(
            tool: tool.path, arguments: ["--service", "Podium on test", "_podium._tcp", "8080"], patience: Self.patience)
        let outcome = await publisher.start()
        guard case .success = outcome else {
            Issue.record("an established service was taken as failed: \(outcome)")
            return
        }
        #expect(publisher.isRunning)
        publisher.stop()
        try await waitUntil("the stopped tool's output ended") { !publisher.isRunning }
    }

    /// Children that come and go at once, several at a time, as at a busy start-up: the reading
    /// of their output must survive every teardown (a readability handler's dispatch source once
    /// took the whole server down here, in `_dispatch_event_loop_drain`).
    @Test func manyShortLivedPublishersComeAndGo() async throws {
        let failing = try Self.tool(Self.noDaemon)
        let succeeding = try Self.tool(Self.established)
        defer {
            try? FileManager.default.removeItem(at: failing.deletingLastPathComponent())
            try? FileManager.default.removeItem(at: succeeding.deletingLastPathComponent())
        }
        let rightOutcomes = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    var right = 0
                    for round in 0..<15 {
                        let established = (worker + round) % 2 == 0
                        let publisher = PublisherProcess(
                            tool: (established ? succeeding : failing).path,
                            arguments: ["--service", "w\(worker)", "_podium._tcp", "1"], patience: Self.patience)
                        let outcome = await publisher.start()
                        publisher.stop()
                        switch outcome {
                        case .success where established, .failure where !established: right += 1
                        default: break
                        }
                    }
                    return right
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(rightOutcomes == Array(repeating: 15, count: 6))
    }
}
