import Foundation
import NIOCore
import NIOPosix
import PodiumStore
import Synchronization
import Testing

@testable import PodiumServer

/// Hellos take turns (``Admission``): a limited number run at once, the rest wait in order, a
/// turn ends when its hello is handled, and a hello stuck on the store lets the next one in
/// after its patience.
@Suite("Hello admission", .timeLimit(.minutes(2)))
struct HelloAdmissionTests {
    /// Records the order in which turns start and keeps their tickets.
    final class Turns: Sendable {
        private let state = Mutex<[(name: String, ticket: Admission.Ticket)]>([])
        private let started: AsyncStream<String>.Continuation
        let starts: AsyncStream<String>

        init() {
            (starts, started) = AsyncStream.makeStream(of: String.self)
        }

        func start(_ name: String) -> Admission.Start {
            { ticket in
                self.state.withLock { $0.append((name, ticket)) }
                self.started.yield(name)
            }
        }

        var names: [String] { state.withLock { $0.map(\.name) } }
        func ticket(_ name: String) -> Admission.Ticket? { state.withLock { $0.first { $0.name == name }?.ticket } }
    }

    static let loop = MultiThreadedEventLoopGroup.singleton.next()

    @Test func atMostTheLimitRunAndTheRestStartInTheOrderTheyCame() async throws {
        let admission = Admission(limit: 2, patience: .seconds(600))
        let turns = Turns()
        for name in ["a", "b", "c", "d", "e"] { admission.enter(on: Self.loop, turns.start(name)) }
        #expect(turns.names == ["a", "b"])
        #expect(admission.counts == (running: 2, waiting: 3))

        try #require(turns.ticket("b")).release()
        #expect(turns.names == ["a", "b", "c"])
        // A ticket given back twice lets only one more in.
        try #require(turns.ticket("b")).release()
        #expect(turns.names == ["a", "b", "c"])
        #expect(admission.counts == (running: 2, waiting: 2))

        for name in ["a", "c", "d", "e"] { try #require(turns.ticket(name)).release() }
        #expect(turns.names == ["a", "b", "c", "d", "e"])
        #expect(admission.counts == (running: 0, waiting: 0))
    }

    @Test func aTurnThatIsNeverGivenBackEndsAfterItsPatience() async throws {
        let admission = Admission(limit: 1, patience: .seconds(1))
        let turns = Turns()
        var starts = turns.starts.makeAsyncIterator()
        for name in ["stuck", "next", "third"] { admission.enter(on: Self.loop, turns.start(name)) }
        #expect(await starts.next() == "stuck")
        #expect(await starts.next() == "next")
        // The stuck one finishing late does not free a second place: "third" still waits for
        // "next" (whose own patience is a second away).
        try #require(turns.ticket("stuck")).release()
        #expect(turns.names == ["stuck", "next"])
        try #require(turns.ticket("next")).release()
        #expect(turns.names == ["stuck", "next", "third"])
        try #require(turns.ticket("third")).release()
        #expect(admission.counts == (running: 0, waiting: 0))
    }

    /// Twelve times the limit say hello at once; a quarter of them hang up right after. Every
    /// one that stayed is welcomed, and the server still takes newcomers.
    @Test func aCrowdLargerThanTheLimitIsWelcomedEvenWhenSomeHangUpWhileWaiting() async throws {
        let server = TestServer { $0.helloConcurrency = 2 }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let code = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
            let path = "/api/v1/sessions/\(code)/live"
            let welcomed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        let socket = try await RawWebSocket.connect(port: client.port, path: path)
                        try await socket.send(#"{"type":"hello","role":"viewer"}"#)
                        if index % 4 == 0 {
                            socket.close()
                            return false
                        }
                        defer { socket.close() }
                        while let text = await socket.nextText() {
                            if text.contains(#""type":"welcome""#) { return true }
                        }
                        return false
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(welcomed == 18)
            let late = try await client.socket(code: code)
            #expect(try await late.hello(["role": "viewer"])["type"] as? String == "welcome")
        }
    }

    /// One hello at a time, and that one is stuck on the store: the next viewer is still
    /// welcomed (after the stuck one's patience), and so is the stuck one once the store answers.
    /// Both waited longer than the hello deadline, which a hello that has arrived has met.
    @Test func aHelloStuckOnTheStoreDoesNotKeepOthersOut() async throws {
        let server = TestServer {
            $0.helloConcurrency = 1
            // The deadline comes well before the stuck hello gives up its turn. (Not much shorter
            // than a few seconds: in a loaded test run a client took over a second to say hello.)
            $0.liveHelloTimeout = .seconds(3)
            $0.helloPatience = .seconds(8)
        }
        defer { server.removeData() }
        let sqlite = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let held = InteractionTests.identity(1)
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        let gate = StoreGate(arrived: arrival)
        var stores = Stores(sqlite)
        stores.notes = HeldVisits(stores.notes, holding: held, gate: gate)
        try await server.run(stores: stores) { client in
            let (_, code, _) = try await client.presentSession()
            let stuck = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(held)"])
            try await stuck.send(["type": "hello", "role": "viewer"])
            var arrivals = arrived.makeAsyncIterator()
            _ = await arrivals.next()

            let other = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(2))"])
            #expect(try await other.hello(["role": "viewer"])["type"] as? String == "welcome")

            gate.release()
            #expect(try await stuck.next(ofType: "welcome") != nil)
        }
        try await sqlite.close()
    }

    @Test func aSocketThatSaysNothingIsToldToSayHelloAndClosed() async throws {
        let server = TestServer { $0.liveHelloTimeout = .seconds(3) }
        defer { server.removeData() }
        try await server.run { client in
            let (_, code, _) = try await client.presentSession()
            let silent = try await client.socket(code: code)
            #expect(try await silent.next()?["code"] as? String == "hello_required")
            try await silent.waitForClose()
        }
    }
}
