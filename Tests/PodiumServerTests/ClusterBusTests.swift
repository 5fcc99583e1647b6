import Foundation
import Logging
import PodiumCore
import PodiumStore
import PostgresKit
import Synchronization
import Testing

@testable import PodiumServer

/// Two nodes serving one session through the session bus: in-process with ``LocalSessionBus``
/// (always), and with the real ``PostgresSessionBus`` when `PODIUM_TEST_DATABASE_URL` names a
/// PostgreSQL to use (otherwise those runs are skipped). Events in order on every node, commands
/// decided on both nodes at once counted once each, the audience's answers and questions from
/// every node in one result, the pointer across nodes, and, on PostgreSQL, a listening connection
/// killed and a hint lost: the events still arrive, in order.
@Suite("Several nodes, one session", .serialized, .timeLimit(.minutes(1)))
struct ClusterBusTests {
    static let databaseURL = ProcessInfo.processInfo.environment["PODIUM_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    enum Transport: String, CustomTestStringConvertible, Sendable {
        case local, postgres
        var testDescription: String { rawValue }
    }

    static let transports: [Transport] = databaseURL == nil ? [.local] : [.local, .postgres]

    /// The nodes' shared store: SQLite in memory with the local bus, a database of its own on PostgreSQL.
    static func sharedStore(_ transport: Transport) async throws -> (store: SQLStore, cleanUp: @Sendable () async -> Void) {
        try await TestStores.open(transport == .local ? .sqlite : .postgres)
    }

