import ChildProcesses
import Foundation
import NIOSSL
import Testing

@testable import PodiumServer

/// ACME end to end: `podium serve --acme-domain` gets its certificate from Debian's `pebble` (the
/// ACME test server) by a real http-01 check of its HTTP port, serves HTTPS with it, and renews
/// it when a third of its lifetime is left. Pebble resolves the name through its own test DNS
/// (`pebble-challtestsrv`, every name at 127.0.0.1). Ports: 26140-26154 (HTTPS of the server: any).
@Suite("ACME", .serialized, .timeLimit(.minutes(3)))
struct ACMETests {
    static let pebblePort = 26140
    static let pebbleManagementPort = 26141
    /// Where pebble checks http-01 challenges: the server's HTTP port.
    static let httpPort = 26150
    static let dnsPort = 26153
    static let domain = "podium.test"
    /// Pebble's certificates last this long: renewed when a third is left, 6 s after issue.
    static let validitySeconds = 9

    @Test func aServerGetsItsCertificateFromPebbleServesItAndRenewsIt() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pebble") else {
            Issue.record("pebble is not installed: run scripts/setup --test")
            return
        }
        // Pebble's own HTTPS certificate, from a CA the server is told to trust for the directory.
        let certificates = try TLSTestCertificates()
        defer { certificates.remove() }
        let pebbleTLS = try certificates.leaf("pebble", serial: 1)
        let config = certificates.directory.appendingPathComponent("pebble.json")
        try Data(
            """
            {"pebble": {"listenAddress": "127.0.0.1:\(Self.pebblePort)", "managementListenAddress": "127.0.0.1:\(Self.pebbleManagementPort)",
              "certificate": "\(pebbleTLS.certificate.path)", "privateKey": "\(pebbleTLS.key.path)",
              "httpPort": \(Self.httpPort), "tlsPort": 26151, "ocspResponderURL": "", "externalAccountBindingRequired": false,
              "certificateValidityPeriod": \(Self.validitySeconds)}}
            """.utf8
        ).write(to: config)
        let dns = ChildProcess(
            URL(fileURLWithPath: "/usr/bin/pebble-challtestsrv"),
            arguments: [
                "-defaultIPv4", "127.0.0.1", "-defaultIPv6", "", "-dns01", "127.0.0.1:\(Self.dnsPort)", "-http01", "",
                "-https01", "", "-tlsalpn01", "", "-management", "127.0.0.1:26154",
            ], environment: ProcessInfo.processInfo.environment, standardOutput: .null, standardError: .null)
        try dns.run()
        defer { dns.send(SIGTERM) }
        var pebbleEnvironment = ProcessInfo.processInfo.environment
        // Checks at once instead of after a random pause of up to 15 s; never PEBBLE_VA_ALWAYS_VALID.
        pebbleEnvironment["PEBBLE_VA_NOSLEEP"] = "1"
        let pebble = ChildProcess(
            URL(fileURLWithPath: "/usr/bin/pebble"),
            arguments: ["-config", config.path, "-dnsserver", "127.0.0.1:\(Self.dnsPort)"], environment: pebbleEnvironment,
            standardOutput: .null, standardError: .null)
        try pebble.run()
        defer { pebble.send(SIGTERM) }
        try await waitUntil("pebble answers its directory") {
            (try? await TLSTestConnection.request(port: Self.pebblePort, trusting: certificates.caFile, path: "/dir"))?.status
                == 200
        }
        // The root pebble signs with (made at its start): what a browser would trust.
        let root = try await TLSTestConnection.request(
            port: Self.pebbleManagementPort, trusting: certificates.caFile, path: "/roots/0")
        let pebbleRoot = certificates.directory.appendingPathComponent("pebble-root.pem")
        try Data(root.body).write(to: pebbleRoot)

        let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-acme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = ServerProcess(
            dataDirectory: data,
            arguments: [
                "--http-port", "\(Self.httpPort)", "--acme-domain", Self.domain, "--acme-email", "it@school.example",
                "--acme-directory", "https://localhost:\(Self.pebblePort)/dir", "--no-discovery", "--metrics-address", "off",
            ],
            environment: [
                "PODIUM_ACME_CA_FILE": certificates.caFile.path, "PODIUM_ACME_CHECK_SECONDS": "0.5",
                "PODIUM_ACME_RETRY_SECONDS": "1",
            ])
        try await server.start()
        defer { server.kill(SIGTERM) }
        #expect(server.outputText.contains("https://localhost:\(server.port)"), "\(server.outputText)")

        // HTTPS with pebble's certificate, verified against pebble's root for the name.
        var first: NIOSSLCertificate?
        try await waitUntil("the server serves a certificate pebble issued", seconds: 25) {
            guard
                let answer = try? await TLSTestConnection.request(
                    port: server.port, trusting: pebbleRoot, serverName: Self.domain, path: "/readyz")
            else { return false }
            first = answer.certificate
            return answer.status == 200
        }
        let issued = try #require(first)
        #expect(issued.notValidAfter - issued.notValidBefore <= Self.validitySeconds + 1)
        let kept = data.appendingPathComponent("tls/acme-\(Self.domain).pem")
        #expect(FileManager.default.fileExists(atPath: kept.path))
        // Renewed before it ends, and served without a restart.
        try await waitUntil("a renewed certificate is served", seconds: 25) {
            guard
                let answer = try? await TLSTestConnection.request(
                    port: server.port, trusting: pebbleRoot, serverName: Self.domain, path: "/readyz")
            else { return false }
            return answer.certificate != nil && answer.certificate != issued
        }
        // The HTTP port still redirects everything else.
        let redirect = try await TLSTestConnection.request(port: Self.httpPort, trusting: nil, path: "/", host: Self.domain)
        #expect(redirect.status == 308)
        #expect(redirect.header("location") == "https://\(Self.domain):\(server.port)/")
        server.kill(SIGTERM)
        await server.waitUntilExit()
    }

    @Test func aCertificateIsRenewedWhenAThirdOfItsLifetimeIsLeft() throws {
        let certificates = try TLSTestCertificates()
        defer { certificates.remove() }
        let files = try certificates.leaf("first", serial: 1)  // two days
        let installed = try TLSCertificateBox.check(
            certificatePEM: Array(try Data(contentsOf: files.certificate)), keyPEM: Array(try Data(contentsOf: files.key)))
        let lifetime = installed.notAfter.timeIntervalSince(installed.notBefore)
        #expect(ACMEService.isDue(nil, at: Date()))
        #expect(!ACMEService.isDue(installed, at: installed.notBefore))
        #expect(!ACMEService.isDue(installed, at: installed.notAfter.addingTimeInterval(-lifetime / 3 - 60)))
        #expect(ACMEService.isDue(installed, at: installed.notAfter.addingTimeInterval(-lifetime / 3 + 60)))
        #expect(ACMEService.isDue(installed, at: installed.notAfter.addingTimeInterval(3600)))
    }
}
