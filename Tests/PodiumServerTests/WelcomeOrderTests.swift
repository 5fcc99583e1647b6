import Foundation
import HTTPTypes
import PodiumStore
import Testing

@testable import PodiumServer

/// The answer to hello is the welcome (or a hello error): protocol.md says so, and
/// `LiveSession.join` promises to queue the welcome "as the first frame, so no event can overtake
/// it". Found by the frame fuzz: a viewer's join adds the socket to the session and then awaits
/// the store (attendance, the viewer list) before it queues the welcome, so whatever the session
/// sends meanwhile (events, the pointer, ink) reaches that socket before its welcome.
@Suite("Welcome order", .timeLimit(.minutes(2)))
struct WelcomeOrderTests {
    @Test func theWelcomeComesFirstEvenWhenThePresenterActsDuringAJoin() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let sqlite = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let held = InteractionTests.identity(4)
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        let gate = StoreGate(arrived: arrival)
        var stores = Stores(sqlite)
        stores.notes = HeldVisits(stores.notes, holding: held, gate: gate)
        try await server.run(stores: stores) { client in
            let (token, code, presenter) = try await client.presentSession()

            // A viewer says hello; its join stops at the store, halfway.
            let viewer = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(held)"])
            try await viewer.send(["type": "hello", "role": "viewer"])
            var arrivals = arrived.makeAsyncIterator()
            _ = await arrivals.next()

            // Meanwhile the presenter turns the page (and is answered: the event has gone out).
            try await presenter.send(#"{"type":"goto","id":"during-join","page":2}"#)
            _ = try await presenter.next(ofType: "ack")
            gate.release()

            let first = try #require(try await viewer.next())
            #expect(first["type"] as? String == "welcome", "the first frame after hello was \(first)")
            // Nothing is lost either way: the welcome's snapshot has the page.
            var welcome = first
            while welcome["type"] as? String != "welcome", let next = try await viewer.next() { welcome = next }
            #expect((welcome["snapshot"] as? [String: Any])?["page"] as? Int == 2)
        }
        try await sqlite.close()
    }
}
