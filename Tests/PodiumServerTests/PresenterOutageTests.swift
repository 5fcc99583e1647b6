import Foundation
import PodiumStore
import Synchronization
import Testing

@testable import PodiumServer

/// The database must not freeze a presenter (#39): with PostgreSQL stopped, a presenter's page
/// change waited for the store, and everything behind it on that socket waited too (the viewers
/// got 307 pointer frames of 90,000); the backlog then came through together and was refused
/// `rate_limited`. A held command now waits in the socket's own queue while the pointer flows,
/// and the message budget is charged as messages arrive.
@Suite("Presenter during a database outage", .timeLimit(.minutes(1)))
struct PresenterOutageTests {
    /// The pointer passes a page change that the store holds; the page change is answered once
    /// the store lets it go, and a ping sent behind it is answered after it (a pong still says
    /// that everything before it was answered).
    @Test func thePointerReachesViewersWhileACommandWaitsForTheStore() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let sqlite = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        let gate = StoreGate(arrived: arrival)
        var stores = Stores(sqlite)
        stores.sessions = HeldAppends(stores.sessions, gate: gate)
        try await server.run(stores: stores) { client in
            let (_, code, presenter) = try await client.presentSession()
            let viewer = try await InteractionTests().viewer(client, code: code, identity: InteractionTests.identity(1))

            gate.holdNextAppend.store(true, ordering: .relaxed)
            try await presenter.send(#"{"type":"goto","id":"held","page":2}"#)
            for await _ in arrived { break }  // the page change waits for the store

            for step in 1...5 {
                try await presenter.send(#"{"type":"pointer","x":0.\#(step),"y":0.5}"#)
            }
            // The viewer sees the pointer go on (the newest wins for a slow viewer: the last is there).
            while let message = try await viewer.next(ofType: "pointer"), message["x"] as? Double != 0.5 {}
            try await presenter.send(#"{"type":"ping","t":7}"#)

            gate.release()
            var answers: [String] = []
            while answers.count < 2, let message = try await presenter.nextDurable() {
                switch message["type"] as? String {
                case "ack": answers.append(message["id"] as? String ?? "?")
                case "pong": answers.append("pong \(message["t"] as? Int ?? 0)")
                default: break
                }
            }
            #expect(answers == ["held", "pong 7"])
            while let message = try await viewer.nextDurable() {
                if message["type"] as? String == "page" {
                    #expect(message["page"] as? Int == 2)
                    break
                }
            }
        }
        try await sqlite.close()
    }

    /// Commands sent within the budget over several seconds, held by the store and then let go
    /// together, are all answered `ack`: the budget was charged as each arrived, not as the
    /// backlog was handled (which refused 79 to 361 of them, page changes among them).
    @Test func aBacklogLetGoAtOnceIsNotRefused() async throws {
        let server = TestServer { $0.socketMessageRate = 4 }  // a burst of 8, then 4 a second
        defer { server.removeData() }
        let clock = SteppedClock()
        let sqlite = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        let gate = StoreGate(arrived: arrival)
        var stores = Stores(sqlite)
        stores.sessions = HeldAppends(stores.sessions, gate: gate)
        try await server.run(stores: stores, now: { clock.now }) { client in
            let (_, code, presenter) = try await client.presentSession()
            let viewer = try await InteractionTests().viewer(client, code: code, identity: InteractionTests.identity(1))

            gate.holdNextAppend.store(true, ordering: .relaxed)
            try await presenter.send(#"{"type":"goto","id":"c0","page":2}"#)
            for await _ in arrived { break }
            var ids = ["c0"]
            var page = 2
            // Three seconds of 3 page changes and a pointer move each: 13 messages, more than
            // the burst of 8, but within 4 a second.
            for second in 1...3 {
                for n in 1...3 {
                    page = page == 2 ? 1 : 2
                    let id = "c\(second)-\(n)"
                    ids.append(id)
                    try await presenter.send(#"{"type":"goto","id":"\#(id)","page":\#(page)}"#)
                }
                let x = Double(second) / 10
                try await presenter.send(#"{"type":"pointer","x":\#(x),"y":0.5}"#)
                // The pointer came through: everything sent before it has arrived, and was charged.
                while let message = try await viewer.next(ofType: "pointer"), message["x"] as? Double != x {}
                clock.advance(1)
            }

            gate.release()
            var acked: [String] = []
            while acked.count < ids.count, let message = try await presenter.nextDurable() {
                switch message["type"] as? String {
                case "ack": acked.append(message["id"] as? String ?? "?")
                case "error": Issue.record("a held command was refused: \(message)")
                default: break
                }
                if message["type"] as? String == "error" { break }
            }
            // Answered in the order sent.
            #expect(acked == ids)
        }
        try await sqlite.close()
    }

    /// The storyboard socket likewise: an editor's cursor reaches the other editor while the store
    /// holds that editor's edit, which is answered once let go.
    @Test func aStoryboardEditorsCursorPassesAnEditTheStoreHolds() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let sqlite = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        let gate = StoreGate(arrived: arrival)
        var stores = Stores(sqlite)
        stores.storyboards = HeldStoryboardEdits(stores.storyboards, gate: gate)
        try await server.run(stores: stores) { client in
            let token = try await client.login()
            let project = try await StoryboardServerTests.create(client, token: token)
            let id = try #require(project["id"] as? String)
            let (_, shot, layer) = try StoryboardServerTests.firstShot(project)
            let (ada, _) = try await StoryboardServerTests.editor(client, project: id, token: token)
            let (bob, _) = try await StoryboardServerTests.editor(client, project: id, token: token)

            gate.holdNextAppend.store(true, ordering: .relaxed)
            try await ada.send([
                "type": "edit", "id": "held",
                "edit": ["op": "addStrokes", "shot": shot, "layer": layer, "strokes": [StoryboardServerTests.stroke("s1")]],
            ])
            for await _ in arrived { break }  // the edit waits for the store
            try await ada.send(["type": "cursor", "shot": shot, "x": 0.25, "y": 0.5])
            let cursor = try #require(try await bob.next(ofType: "cursor"))
            #expect(cursor["x"] as? Double == 0.25)
            try await bob.send(#"{"type":"ping","t":3}"#)  // another editor's socket answers at once
            #expect(try await bob.next(ofType: "pong")?["t"] as? Int == 3)

            gate.release()
            #expect(try await ada.next(ofType: "ack")?["id"] as? String == "held")
            #expect(try await bob.next(ofType: "edited")?["by"] as? String == "held")
        }
        try await sqlite.close()
    }

    /// A socket's queue of durable commands is bounded: past the limit a command is not queued
    /// (the socket's inbox waits for room, and the socket stops being read) rather than kept.
    @Test func theQueueOfWaitingCommandsIsBounded() {
        var queue = CommandQueue<Int>()
        #expect(queue.add(1, limit: 2) == .start)
        #expect(queue.add(2, limit: 2) == .queued)
        #expect(queue.add(3, limit: 2) == .full)
        #expect(queue.next() == 1)  // the task took it: one waits
        #expect(queue.add(4, limit: 2) == .queued)
        #expect(queue.add(5, limit: 2) == .full)
        #expect(queue.next() == 2)
        #expect(queue.next() == 4)
        #expect(queue.next() == nil)
        #expect(!queue.running)
        #expect(queue.add(6, limit: 2) == .start)
    }
}
