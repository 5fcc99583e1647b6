import ChildProcesses
import Foundation
import HTTPTypes
import PodiumClient
import PodiumMedia
import Testing

/// The real binary killed with SIGKILL mid-session, and stopped with SIGTERM.
@Suite("Crash recovery and shutdown", .serialized, .timeLimit(.minutes(3)))
struct CrashRecoveryTests {
    static func identity(_ n: Int) -> String { InteractionTests.identity(n) }

    @Test func nothingIsLostOrDuplicatedWhenTheServerIsKilled() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = ServerProcess(dataDirectory: directory)
        try await first.start()
        let api = PodiumClient(baseURL: URL(string: first.url)!)
        try await api.signIn(email: "admin", password: TestServer.adminPassword)
        let deck = try await api.waitUntilReady(
            deck: try await api.uploadDeck(pdf: Data(contentsOf: TestServer.demoDeck)).item.id)
        let code = try await api.startSession(deckId: deck.id).code
        let token = try #require(api.token)

        let presenter = try await TestSocket.connect(port: first.port, path: "/api/v1/sessions/\(code)/live")
        _ = try await presenter.hello(["role": "presenter", "token": token])
        var viewers: [TestSocket] = []
        for n in 1...3 {
            let viewer = try await TestSocket.connect(
                port: first.port, path: "/api/v1/sessions/\(code)/live", headers: [.cookie: "podium_viewer=\(Self.identity(n))"])
            _ = try await viewer.hello(["role": "viewer"])
            viewers.append(viewer)
        }
        try await presenter.send(#"{"type":"goto","id":"g1","page":2}"#)
        try await presenter.send(#"{"type":"openPoll","id":"p1","poll":{"kind":"choice","question":"Q","choices":["A","B"]}}"#)
        try await presenter.send(#"{"type":"goto","id":"g2","page":3}"#)
        var acked = 0
        while acked < 3 { if try await presenter.nextDurable()?["type"] as? String == "ack" { acked += 1 } }
        for (n, viewer) in viewers.enumerated() {
            try await viewer.send(#"{"type":"answer","id":"a\#(n)","pollId":2,"choices":[\#(n % 2)]}"#)
            _ = try await viewer.next(ofType: "ack")  // acknowledged means stored
        }
        // Viewer 1 saw everything; viewer 2 will reconnect having seen only seq 1.
        first.kill(SIGKILL)
        await first.waitUntilExit()

        let second = ServerProcess(dataDirectory: directory)
        try await second.start()
        defer { second.kill(SIGTERM) }
        let path = "/api/v1/sessions/\(code)/live"
        let back = try await TestSocket.connect(
            port: second.port, path: path, headers: [.cookie: "podium_viewer=\(Self.identity(2))"])
        let welcome = try await back.hello(["role": "viewer", "lastSeq": 1])
        let events = try #require(welcome["events"] as? [[String: Any]])
        #expect(events.map { $0["seq"] as? Int } == [2, 3])
        #expect(events.map { $0["type"] as? String } == ["pollOpened", "page"])
        #expect(welcome["seq"] as? Int == 3)
        #expect((welcome["myAnswers"] as? [String: Any])?["2"] as? [String: [Int]] == ["choices": [1]])

        let presenterAgain = try await TestSocket.connect(port: second.port, path: path)
        let presenterWelcome = try await presenterAgain.hello(["role": "presenter", "token": token])
        let tally = try #require((presenterWelcome["results"] as? [[String: Any]])?.first)
        #expect(tally["answered"] as? Int == 3)
        #expect(tally["counts"] as? [Int] == [2, 1])
        // A command retried after the crash takes effect once; the poll is still open.
        try await presenterAgain.send(#"{"type":"goto","id":"g2","page":3}"#)
        let ack = try await presenterAgain.nextDurable()
        #expect(ack?["type"] as? String == "ack" && ack?["seq"] as? Int == 3)
        try await back.send(#"{"type":"answer","id":"late","pollId":2,"choices":[0]}"#)
        #expect(try await back.next(ofType: "ack")?["id"] as? String == "late")
    }

    /// Answers still on the wire when the server dies: the client resends every unanswered
    /// command with its id after reconnecting (as the browser client does), and each counts once.
    @Test func answersInFlightWhenKilledCountExactlyOnceAfterTheRetry() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = ServerProcess(dataDirectory: directory)
        try await first.start()
        let api = PodiumClient(baseURL: URL(string: first.url)!)
        try await api.signIn(email: "admin", password: TestServer.adminPassword)
        let deck = try await api.waitUntilReady(
            deck: try await api.uploadDeck(pdf: Data(contentsOf: TestServer.demoDeck)).item.id)
        let code = try await api.startSession(deckId: deck.id).code
        let token = try #require(api.token)
        let path = "/api/v1/sessions/\(code)/live"

        let presenter = try await TestSocket.connect(port: first.port, path: path)
        _ = try await presenter.hello(["role": "presenter", "token": token])
        try await presenter.send(
            #"{"type":"openPoll","id":"p1","poll":{"kind":"choice","question":"Q","choices":["A","B","C"]}}"#)
        _ = try await presenter.next(ofType: "ack")
        let count = 24
        var viewers: [TestSocket] = []
        for n in 1...count {
            let viewer = try await TestSocket.connect(
                port: first.port, path: path, headers: [.cookie: "podium_viewer=\(Self.identity(n))"])
            _ = try await viewer.hello(["role": "viewer"])
            viewers.append(viewer)
        }
        // Every viewer answers at once and the server dies while the answers arrive: some are
        // stored and acknowledged, some stored but not acknowledged, some never read.
        for (n, viewer) in viewers.enumerated() {
            try await viewer.send(#"{"type":"answer","id":"a\#(n)","pollId":1,"choices":[\#(n % 3)]}"#)
        }
        // Killed as soon as the first answer is acknowledged, so at least one answer was stored
        // before the crash and its retry must not count again.
        #expect(try await viewers[0].next(ofType: "ack")?["id"] as? String == "a0")
        first.kill(SIGKILL)
        await first.waitUntilExit()

        let second = ServerProcess(dataDirectory: directory)
        try await second.start()
        defer { second.kill(SIGTERM) }
        for (n, _) in viewers.enumerated() {
            let back = try await TestSocket.connect(
                port: second.port, path: path, headers: [.cookie: "podium_viewer=\(Self.identity(n + 1))"])
            let welcome = try await back.hello(["role": "viewer", "lastSeq": 1])
            #expect(welcome["seq"] as? Int == 1)
            try await back.send(#"{"type":"answer","id":"a\#(n)","pollId":1,"choices":[\#(n % 3)]}"#)
            #expect(try await back.next(ofType: "ack")?["id"] as? String == "a\(n)")
        }
        let presenterAgain = try await TestSocket.connect(port: second.port, path: path)
        let welcome = try await presenterAgain.hello(["role": "presenter", "token": token])
        let tally = try #require((welcome["results"] as? [[String: Any]])?.first)
        #expect(tally["answered"] as? Int == count)  // none lost, none twice
        #expect(tally["counts"] as? [Int] == [count / 3, count / 3, count / 3])
    }

    /// SIGTERM: clients are told to reconnect, newcomers are sent away, a deck being processed
    /// is left for the next start (not waited for, not failed), and the process exits.
    @Test func sigtermTellsClientsToReconnectAndExitsWithoutWaitingForIngest() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-term-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = ServerProcess(dataDirectory: directory)
        try await server.start()
        let api = PodiumClient(baseURL: URL(string: server.url)!)
        try await api.signIn(email: "admin", password: TestServer.adminPassword)
        let deck = try await api.waitUntilReady(
            deck: try await api.uploadDeck(pdf: Data(contentsOf: TestServer.demoDeck)).item.id)
        let code = try await api.startSession(deckId: deck.id).code
        let viewer = try await TestSocket.connect(port: server.port, path: "/api/v1/sessions/\(code)/live")
        _ = try await viewer.hello(["role": "viewer"])

        // A deck of 192 pages takes many seconds to render: it is mid-way when the signal comes.
        let big = directory.appendingPathComponent("big.pdf")
        try await Self.repeatDemoDeck(times: 12, into: big)
        let upload = try await api.uploadDeck(pdf: Data(contentsOf: big)).item
        #expect(try await api.deck(id: upload.id).status == "processing")

        server.kill(SIGTERM)
        let reconnect = try await viewer.next(ofType: "reconnect")
        #expect(reconnect?["reason"] as? String == "shutdown")
        // A client that comes straight back is refused at the door or sent away again.
        if let again = try? await TestSocket.connect(port: server.port, path: "/api/v1/sessions/\(code)/live") {
            if let answer = try? await again.hello(["role": "viewer"]) {
                #expect(answer["type"] as? String == "reconnect")
            }
        }
        await server.waitUntilExit()
        #expect(server.process?.termination == .exit(0))

        // The next start finds the deck still to do (not failed) and finishes it; the session is live.
        let next = ServerProcess(dataDirectory: directory)
        try await next.start()
        defer { next.kill(SIGTERM) }
        let again = PodiumClient(baseURL: URL(string: next.url)!)
        try await again.signIn(email: "admin", password: TestServer.adminPassword)
        #expect(try await again.deck(id: upload.id).status == "processing")
        let finished = try await again.waitUntilReady(deck: upload.id)
        #expect(finished.status == "ready")
        #expect(finished.pageCount == 12 * deck.pageCount)
        #expect(try await again.liveSessions().contains { $0.code == code })
    }

    /// The demo deck `times` times over, with qpdf (as the server itself uses it).
    static func repeatDemoDeck(times: Int, into output: URL) async throws {
        try await blocking {
            let qpdf = ChildProcess(
                URL(fileURLWithPath: "/usr/bin/qpdf"),
                arguments: ["--empty", "--pages"] + Array(repeating: TestServer.demoDeck.path, count: times) + [
                    "--", output.path,
                ])
            try qpdf.run()
            guard qpdf.waitUntilExit() == .exit(0) else { throw ServerProcess.Failure("qpdf could not build the test deck") }
        }
    }
}
