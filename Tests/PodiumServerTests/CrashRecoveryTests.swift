import Foundation
import HTTPTypes
import PodiumClient
import Testing

/// The real binary killed with SIGKILL mid-session, and stopped with SIGTERM.
@Suite("Crash recovery and shutdown", .serialized, .timeLimit(.minutes(3)))
struct CrashRecoveryTests {
    static func identity(_ n: Int) -> String { InteractionTests.identity(n) }

    @Test func nothingIsLostOrDuplicatedWhenTheServerIsKilled() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = ServerProcess(dataDirectory: directory)
        try first.start()
        var api = PodiumAPI(baseURL: URL(string: first.url + "/")!)
        try await api.signIn(email: "admin", password: TestServer.adminPassword)
        let deck = try await api.waitUntilProcessed(deckId: try await api.upload(pdf: Data(contentsOf: TestServer.demoDeck)).id)
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
        first.waitUntilExit()

        let second = ServerProcess(dataDirectory: directory)
        try second.start()
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

    @Test func sigtermTellsClientsToReconnectAndExits() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-term-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = ServerProcess(dataDirectory: directory)
        try server.start()
        var api = PodiumAPI(baseURL: URL(string: server.url + "/")!)
        try await api.signIn(email: "admin", password: TestServer.adminPassword)
        let deck = try await api.waitUntilProcessed(deckId: try await api.upload(pdf: Data(contentsOf: TestServer.demoDeck)).id)
        let code = try await api.startSession(deckId: deck.id).code
        let viewer = try await TestSocket.connect(port: server.port, path: "/api/v1/sessions/\(code)/live")
        _ = try await viewer.hello(["role": "viewer"])
        server.kill(SIGTERM)
        let reconnect = try await viewer.next(ofType: "reconnect")
        #expect(reconnect?["reason"] as? String == "shutdown")
        server.waitUntilExit()
        #expect(server.process.terminationReason == .exit)
    }
}
