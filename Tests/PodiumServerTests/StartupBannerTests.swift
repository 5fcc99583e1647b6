import Foundation
import Testing

@testable import PodiumServer

/// The start-up banner prints only the addresses the server really listens on, and the sign-in
/// takes the first admin's user name as the banner prints it.
@Suite("Start-up banner and sign-in name", .timeLimit(.minutes(3)))
struct StartupBannerTests {
    let lan = ["192.0.2.7", "198.51.100.4"]

    @Test func boundToEveryInterfaceItPrintsThisMachineAndEachNetworkAddress() {
        for host in ["0.0.0.0", "::", "[::]"] {
            let urls = ListenURLs.listening(on: host, port: 8080, lanAddresses: lan)
            #expect(urls.thisMachine == "http://localhost:8080", "\(host)")
            #expect(urls.network == ["http://192.0.2.7:8080", "http://198.51.100.4:8080"], "\(host)")
            #expect(urls.first == "http://localhost:8080")
        }
    }

    @Test func boundToLoopbackItPrintsNoNetworkAddress() {
        for host in ["127.0.0.1", "localhost", "LOCALHOST"] {
            let urls = ListenURLs.listening(on: host, port: 8080, lanAddresses: lan)
            #expect(urls == ListenURLs(thisMachine: "http://localhost:8080", network: []), "\(host)")
        }
        // Another loopback address: localhost would not reach it.
        #expect(
            ListenURLs.listening(on: "127.0.0.2", port: 9000, lanAddresses: lan)
                == ListenURLs(thisMachine: "http://127.0.0.2:9000", network: []))
        #expect(
            ListenURLs.listening(on: "::1", port: 9000, lanAddresses: lan)
                == ListenURLs(thisMachine: "http://[::1]:9000", network: []))
    }

    @Test func boundToOneAddressItPrintsThatOneOnly() {
        let urls = ListenURLs.listening(on: "198.51.100.4", port: 8080, lanAddresses: lan)
        #expect(urls == ListenURLs(thisMachine: nil, network: ["http://198.51.100.4:8080"]))
        #expect(urls.first == "http://198.51.100.4:8080")
        let v6 = ListenURLs.listening(on: "2001:db8::5", port: 8080, lanAddresses: lan)
        #expect(v6.network == ["http://[2001:db8::5]:8080"])
        #expect(ListenURLs.listening(on: "podium.local", port: 80, lanAddresses: lan).network == ["http://podium.local:80"])
    }

    @Test func theAdminSignsInWithTheUserNameInAnyCaseWithSpacesAround() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            for name in ["admin", " Admin ", "ADMIN"] {
                let response = try await client.request(
                    .post, "/api/v1/auth/login", json: #"{"email":"\#(name)","password":"\#(TestServer.adminPassword)"}"#)
                #expect(response.status == .ok, "\(name)")
            }
        }
    }
}
