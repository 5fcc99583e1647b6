import Foundation
import HTTPTypes
import NIOCore
import NIOPosix
import PodiumClient
import Testing

@testable import PodiumServer

/// `/metrics` apart from the audience: on its own address, refused on the main port, with a
/// bearer token when one is set; an address taken by another server stops a server that was
/// told it and is left out (logged) by one that only took the default.
@Suite("Metrics address", .timeLimit(.minutes(1)))
struct MetricsAddressTests {
    /// A server whose metrics listener tells its port.
    static func server(
        token: String? = nil, port: Int = 0, required: Bool = false
    ) -> (TestServer, AsyncStream<Int>) {
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let server = TestServer {
            $0.metricsAddress = MetricsAddress(host: "127.0.0.1", port: port)
            $0.metricsAddressRequired = required
            $0.metricsToken = token
            $0.onMetricsListening = { listening.yield($0) }
        }
        return (server, ports)
    }

    @Test func theMainPortRefusesMetricsAndTheMetricsAddressAsksForTheToken() async throws {
        let (server, ports) = Self.server(token: "s3cret-scraper")
        defer { server.removeData() }
        try await server.run { client in
            #expect(try await client.request(.get, "/metrics").status == .notFound)
            #expect(
                try await client.request(.get, "/metrics", headers: [.authorization: "Bearer s3cret-scraper"]).status == .notFound
            )
            var iterator = ports.makeAsyncIterator()
            let metrics = TestHTTPClient(port: try #require(await iterator.next()))
            defer { Task { await metrics.close() } }
            let anonymous = try await metrics.execute(.get, "/metrics")
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(!String(buffer: anonymous.body).contains("podium_"))
            for wrong in ["Bearer s3cret-scrapes", "Bearer s3cret", "Bearer s3cret-scraper-and-more", "Basic s3cret-scraper"] {
                #expect(try await metrics.execute(.get, "/metrics", headers: [.authorization: wrong]).status == .unauthorized)
            }
            let scraped = try await metrics.execute(.get, "/metrics", headers: [.authorization: "Bearer s3cret-scraper"])
            #expect(scraped.status == .ok)
            #expect(String(buffer: scraped.body).contains("podium_connections"))
            // The SDK, pointed at the metrics address with the token (Auth.swift's metricsText).
            let base = URL(string: "http://127.0.0.1:\(metrics.port)")!
            #expect(try await PodiumClient(baseURL: base, token: "s3cret-scraper").metricsText().contains("podium_live_sessions"))
            await #expect(throws: PodiumError.self) { try await PodiumClient(baseURL: base).metricsText() }
        }
    }

    @Test func aTakenMetricsAddressStopsTheServerOnlyWhenItWasAskedFor() async throws {
        // Another server has the port.
        let taken = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(taken.localAddress?.port)
        defer { taken.close(promise: nil) }

        // The default address: logged and left out, the server runs on.
        let (lenient, _) = Self.server(port: port)
        defer { lenient.removeData() }
        try await lenient.run { client in
            let health = try await client.request(.get, "/healthz")
            #expect(health.status == .ok)
        }

        // An address the operator chose: the server does not run without it.
        let (strict, _) = Self.server(port: port, required: true)
        defer { strict.removeData() }
        await #expect(throws: (any Error).self) {
            try await strict.run { client in
                // It may have begun to listen as it stopped: ask with a short patience.
                let http = TestHTTPClient(port: client.port, timeout: .seconds(1))
                defer { Task { await http.close() } }
                try await waitUntil("the server stops", seconds: 10) {
                    (try? await http.execute(.get, "/healthz").status) == nil
                }
            }
        }
    }

    @Test func aMetricsAddressIsHostAndPort() {
        #expect(MetricsAddress("127.0.0.1:9464") == MetricsAddress(host: "127.0.0.1", port: 9464))
        #expect(MetricsAddress("[::1]:9100") == MetricsAddress(host: "::1", port: 9100))
        #expect(MetricsAddress(":9464") == MetricsAddress(host: "0.0.0.0", port: 9464))
        #expect(MetricsAddress("metrics.internal:80")?.host == "metrics.internal")
        #expect(MetricsAddress("::1:9100") == nil)
        #expect(MetricsAddress("127.0.0.1") == nil)
        #expect(MetricsAddress("127.0.0.1:99999") == nil)
        #expect(MetricsAddress.standard.description == "127.0.0.1:9464")
        #expect(MetricsAddress(host: "::1", port: 9100).description == "[::1]:9100")
    }
}
