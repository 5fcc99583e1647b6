import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A phone that vanished without closing its socket (out of range, battery dead) is found out by
/// the server's pings; a client that answers them stays.
@Suite("Live socket keep-alive", .timeLimit(.minutes(3)))
struct HeartbeatTests {
    @Test func aSilentClientIsPingedThenClosedAndAnAnsweringOneStays() async throws {
        let server = TestServer {
            $0.livePingInterval = .milliseconds(300)
            $0.liveSilenceLimit = .seconds(5)
        }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let code = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
            // A WebSocket library answers pings by itself.
            let answering = try await client.socket(code: code)
            _ = try await answering.hello(["role": "viewer"])
            // This one says hello and then neither reads nor writes: it cannot answer.
            let port = client.port
            let silent = try await blocking { try SlowClientTests.StalledViewer(port: port, code: code) }
            let received = try await blocking { silent.readUntilClosed() }
            #expect(received.closed)
            // Server frames are unmasked; 0x89 0x00 is an empty ping (JSON text never holds 0x89).
            #expect(received.bytes.indices.dropLast().contains { received.bytes[$0] == 0x89 && received.bytes[$0 + 1] == 0 })
            // The silence limit has passed for the answering client too, and it is still served.
            try await answering.barrier()
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            try await presenter.send(#"{"type":"goto","id":"g1","page":2}"#)
            #expect(try await answering.nextDurable()?["page"] as? Int == 2)
        }
    }
}
