import Foundation
import Testing

/// The real binary killed with SIGKILL while a storyboard is edited: every acknowledged edit is
/// there after the restart, and edits that were sent but not acknowledged, resent by the editor
/// with their ids (as the browser does), count once.
@Suite("Storyboard editing survives a killed server", .serialized, .timeLimit(.minutes(2)))
struct StoryboardCrashTests {
    @Test func nothingConfirmedIsLostAndResentEditsCountOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-sb-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = ServerProcess(dataDirectory: directory)
        try await first.start()
        let login = try await IdleConnectionTests.call(
            "POST", port: first.port, "/api/v1/auth/login",
            body: Data(#"{"email":"admin","password":"\#(TestServer.adminPassword)"}"#.utf8), type: "application/json")
        let token = try #require(login["token"] as? String)
        let project = try await IdleConnectionTests.call(
            "POST", port: first.port, "/api/v1/storyboards", token: token, body: Data(#"{"title":"Heist"}"#.utf8),
            type: "application/json")
        let id = try #require(project["id"] as? String)
        let (_, shot, layer) = try StoryboardServerTests.firstShot(project)
        func edit(_ n: Int) -> [String: Any] {
            [
                "type": "edit", "id": "e\(n)",
                "edit": [
                    "op": "addStrokes", "shot": shot, "layer": layer,
                    "strokes": [StoryboardServerTests.stroke("s\(n)", x: Double(n) / 100)],
                ],
            ]
        }

        let editor = try await TestSocket.connect(port: first.port, path: "/api/v1/storyboards/\(id)/live")
        #expect(try await editor.hello(["token": token])["type"] as? String == "welcome")
        for n in 1...20 { try await editor.send(edit(n)) }
        var acknowledged = 0
        while acknowledged < 20 { if try await editor.next(ofType: "ack") != nil { acknowledged += 1 } }
        // Sent, then the server dies before (or while) answering.
        for n in 21...30 { try await editor.send(edit(n)) }
        first.kill(SIGKILL)
        await first.waitUntilExit()

        let second = ServerProcess(dataDirectory: directory)
        try await second.start()
        defer { second.kill(SIGTERM) }
        let again = try await TestSocket.connect(port: second.port, path: "/api/v1/storyboards/\(id)/live")
        let welcome = try await again.hello(["token": token])
        let stored = try #require(welcome["seq"] as? Int)
        #expect((20...30).contains(stored), "acknowledged edits are stored: seq \(stored)")
        // The editor resends everything it had no acknowledgement for.
        for n in 21...30 { try await again.send(edit(n)) }
        var seqs: [Int] = []
        while seqs.count < 10 { if let ack = try await again.next(ofType: "ack") { seqs.append(ack["seq"] as? Int ?? -1) } }
        #expect(seqs.max() == 30)
        let shown = try await IdleConnectionTests.call("GET", port: second.port, "/api/v1/storyboards/\(id)", token: token)
        let scene = try #require(((shown["content"] as? [String: Any])?["scenes"] as? [[String: Any]])?.first)
        let layers = try #require((scene["shots"] as? [[String: Any]])?.first?["layers"] as? [[String: Any]])
        let ids = try #require(layers.first?["strokes"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(ids.count == 30 && Set(ids) == Set((1...30).map { "s\($0)" }))
    }
}
