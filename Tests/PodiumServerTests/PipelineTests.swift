import Foundation
import PodiumStore
import Synchronization
import Testing

@testable import PodiumServer

/// The one command pipeline over the real socket and store: an answer retried with its id counts
/// once, even across a restart; two nodes on one store share a session through the bus and
/// settle a conflicting append by catching up; a hello's store failure is not a refusal.
@Suite("One pipeline, the session bus", .timeLimit(.minutes(2)))
struct PipelineTests {
    func viewer(_ client: Client, code: String, identity: Int) async throws -> (TestSocket, [String: Any]) {
        let socket = try await client.socket(
            code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(identity))"])
        let welcome = try await socket.hello(["role": "viewer"])
        #expect(welcome["type"] as? String == "welcome")
        return (socket, welcome)
    }

    /// Acks until the one for `id`, skipping ephemeral frames.
    func ack(_ socket: TestSocket, _ id: String) async throws -> [String: Any] {
        while let message = try await socket.nextDurable() {
            if message["id"] as? String == id { return message }
        }
        Issue.record("no answer to \(id)")
        return [:]
    }

    @Test(arguments: TestStores.kinds) func aRetriedAnswerCountsOnceEvenAfterARestart(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        let setUp = Mutex<(code: String, pollId: Int)?>(nil)
        try await server.run { client in
            let (_, code, presenter) = try await client.presentSession()
            try await presenter.send(
                #"{"type":"openPoll","id":"p1","poll":{"kind":"choice","question":"Tea?","choices":["Yes","No"]}}"#)
            let pollId = try #require(try await presenter.next(ofType: "pollOpened")?["poll"] as? [String: Any])["id"] as! Int
            setUp.withLock { $0 = (code, pollId) }
            let (ada, _) = try await viewer(client, code: code, identity: 1)
            try await ada.send(#"{"type":"answer","id":"a1","pollId":\#(pollId),"choices":[0]}"#)
            #expect(try await ack(ada, "a1")["type"] as? String == "ack")
            try await ada.send(#"{"type":"answer","id":"a2","pollId":\#(pollId),"choices":[1]}"#)
            #expect(try await ack(ada, "a2")["type"] as? String == "ack")
            // a1's acknowledgement was lost, say: the client sends it again with the same id.
            try await ada.send(#"{"type":"answer","id":"a1","pollId":\#(pollId),"choices":[0]}"#)
            #expect(try await ack(ada, "a1")["type"] as? String == "ack")
            let (again, welcome) = try await viewer(client, code: code, identity: 1)
            #expect((welcome["myAnswers"] as? [String: Any])?["\(pollId)"] as? [String: [Int]] == ["choices": [1]])
            await again.close()
        }
        let (code, pollId) = try #require(setUp.withLock { $0 })
        try await server.run { client in
            let (ada, _) = try await viewer(client, code: code, identity: 1)
            try await ada.send(#"{"type":"answer","id":"a1","pollId":\#(pollId),"choices":[0]}"#)
            #expect(try await ack(ada, "a1")["type"] as? String == "ack")
            let (_, welcome) = try await viewer(client, code: code, identity: 1)
            #expect((welcome["myAnswers"] as? [String: Any])?["\(pollId)"] as? [String: [Int]] == ["choices": [1]])
        }
    }

    /// A bus whose append hints can be held back, as a lost `pg_notify` would be.
    final class LossyBus: SessionBus {
        let base = LocalSessionBus()
        let dropping = Atomic<Bool>(false)

        func subscribe(_ node: any SessionBusNode) async { await base.subscribe(node) }
        func appended(_ hint: AppendedHint) async {
            if !dropping.load(ordering: .relaxed) { await base.appended(hint) }
        }
        func presence(_ update: PresenceUpdate) async { await base.presence(update) }
        func note(_ note: SessionNote) async { await base.note(note) }
    }

    /// Two nodes on one store (on PostgreSQL, a store each on the one database, as two servers
    /// have) and a bus whose hints can be lost.
    static func twoNodes(
        _ kind: StoreKind, _ body: @escaping @Sendable (Client, Client, SQLStore, LossyBus) async throws -> Void
    ) async throws {
        let first = TestServer()
        let second = first.nodeBeside()
        defer {
            first.removeData()
            second.removeData()
        }
        let (store, storeOfB, closeStores) = try await TestStores.openNodes(kind)
        let bus = LossyBus()
        do {
            try await first.run(store: store, bus: bus) { nodeA in
                try await second.run(store: storeOfB, bus: bus) { nodeB in try await body(nodeA, nodeB, store, bus) }
            }
        } catch {
            await closeStores()
            throw error
        }
        await closeStores()
    }

    @Test(arguments: TestStores.kinds) func twoNodesOnOneStoreShareASessionAndSettleAConflictingAppend(_ kind: StoreKind)
        async throws
    {
        try await Self.twoNodes(kind) { nodeA, nodeB, store, bus in
            let (token, code, presenterOnA) = try await nodeA.presentSession()
            let (viewerOnB, _) = try await viewer(nodeB, code: code, identity: 1)
            // B's viewer counts in A's lobby: presence crosses nodes.
            var listed: [[String: Any]] = []
            while listed.first?["viewers"] as? Int != 1 {
                listed = try await nodeA.request(.get, "/api/v1/sessions", token: token).array()
            }
            // A command on A reaches the viewer on B.
            try await presenterOnA.send(#"{"type":"goto","id":"g3","page":3}"#)
            #expect(try await viewerOnB.nextDurable()?["page"] as? Int == 3)

            // A's next hint is lost: B does not know of page 4 when its own presenter acts.
            bus.dropping.store(true, ordering: .relaxed)
            try await presenterOnA.send(#"{"type":"goto","id":"g4","page":4}"#)
            #expect(try await ack(presenterOnA, "g4")["seq"] as? Int == 2)
            let presenterOnB = try await nodeB.socket(code: code)
            _ = try await presenterOnB.hello(["role": "presenter", "token": token])
            try await presenterOnB.send(#"{"type":"goto","id":"g2","page":2}"#)
            // B's append meets seq 2 taken, catches up, decides again: seq 3, nothing forked.
            #expect(try await ack(presenterOnB, "g2")["seq"] as? Int == 3)
            let seen = [try await viewerOnB.nextDurable(), try await viewerOnB.nextDurable()]
            #expect(seen.map { $0?["seq"] as? Int } == [2, 3])
            #expect(seen.map { $0?["page"] as? Int } == [4, 2])
            let stored = try await store.events(sessionId: try #require(try await store.session(code: code)).id, afterSeq: 0)
            #expect(stored.map(\.event.seq) == [1, 2, 3])
        }
    }

    /// A viewer that comes from a node ahead of this one (its hints lost or late) is welcomed
    /// at what it has seen, not before it: the node reads the store first, so no event reaches
    /// the viewer twice.
    @Test(arguments: TestStores.kinds) func aViewerAheadOfTheNodeIsWelcomedAfterItCatchesUp(_ kind: StoreKind)
        async throws
    {
        try await Self.twoNodes(kind) { nodeA, nodeB, store, bus in
            let (_, code, presenterOnA) = try await nodeA.presentSession()
            // B serves the session from seq 0; then A's hints are lost.
            let (early, _) = try await viewer(nodeB, code: code, identity: 1)
            bus.dropping.store(true, ordering: .relaxed)
            try await presenterOnA.send(#"{"type":"goto","id":"g3","page":3}"#)
            try await presenterOnA.send(#"{"type":"goto","id":"g4","page":4}"#)
            #expect(try await ack(presenterOnA, "g4")["seq"] as? Int == 2)
            // A viewer that saw both on A reconnects to B.
            let socket = try await nodeB.socket(
                code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(2))"])
            let welcome = try await socket.hello(["role": "viewer", "lastSeq": 2])
            #expect(welcome["seq"] as? Int == 2)
            #expect((welcome["events"] as? [Any])?.isEmpty ?? true)
            bus.dropping.store(false, ordering: .relaxed)
            try await presenterOnA.send(#"{"type":"goto","id":"g5","page":5}"#)
            #expect(try await socket.nextDurable()?["seq"] as? Int == 3)
            // The viewer B had before gets everything once, in order.
            let seen = [try await early.nextDurable(), try await early.nextDurable(), try await early.nextDurable()]
            #expect(seen.map { $0?["seq"] as? Int } == [1, 2, 3])
        }
    }

    @Test func aHelloWhoseTokenCannotBeCheckedIsToldTheServerIsUnavailable() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let sqlite = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let users = FailingTokenLookups(sqlite)
        var stores = Stores(sqlite)
        stores.users = users
        try await server.run(stores: stores) { client in
            let (token, code, _) = try await client.presentSession()
            users.failing.store(true, ordering: .relaxed)
            let presenter = try await client.socket(code: code)
            let refused = try await presenter.hello(["role": "presenter", "token": token])
            #expect(refused["type"] as? String == "error")
            #expect(refused["code"] as? String == "unavailable")
        }
        try await sqlite.close()
    }

    @Test func aSessionWithNoDeckRunsPollsAndRefusesStageCommands() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        try await server.run(store: store) { client in
            let token = try await client.login()
            let admin = try #require(try await store.user(email: "admin"))
            try await store.insertSession(
                SessionRecord(
                    id: "s_nodeck", code: "QANDA2", title: "Questions only", deckId: nil, presenterId: admin.id,
                    passcodeHash: nil, allowDownload: false, createdAt: Date()))
            let presenter = try await client.socket(code: "QANDA2")
            let welcome = try await presenter.hello(["role": "presenter", "token": token])
            #expect((welcome["session"] as? [String: Any])?["pageCount"] as? Int == 0)
            try await presenter.send(#"{"type":"goto","id":"g","page":1}"#)
            #expect(try await ack(presenter, "g")["code"] as? String == "no_deck")
            try await presenter.send(#"{"type":"openPoll","id":"p","poll":{"kind":"open","question":"Ideas?"}}"#)
            #expect(try await presenter.next(ofType: "pollOpened") != nil)
        }
        try await store.close()
    }
}
