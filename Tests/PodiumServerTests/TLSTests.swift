import Foundation
import Logging
import NIOSSL
import PodiumStore
import Synchronization
import Testing

@testable import PodiumServer

/// A test CA and certificates signed by it for `localhost` and 127.0.0.1, made with openssl.
struct TLSTestCertificates {
    let directory: URL
    var caFile: URL { directory.appendingPathComponent("ca.pem") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.openssl(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca.key",
                "-out", "ca.pem", "-days", "2", "-subj", "/CN=Podium Test CA",
            ], in: directory)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(
            to: directory.appendingPathComponent("leaf.ext"), atomically: true, encoding: .utf8)
    }

    /// A new key and a certificate for it; its files (`<name>.pem`, `<name>.key`).
    @discardableResult
    func leaf(_ name: String, serial: Int) throws -> (certificate: URL, key: URL) {
        try Self.openssl(
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "\(name).key",
                "-out", "\(name).csr", "-subj", "/CN=localhost",
            ], in: directory)
        try Self.openssl(
            [
                "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "\(serial)",
                "-days", "2", "-extfile", "leaf.ext", "-out", "\(name).pem",
            ], in: directory)
        return (directory.appendingPathComponent("\(name).pem"), directory.appendingPathComponent("\(name).key"))
    }

    func certificate(_ name: String) throws -> NIOSSLCertificate {
        try NIOSSLCertificate(file: directory.appendingPathComponent("\(name).pem").path, format: .pem)
    }

    /// Puts `name`'s pair where the server reads its files (`served.pem`, `served.key`), each
    /// file replaced whole.
    func serve(_ certificateName: String, key keyName: String? = nil) throws -> (certificate: URL, key: URL) {
        let certificate = directory.appendingPathComponent("served.pem")
        let key = directory.appendingPathComponent("served.key")
        for (source, target) in [("\(keyName ?? certificateName).key", key), ("\(certificateName).pem", certificate)] {
            let temporary = directory.appendingPathComponent("incoming")
            try? FileManager.default.removeItem(at: temporary)
            try FileManager.default.copyItem(at: directory.appendingPathComponent(source), to: temporary)
            guard rename(temporary.path, target.path) == 0 else { throw TLSTestError("could not rename to \(target.path)") }
        }
        return (certificate, key)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    static func openssl(_ arguments: [String], in directory: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TLSTestError("openssl \(arguments.joined(separator: " ")) failed") }
    }
}

/// HTTPS served by the server itself: the certificate files, their reload, HSTS, `Secure`
/// cookies, the HTTP port's redirects, files and the live socket over TLS.
@Suite("HTTPS", .timeLimit(.minutes(3)))
struct TLSTests {
    /// A server with TLS; with `httpPort`, its plain HTTP port too, whose port is told to
    /// `listening` once it listens (it starts beside the HTTPS port, which `run` waits for).
    static func server(
        _ certificates: TLSTestCertificates, port: Int = 0, httpPort: Int? = nil,
        listening: AsyncStream<Int>.Continuation? = nil
    ) throws -> TestServer {
        let files = try certificates.serve("first")
        return TestServer { configuration in
            configuration.port = port
            var tls = TLSSettings(source: .files(certificate: files.certificate, key: files.key), httpPort: httpPort)
            tls.reloadInterval = .milliseconds(50)
            if let listening { tls.onHTTPPortListening = { port in listening.yield(port) } }
            configuration.tls = tls
        }
    }