    /// A bus for one node: the shared local one, or a PostgreSQL bus of its own on this test's channel.
    static func bus(
        _ transport: Transport, shared: LocalSessionBus, channel: String,
        configure: (inout PostgresSessionBus.Settings) -> Void = { _ in }
    ) throws -> any SessionBus {
        switch transport {
        case .local: return shared
        case .postgres:
            var settings = PostgresSessionBus.Settings()
            settings.channel = channel
            configure(&settings)
            return try PostgresSessionBus(url: try #require(databaseURL), settings: settings, logger: TestServer.logger())
        }
    }

    static func channel() -> String { "podium_test_" + UUID().uuidString.prefix(8).lowercased() }

    /// Runs `body` with two nodes on one store: `(nodeA, nodeB, store)`.
    static func twoNodes(
        _ transport: Transport, configureB: (inout PostgresSessionBus.Settings) -> Void = { _ in },
        _ body: @escaping @Sendable (Client, Client, SQLStore, [any SessionBus]) async throws -> Void
    ) async throws {
        let first = TestServer()
        let second = first.nodeBeside()
        defer {
            first.removeData()
            second.removeData()
        }
        let (store, cleanUp) = try await sharedStore(transport)
        let local = LocalSessionBus()
        let channel = channel()
        let busA = try bus(transport, shared: local, channel: channel)
        let busB = try bus(transport, shared: local, channel: channel, configure: configureB)
        try await closing(store, then: cleanUp) {
            try await first.run(store: store, bus: busA) { nodeA in
                try await second.run(store: store, bus: busB) { nodeB in
                    try await waitUntil("both buses listen") {
                        [busA, busB].allSatisfy { ($0 as? PostgresSessionBus)?.isListening ?? true }
                    }
                    try await body(nodeA, nodeB, store, [busA, busB])
                }
            }
        }
    }

    /// Signs in, puts a six-page deck in the store as if ingested (no PDF work: these tests are
    /// about the bus), starts a session of it and joins as its presenter.
    static func presentSession(_ client: Client, store: SQLStore) async throws -> (
        token: String, code: String, presenter: TestSocket
    ) {
        let token = try await client.login()
        let admin = try #require(try await store.user(email: "admin"))
        let deck = DeckRecord(
            id: "d_" + UUID().uuidString.prefix(12).lowercased(), ownerId: admin.id, folderId: nil, title: "Cluster",
            status: .ready, sourceHash: "none.pdf", sourceBytes: 1, pageCount: 6, createdAt: Date())
        try await store.insertDeck(deck)
        try await store.completeDeck(
            deck,
            pages: (1...6).map {
                PageRecord(
                    deckId: deck.id, number: $0, width: 1600, height: 900, text: "", largeImage: "none.jpg",
                    mediumImage: "none.jpg", thumbnailImage: "none.jpg")
            })
        let code = try #require(try await client.startSession(deckId: deck.id, token: token)["code"] as? String)
        return (token, code, try await presenter(client, code: code, token: token))
    }

    static func viewer(_ client: Client, code: String, identity: Int) async throws -> TestSocket {
        let socket = try await client.socket(
            code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(identity))"])
        let welcome = try await socket.hello(["role": "viewer"])
        #expect(welcome["type"] as? String == "welcome")
        return socket
    }

    static func presenter(_ client: Client, code: String, token: String) async throws -> TestSocket {
        let socket = try await client.socket(code: code)
        #expect(try await socket.hello(["role": "presenter", "token": token])["type"] as? String == "welcome")
        return socket
    }

    /// The durable messages of `socket` until `count` events arrived (acks and errors skipped).
    static func events(_ socket: TestSocket, count: Int) async throws -> [[String: Any]] {
        var events: [[String: Any]] = []
        while events.count < count, let message = try await socket.nextDurable() {
            if message["seq"] != nil, message["type"] as? String != "ack" { events.append(message) }
        }
        return events
    }

    static func storedEvents(_ store: SQLStore, code: String) async throws -> [StoredEvent] {
        let session = try #require(try await store.session(code: code))
        return try await store.events(sessionId: session.id, afterSeq: 0)
    }

    // MARK: Tests

    @Test(arguments: transports)
    func aViewerOnBSeesTheEventsOfAInOrder(transport: Transport) async throws {
        try await Self.twoNodes(transport) { nodeA, nodeB, store, _ in
            let (_, code, presenter) = try await Self.presentSession(nodeA, store: store)
            let viewer = try await Self.viewer(nodeB, code: code, identity: 1)
            let pages = (0..<20).map { $0 % 2 == 0 ? 2 : 3 }
            for (index, page) in pages.enumerated() {
                try await presenter.send(#"{"type":"goto","id":"g\#(index)","page":\#(page)}"#)
            }
            let seen = try await Self.events(viewer, count: pages.count)
            #expect(seen.map { $0["seq"] as? Int } == Array(1...pages.count))
            #expect(seen.map { $0["page"] as? Int } == pages)
            #expect(try await Self.storedEvents(store, code: code).map(\.event.seq) == Array(1...pages.count))
        }
    }

    @Test(arguments: transports)
    func commandsDecidedOnBothNodesAtOnceTakeEffectOnceEach(transport: Transport) async throws {
        try await Self.twoNodes(transport) { nodeA, nodeB, store, _ in
            let (token, code, presenterA) = try await Self.presentSession(nodeA, store: store)
            let presenterB = try await Self.presenter(nodeB, code: code, token: token)
            let viewerA = try await Self.viewer(nodeA, code: code, identity: 1)
            let viewerB = try await Self.viewer(nodeB, code: code, identity: 2)
            let perNode = 15
            // Every open poll is an event: both presenters open polls as fast as they can, the two
            // nodes deciding at the same moment.
            func openPoll(_ socket: TestSocket, _ id: String) async throws {
                try await socket.send(
                    #"{"type":"openPoll","id":"\#(id)","poll":{"kind":"choice","question":"\#(id)?","choices":["Yes","No"]}}"#)
            }
            for index in 0..<perNode {
                try await openPoll(presenterA, "a\(index)")
                try await openPoll(presenterB, "b\(index)")
            }
            func acks(_ socket: TestSocket) async throws -> [String: Int] {
                var acks: [String: Int] = [:]
                while acks.count < perNode, let message = try await socket.nextDurable() {
                    guard let id = message["id"] as? String, message["seq"] == nil || message["type"] as? String == "ack" else {
                        continue
                    }
                    #expect(message["type"] as? String == "ack", "\(id): \(message)")
                    acks[id] = message["seq"] as? Int ?? -1
                }
                return acks
            }
            let acks = try await acks(presenterA).merging(try await acks(presenterB)) { first, _ in first }
            #expect(acks.count == 2 * perNode)
            // No seq used twice, each command once, in the table and on both nodes.
            #expect(Set(acks.values).count == 2 * perNode)
            let stored = try await Self.storedEvents(store, code: code)
            #expect(stored.map(\.event.seq) == Array(1...(2 * perNode)))
            #expect(Set(stored.compactMap(\.commandID)).count == 2 * perNode)
            let onA = try await Self.events(viewerA, count: 2 * perNode)
            let onB = try await Self.events(viewerB, count: 2 * perNode)
            let table = stored.map { "\($0.event.seq)|\($0.event.type)" }
            #expect(onA.map { "\($0["seq"] as? Int ?? -1)|\($0["type"] as? String ?? "")" } == table)
            #expect(onB.map { "\($0["seq"] as? Int ?? -1)|\($0["type"] as? String ?? "")" } == table)
        }
    }

    @Test(arguments: transports)
    func answersAndQuestionsFromEveryNodeEndUpInOneResult(transport: Transport) async throws {
        try await Self.twoNodes(transport) { nodeA, nodeB, store, _ in
            let (token, code, presenter) = try await Self.presentSession(nodeA, store: store)
            let ada = try await Self.viewer(nodeB, code: code, identity: 1)
            let bob = try await Self.viewer(nodeB, code: code, identity: 2)
            let cyd = try await Self.viewer(nodeA, code: code, identity: 3)
            try await presenter.send(
                #"{"type":"openPoll","id":"p1","poll":{"kind":"choice","question":"Tea?","choices":["Yes","No"]}}"#)
            let pollId = try #require(try await presenter.next(ofType: "pollOpened")?["poll"] as? [String: Any])["id"] as! Int
            // Viewer numbers stay unique across nodes.
            let numbers = try await store.viewers(sessionId: try #require(try await store.session(code: code)).id).map(\.number)
            #expect(numbers.sorted() == [1, 2, 3])
            for (socket, choice) in [(ada, 0), (bob, 1), (cyd, 0)] {
                // Wait for the poll to reach the viewer's node first.
                _ = try await socket.next(ofType: "pollOpened")
                try await socket.send(#"{"type":"answer","id":"a1","pollId":\#(pollId),"choices":[\#(choice)]}"#)
                #expect(try await socket.next(ofType: "ack")?["id"] as? String == "a1")
            }
            try await ada.send(#"{"type":"ask","id":"q1","text":"Milk first?"}"#)
            _ = try await ada.next(ofType: "ack")
            // The host on A sees B's answers and question.
            var tally: [String: Any]?
            repeat { tally = try await presenter.next(ofType: "results") } while tally != nil && tally?["answered"] as? Int != 3
            #expect(tally?["counts"] as? [Int] == [2, 1])
            while let list = try await presenter.next(ofType: "questions"),
                (list["questions"] as? [[String: Any]])?.first?["text"] as? String != "Milk first?"
            {}
            // Ada's browser reconnects to A and sends her answer again with its id: counted once.
            let adaOnA = try await Self.viewer(nodeA, code: code, identity: 1)
            try await adaOnA.send(#"{"type":"answer","id":"a1","pollId":\#(pollId),"choices":[0]}"#)
            let again = try await adaOnA.next(ofType: "ack")
            #expect(again?["id"] as? String == "a1")
            let report = try await nodeA.request(.get, "/api/v1/sessions/\(code)/report", token: token).object()
            let poll = try #require((report["polls"] as? [[String: Any]])?.first)
            #expect(poll["answered"] as? Int == 3)
            #expect(poll["counts"] as? [Int] == [2, 1])
            #expect((report["questions"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test(arguments: transports)
    func viewersJoiningOnBothNodesAtOnceGetOneGuestNumberEach(transport: Transport) async throws {
        try await Self.twoNodes(transport) { nodeA, nodeB, store, _ in
            let (_, code, presenter) = try await Self.presentSession(nodeA, store: store)
            let count = 12
            // Each node would have numbered its own newcomers 1, 2, ...: the store numbers them.
            // (Each viewer's socket may close once welcomed: the roster keeps who came.)
            let joined = try await withThrowingTaskGroup(of: Bool.self) { group in
                for identity in 1...count {
                    group.addTask {
                        _ = try await Self.viewer(identity.isMultiple(of: 2) ? nodeA : nodeB, code: code, identity: identity)
                        return true
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(joined == count)
            let session = try #require(try await store.session(code: code))
            #expect(try await store.viewers(sessionId: session.id).map(\.number) == Array(1...count))
            // The host on A lists every viewer of both nodes, each with a guest number of their own.
            let list = try await ViewerListTests.latestList(presenter) { list in
                list.count == count && Set(list.compactMap { $0["name"] as? String }).count == count
            }
            #expect(Set(list.compactMap { $0["name"] as? String }) == Set((1...count).map { "Guest \($0)" }))
        }
    }

    @Test(arguments: transports)
    func aPointerFromAReachesAViewerOnB(transport: Transport) async throws {
        try await Self.twoNodes(transport) { nodeA, nodeB, store, _ in
            let (_, code, presenter) = try await Self.presentSession(nodeA, store: store)
            let viewer = try await Self.viewer(nodeB, code: code, identity: 1)
            try await presenter.send(#"{"type":"pointer","x":0.25,"y":0.75}"#)
            let pointer = try await viewer.next(ofType: "pointer")
            #expect(pointer?["x"] as? Double == 0.25)
            #expect(pointer?["visible"] as? Bool == true)
        }
    }

    @Test(arguments: transports)
    func accessChangedOnANodeHoldsOnEveryNode(transport: Transport) async throws {
        try await Self.twoNodes(transport) { nodeA, nodeB, store, _ in
            let (token, code, _) = try await Self.presentSession(nodeA, store: store)
            // B serves the session already (a viewer there), then A sets a passcode.
            _ = try await Self.viewer(nodeB, code: code, identity: 1)
            let changed = try await nodeA.request(
                .patch, "/api/v1/sessions/\(code)", token: token, json: #"{"passcode":"4711"}"#)
            #expect(changed.status == .ok)
            try await waitUntil("B asks for the passcode") {
                let socket = try await nodeB.socket(
                    code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(2))"])
                let refused = try await socket.hello(["role": "viewer"])["code"] as? String == "passcode_required"
                await socket.close()
                return refused
            }
        }
    }

    @Test(arguments: transports)
    func aCoHostTakenOffOnANodeLosesTheirConsoleOnAnother(transport: Transport) async throws {
        try await Self.twoNodes(transport) { nodeA, nodeB, store, _ in
            let (token, code, presenter) = try await Self.presentSession(nodeA, store: store)
            let accounts = Accounts(store: store, cost: 4, tokenLifetime: 3600, now: { Date() })
            try await store.insertUser(
                UserRecord(
                    id: "u_grace", email: "grace@example.org", name: "Grace", role: .presenter,
                    passwordHash: try await accounts.hash("pw-grace"), createdAt: Date()))
            let hosts = "/api/v1/sessions/\(code)/hosts"
            let added = try await nodeA.request(.post, hosts, token: token, json: #"{"email":"grace@example.org"}"#)
            #expect(added.status == .created)
            // Grace's console is on B; the presenter takes her off on A.
            let grace = try await Self.presenter(
                nodeB, code: code, token: try await nodeB.login(email: "grace@example.org", password: "pw-grace"))
            #expect(try await nodeA.request(.delete, "\(hosts)/u_grace", token: token).status == .noContent)
            try await grace.waitForClose()
            // The presenter's own console on A stays.
            try await presenter.barrier()
            #expect(!presenter.closed)
        }
    }

    // MARK: PostgreSQL only

    static func terminate(backend pid: Int) async throws {
        let configuration = try SQLPostgresConfiguration(url: try #require(databaseURL)).coreConfiguration
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: TestServer.logger())
        do {
            _ = try await connection.query("SELECT pg_terminate_backend(\(Int32(pid)))", logger: TestServer.logger()).collect()
        } catch {
            Issue.record("could not terminate the listening connection: \(String(reflecting: error))")
        }
        try await connection.close()
    }

    @Test(.enabled(if: databaseURL != nil))
    func aNodeWhoseListeningConnectionWasKilledReconnectsAndCatchesUp() async throws {
        try await Self.twoNodes(
            .postgres,
            configureB: {
                // Slow to come back and no periodic check in time: only the catch-up after the
                // reconnection can deliver what was stored meanwhile.
                $0.reconnectDelay = .seconds(1)
                $0.checkInterval = .seconds(600)
            }
        ) { nodeA, nodeB, store, buses in
            let busB = try #require(buses[1] as? PostgresSessionBus)
            let (token, code, presenter) = try await Self.presentSession(nodeA, store: store)
            let viewer = try await Self.viewer(nodeB, code: code, identity: 1)
            let hostOnB = try await Self.presenter(nodeB, code: code, token: token)
            let viewerOnA = try await Self.viewer(nodeA, code: code, identity: 2)
            try await presenter.send(
                #"{"type":"openPoll","id":"p1","poll":{"kind":"choice","question":"Tea?","choices":["Yes","No"]}}"#)
            let pollId = try #require(try await viewer.next(ofType: "pollOpened")?["poll"] as? [String: Any])["id"] as! Int

            try await Self.terminate(backend: try #require(busB.listenerBackendPID))
            try await waitUntil("B notices") { !busB.isListening }
            // Meanwhile events and an answer on A: their hint and note are lost to B.
            for (index, page) in [3, 4, 5].enumerated() {
                try await presenter.send(#"{"type":"goto","id":"h\#(index)","page":\#(page)}"#)
                _ = try await presenter.next(ofType: "ack")
            }
            _ = try await viewerOnA.next(ofType: "pollOpened")
            try await viewerOnA.send(#"{"type":"answer","id":"a1","pollId":\#(pollId),"choices":[1]}"#)
            _ = try await viewerOnA.next(ofType: "ack")
            #expect(try await Self.storedEvents(store, code: code).count == 4)
            let caughtUp = try await Self.events(viewer, count: 3)
            #expect(caughtUp.map { $0["seq"] as? Int } == [2, 3, 4])
            #expect(caughtUp.map { $0["page"] as? Int } == [3, 4, 5])
            // The host on B sees the answer given on A while B was not listening.
            var tally: [String: Any]?
            repeat { tally = try await hostOnB.next(ofType: "results") } while tally != nil && tally?["answered"] as? Int != 1
            #expect(tally?["counts"] as? [Int] == [0, 1])
            #expect(busB.listenCount == 2)
        }
    }

    @Test(.enabled(if: databaseURL != nil))
    func thePeriodicCheckDeliversAnEventWhoseHintWasLost() async throws {
        let first = TestServer()
        let second = first.nodeBeside()
        defer {
            first.removeData()
            second.removeData()
        }
        let (store, cleanUp) = try await Self.sharedStore(.postgres)
        var settings = PostgresSessionBus.Settings()
        settings.channel = Self.channel()
        settings.checkInterval = .milliseconds(300)
        let busB = try PostgresSessionBus(url: try #require(Self.databaseURL), settings: settings, logger: TestServer.logger())
        // Node A's hints go nowhere (a bus of its own): every one of them is lost to B.
        try await closing(store, then: cleanUp) {
            try await first.run(store: store, bus: LocalSessionBus()) { nodeA in
                try await second.run(store: store, bus: busB) { nodeB in
                    let (_, code, presenter) = try await Self.presentSession(nodeA, store: store)
                    let viewer = try await Self.viewer(nodeB, code: code, identity: 1)
                    try await presenter.send(#"{"type":"goto","id":"g1","page":2}"#)
                    try await presenter.send(#"{"type":"goto","id":"g2","page":3}"#)
                    let seen = try await Self.events(viewer, count: 2)
                    #expect(seen.map { $0["seq"] as? Int } == [1, 2])
                    #expect(seen.map { $0["page"] as? Int } == [2, 3])
                }
            }
        }
    }

    @Test func metricsAreServedInThePrometheusFormat() async throws {
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let server = TestServer {
            $0.metricsAddress = MetricsAddress(host: "127.0.0.1", port: 0)
            $0.onMetricsListening = { listening.yield($0) }
        }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let code = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            try await presenter.send(#"{"type":"goto","id":"g1","page":2}"#)
            _ = try await presenter.next(ofType: "ack")
            // Not on the address the audience reaches.
            #expect(try await client.request(.get, "/metrics").status == .notFound)
            var iterator = ports.makeAsyncIterator()
            let metrics = TestHTTPClient(port: try #require(await iterator.next()))
            defer { Task { await metrics.close() } }
            let response = try await metrics.execute(.get, "/metrics")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = String(buffer: response.body)
            for name in [
                "podium_connections", "podium_live_sessions", "podium_events_appended_total", "podium_append_retries_total",
                "podium_fanout_seconds", "podium_hint_lag_seconds", "podium_store_available",
            ] {
                #expect(text.contains(name), "\(name) missing")
            }
            let connections = text.split(separator: "\n").first { $0.hasPrefix("podium_connections ") }
            #expect(connections.flatMap { Double($0.split(separator: " ").last ?? "") }.map { $0 >= 1 } == true)
            // Nothing else there.
            #expect(try await metrics.execute(.get, "/api/v1/me").status == .notFound)
        }
    }
}
