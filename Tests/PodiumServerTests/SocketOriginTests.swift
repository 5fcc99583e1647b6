import Foundation
import HTTPTypes
import Testing

@testable import PodiumServer

/// Cross-site WebSocket hijacking: a page of another site must not open a presenter's socket
/// with the presenter's cookie.
@Suite("Socket origin", .timeLimit(.minutes(3)))
struct SocketOriginTests {
    @Test func aSocketFromAnotherSiteIsRefusedEvenWithThePresentersCookie() async throws {
        try await TestServer.withLiveSession { client, token, code in
            var headers = HTTPFields()
            headers[.cookie] = "podium_auth=\(token)"
            headers[.origin] = "http://evil.example"
            // Over HTTP: the upgrade route answers 403 with a code a program can read.
            let refused = try await client.request(.get, "/api/v1/sessions/\(code)/live", headers: headers)
            #expect(refused.status == .forbidden)
            #expect(refused.errorCode == "origin_not_allowed")
            let lobby = try await client.request(.get, "/api/v1/lobby", headers: headers)
            #expect(lobby.errorCode == "origin_not_allowed")
            // As a WebSocket: the handshake fails, so no hello can be sent.
            await #expect(throws: (any Error).self) {
                let socket = try await TestSocket.connect(
                    port: client.port, path: "/api/v1/sessions/\(code)/live", headers: headers)
                _ = try await socket.hello(["role": "presenter"])
            }
            // The server's own page: same host and port as the request.
            headers[.origin] = "http://127.0.0.1:\(client.port)"
            let own = try await TestSocket.connect(port: client.port, path: "/api/v1/sessions/\(code)/live", headers: headers)
            let welcome = try await own.hello(["role": "presenter"])
            #expect(welcome["type"] as? String == "welcome")
        }
    }

    @Test func theConfiguredPublicURLIsAnAllowedOrigin() {
        let check = OriginCheck(publicURL: "https://Podium.Example.org/")
        #expect(check.allows(origin: "https://podium.example.org", host: "10.0.0.5:8080"))
        #expect(check.allows(origin: "http://10.0.0.5:8080", host: "10.0.0.5:8080"))
        #expect(check.allows(origin: "https://podium.example.org:443", host: "podium.example.org"))
        #expect(check.allows(origin: nil, host: "10.0.0.5:8080"))  // a program, not a browser
        #expect(!check.allows(origin: "https://podium.example.org.evil.net", host: "10.0.0.5:8080"))
        #expect(!check.allows(origin: "http://10.0.0.5:8081", host: "10.0.0.5:8080"))
        #expect(!check.allows(origin: "null", host: "10.0.0.5:8080"))  // sandboxed frames, file:// pages
        #expect(!check.allows(origin: "not a url", host: "10.0.0.5:8080"))
        // A program's own scheme, and a client that adds its own origin to the page's.
        #expect(check.allows(origin: "ws://127.0.0.1", host: "10.0.0.5:8080"))
        #expect(check.allows(origin: "ws://127.0.0.1, http://10.0.0.5:8080", host: "10.0.0.5:8080"))
        #expect(!check.allows(origin: "ws://127.0.0.1, http://evil.example", host: "10.0.0.5:8080"))
    }
}