    @Test func servesItsCertificateWithHSTSAndSecureCookiesAndTakesANewOneWithoutARestart() async throws {
        let certificates = try TLSTestCertificates()
        defer { certificates.remove() }
        try certificates.leaf("first", serial: 1)
        try certificates.leaf("second", serial: 2)
        let server = try Self.server(certificates)
        defer { server.removeData() }
        try await server.run { client in
            // A page: its viewer cookie.
            let page = try await TLSTestConnection.request(port: client.port, trusting: certificates.caFile, path: "/")
            #expect(page.status == 200)
            #expect(page.certificate == (try certificates.certificate("first")))
            #expect(page.header("strict-transport-security") == "max-age=31536000")
            let viewerCookie = try #require(page.values("set-cookie").first { $0.hasPrefix("podium_viewer=") })
            #expect(viewerCookie.hasSuffix("; Secure"), "\(viewerCookie)")
            // Signing in: the session cookie.
            let login = try await TLSTestConnection.request(
                port: client.port, trusting: certificates.caFile, method: "POST", path: "/api/v1/auth/login",
                headers: ["Content-Type": "application/json"],
                body: Array(#"{"email":"admin","password":"\#(TestServer.adminPassword)"}"#.utf8))
            #expect(login.status == 200)
            let sessionCookie = try #require(login.values("set-cookie").first { $0.hasPrefix("podium_auth=") })
            #expect(sessionCookie.contains("; Secure"), "\(sessionCookie)")
            // The files change (a renewal): new connections get the new certificate.
            _ = try certificates.serve("second")
            let second = try certificates.certificate("second")
            try await waitUntil("a new connection is served the new certificate") {
                try await TLSTestConnection.request(port: client.port, trusting: certificates.caFile, path: "/readyz")
                    .certificate == second
            }
        }
    }

    @Test func aBadNewPairIsRefusedAndTheOldOneKept() async throws {
        let certificates = try TLSTestCertificates()
        defer { certificates.remove() }
        try certificates.leaf("first", serial: 1)
        try certificates.leaf("second", serial: 2)
        let files = try certificates.serve("first")
        let box = TLSCertificateBox()
        try TLSFileReloader.loadAtStart(certificateFile: files.certificate, keyFile: files.key, into: box)
        let first = try #require(box.current?.fingerprint)
        let logs = LogCapture()
        let reloader = TLSFileReloader(
            certificateFile: files.certificate, keyFile: files.key, box: box, interval: .seconds(1),
            logger: Logger(label: "tls-test") { _ in logs })
        var refused: Data?
        // The second certificate with the first's key: not a pair.
        _ = try certificates.serve("second", key: "first")
        reloader.reloadIfChanged(refused: &refused)
        #expect(box.current?.fingerprint == first)
        #expect(refused != nil)
        #expect(
            logs.messages.contains { $0.contains("refused the new certificate") && $0.contains("Still serving the previous one") }
        )
        // Not PEM at all (a half-written file).
        try Data("-----BEGIN CERTIFICATE-----\nMIIB".utf8).write(to: files.certificate)
        reloader.reloadIfChanged(refused: &refused)
        #expect(box.current?.fingerprint == first)
        // A good pair again.
        _ = try certificates.serve("second")
        reloader.reloadIfChanged(refused: &refused)
        #expect(box.current?.fingerprint != first)
        #expect(refused == nil)
        // A server is not started with a bad pair.
        _ = try certificates.serve("first", key: "second")
        #expect(throws: StartupError.self) {
            try TLSFileReloader.loadAtStart(certificateFile: files.certificate, keyFile: files.key, into: TLSCertificateBox())
        }
    }

    @Test func plainHTTPIsRedirectedToHTTPSButACMEChallenges() async throws {
        let certificates = try TLSTestCertificates()
        defer { certificates.remove() }
        try certificates.leaf("first", serial: 1)
        let (listening, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = try Self.server(certificates, port: 26121, httpPort: 26120, listening: continuation)
        defer { server.removeData() }
        try await server.run { client in
            // The HTTP port listens beside the HTTPS one: asked before it did, the first request
            // was refused (a failure seen once in a loaded run).
            var ports = listening.makeAsyncIterator()
            #expect(await ports.next() == 26120)
            let page = try await TLSTestConnection.request(
                port: 26120, trusting: nil, path: "/s/ABCDEF?x=1", host: "podium.example.org:26120")
            #expect(page.status == 308)
            #expect(page.header("location") == "https://podium.example.org:26121/s/ABCDEF?x=1")
            let post = try await TLSTestConnection.request(
                port: 26120, trusting: nil, method: "POST", path: "/api/v1/auth/login", host: "192.0.2.1")
            #expect(post.status == 308)
            #expect(post.header("location") == "https://192.0.2.1:26121/api/v1/auth/login")
            // ACME's challenges stay on HTTP (none is under way: not found).
            let challenge = try await TLSTestConnection.request(
                port: 26120, trusting: nil, path: "/.well-known/acme-challenge/abc", host: "podium.example.org")
            #expect(challenge.status == 404)
            // No HSTS on plain HTTP (browsers ignore it there).
            #expect(page.header("strict-transport-security") == nil)
        }
    }

    @Test func behindATrustedProxyThatEndsTLSCookiesAreSecure() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let proxied = try await TLSTestConnection.request(
                port: client.port, trusting: nil, path: "/", headers: ["X-Forwarded-Proto": "https"])
            let secure = try #require(proxied.values("set-cookie").first { $0.hasPrefix("podium_viewer=") })
            #expect(secure.hasSuffix("; Secure"))
            #expect(proxied.header("strict-transport-security") == nil)
            let plain = try await TLSTestConnection.request(port: client.port, trusting: nil, path: "/")
            let cookie = try #require(plain.values("set-cookie").first { $0.hasPrefix("podium_viewer=") })
            #expect(!cookie.contains("Secure"))
        }
    }

    @Test func filesOverTLSAreSentWhole() async throws {
        let certificates = try TLSTestCertificates()
        defer { certificates.remove() }
        try certificates.leaf("first", serial: 1)
        let server = try Self.server(certificates)
        defer { server.removeData() }
        #expect(server.configuration.sendfile)
        let blob = try BlobRangeTests.putBlob(server, size: 700_000)
        try await server.run { client in
            let whole = try await TLSTestConnection.request(port: client.port, trusting: certificates.caFile, path: blob.path)
            #expect(whole.status == 200)
            #expect(whole.body == blob.bytes)
            let range = try await TLSTestConnection.request(
                port: client.port, trusting: certificates.caFile, path: blob.path, headers: ["Range": "bytes=1000-300999"])
            #expect(range.status == 206)
            #expect(range.body == Array(blob.bytes[1000..<301_000]))
        }
    }

    @Test func aViewersLiveSocketOverWSSGetsItsWelcome() async throws {
        let certificates = try TLSTestCertificates()
        defer { certificates.remove() }
        try certificates.leaf("first", serial: 1)
        let server = try Self.server(certificates)
        defer { server.removeData() }
        try await server.run { client in
            let ca = certificates.caFile
            func call(_ method: String, _ path: String, token: String?, type: String, body: [UInt8]) async throws -> [String: Any]
            {
                var headers = ["Content-Type": type]
                if let token { headers["Authorization"] = "Bearer \(token)" }
                let response = try await TLSTestConnection.request(
                    port: client.port, trusting: ca, method: method, path: path, headers: headers, body: body)
                return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            }
            let login = try await call(
                "POST", "/api/v1/auth/login", token: nil, type: "application/json",
                body: Array(#"{"email":"admin","password":"\#(TestServer.adminPassword)"}"#.utf8))
            let token = try #require(login["token"] as? String)
            let deck = try await call(
                "POST", "/api/v1/decks", token: token, type: "application/pdf",
                body: Array(try Data(contentsOf: TestServer.fixtures.appendingPathComponent("rotated.pdf"))))
            let deckId = try #require(deck["id"] as? String)
            try await waitUntil("the deck is ready", seconds: 60) {
                try await call("GET", "/api/v1/decks/\(deckId)", token: token, type: "application/json", body: [])["status"]
                    as? String == "ready"
            }
            let session = try await call(
                "POST", "/api/v1/sessions", token: token, type: "application/json", body: Array(#"{"deckId":"\#(deckId)"}"#.utf8))
            let code = try #require(session["code"] as? String)
            // The join link (and its QR code) names HTTPS.
            let joinURL = try #require(session["joinUrl"] as? String)
            #expect(joinURL == "https://localhost:\(client.port)/s/\(code)", "\(joinURL)")
            // A place's share page names its https:// address for link previews.
            let place = try await call(
                "POST", "/api/v1/channel/pois", token: token, type: "application/json",
                body: Array(#"{"name":"Castle","latitude":1,"longitude":2,"published":true}"#.utf8))
            let placeId = try #require(place["id"] as? String)
            let share = try await TLSTestConnection.request(port: client.port, trusting: ca, path: "/c/place/\(placeId)")
            let html = String(decoding: share.body, as: UTF8.self)
            #expect(
                html.contains(#"<meta property="og:url" content="https://localhost:\#(client.port)/c/place/\#(placeId)">"#),
                "\(html)")
            // A viewer: the upgrade taken on the connection's loop (LiveUpgrade), over TLS.
            let socket = try await TLSTestConnection.connect(port: client.port, trusting: ca)
            defer { Task { await socket.close() } }
            try await socket.write(
                "GET /api/v1/sessions/\(code)/live HTTP/1.1\r\nHost: localhost:\(client.port)\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "Origin: https://localhost:\(client.port)\r\n\r\n")
            let head = try await socket.read { bytes, _ in TLSTestResponse.headEnd(bytes).map { $0 + 4 } }
            #expect(String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101"))
            try await socket.write(HandWrittenFrame.maskedText(#"{"type":"hello","role":"viewer","name":"Ada"}"#))
            let frame = try await socket.read { bytes, _ in HandWrittenFrame.length(bytes) }
            let message = try #require(
                try JSONSerialization.jsonObject(with: Data(HandWrittenFrame.payload(frame))) as? [String: Any])
            #expect(message["type"] as? String == "welcome", "\(message)")
        }
    }
}

/// Just enough of RFC 6455 for a test's hello and the server's first frame.
enum HandWrittenFrame {
    static func maskedText(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [1, 2, 3, 4]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// The whole first frame's length, once it is all there (server frames are not masked).
    static func length(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        let (start, length) = header(bytes)
        guard let start, bytes.count >= start + length else { return nil }
        return start + length
    }

    static func payload(_ frame: [UInt8]) -> [UInt8] {
        let (start, length) = header(frame)
        return Array(frame[start!..<(start! + length)])
    }

    private static func header(_ bytes: [UInt8]) -> (Int?, Int) {
        let short = Int(bytes[1] & 0x7F)
        switch short {
        case 126:
            guard bytes.count >= 4 else { return (nil, 0) }
            return (4, Int(bytes[2]) << 8 | Int(bytes[3]))
        case 127:
            guard bytes.count >= 10 else { return (nil, 0) }
            return (10, bytes[2..<10].reduce(0) { $0 << 8 | Int($1) })
        default:
            return (2, short)
        }
    }
}

/// Keeps what is logged, for tests that read the log.
final class LogCapture: LogHandler, Sendable {
    private let lines = Mutex<[String]>([])
    var messages: [String] { lines.withLock { $0 } }
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }
    subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }
    func log(event: LogEvent) { lines.withLock { $0.append("\(event.message)") } }
}
