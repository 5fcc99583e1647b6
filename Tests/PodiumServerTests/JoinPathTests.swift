import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import PodiumCore
import Testing

@testable import PodiumServer

/// A join's own paths (#42): the hello read without `JSONDecoder` (``HelloReader``) and a
/// viewer's upgrade accepted without the router (``LiveUpgrade``). Both may decline, never
/// decide differently from the general path they stand in for.
@Suite("Join paths", .timeLimit(.minutes(2)))
struct JoinPathTests {
    typealias SplitMix = HostileInputTests.SplitMix

    /// What the general decoder makes of `text`: the hello, or nil for anything else (an error,
    /// another message).
    static func decoded(_ text: String) -> ClientMessage.Hello? {
        guard case .hello(let hello)? = try? JSONDecoder().decode(ClientMessage.self, from: Data(text.utf8)) else { return nil }
        return hello
    }

    /// Hellos as clients send them: docs/protocol.md's, the browser's, the SDK's, the tests'.
    static let plainHellos: [String] = [
        #"{"type": "hello", "role": "viewer", "name": "Ada", "passcode": "1234", "lastSeq": 17}"#,
        #"{"type": "hello", "role": "presenter", "token": "…"}"#,
        #"{"type":"hello","role":"viewer"}"#,
        #"{"type":"hello","role":"viewer","name":"Eve","lastSeq":3}"#,
        #"{"type":"hello","role":"presenter","token":"x"}"#,
        #"{"type":"hello","role":"moderator","token":"t_abc"}"#,
        #"{"type":"hello","role":"viewer","projector":true}"#,
        #"{"type":"hello","role":"viewer","projector":false,"lastSeq":0}"#,
        #"{"role":"viewer","type":"hello","name":null,"passcode":null,"token":null,"lastSeq":null,"projector":null}"#,
        #"{"type":"hello","role":"presenter","name":"Ann Lee-Žáček 李","passcode":"p"}"#,
        #"{"type":"hello","role":"viewer","name":"\#(String(repeating: "n", count: 80))"}"#,
        #" { "type" : "hello" ,"role":"viewer" , "lastSeq" : 9223372036854775807 }  "#,
        "{\n\t\"type\":\"hello\",\r\n\"role\":\"viewer\"}\n",
        // Other keys are read past, as the decoder ignores them.
        #"{"type":"hello","role":"viewer","client":"web","version":2,"debug":false,"extra":null}"#,
    ]

    /// Hellos the reader leaves to the decoder (which reads or refuses them).
    static let declined: [String] = [
        #"{"type":"hello","role":"viewer","name":"A\"da"}"#,  // an escape
        #"{"type":"hello","role":"viewer","name":"\u0041da"}"#,
        #"{"type":"hello","role":"viewer","lastSeq":-1}"#,  // refused by the decoder
        #"{"type":"hello","role":"viewer","lastSeq":1.0}"#,
        #"{"type":"hello","role":"viewer","lastSeq":1e2}"#,
        #"{"type":"hello","role":"viewer","lastSeq":01}"#,
        #"{"type":"hello","role":"viewer","lastSeq":99999999999999999999}"#,
        #"{"type":"hello","role":"viewer","lastSeq":"3"}"#,
        #"{"type":"hello","role":"guest"}"#,
        #"{"type":"hello","role":null}"#,
        #"{"type":"hello"}"#,
        #"{"type":"hello","role":"viewer","projector":1}"#,
        #"{"type":"hello","role":"viewer","name":5}"#,
        #"{"type":"hello","role":"viewer","role":"presenter"}"#,  // a key twice
        #"{"type":"hello","role":"viewer","extra":{"a":1}}"#,
        #"{"type":"hello","role":"viewer","extra":[1]}"#,
        #"{"type":"hello","role":"viewer",}"#,
        #"{"type":"hello","role":"viewer"} x"#,
        #"{"type":"hello","role":"viewer""#,
        #"{"type":"ping"}"#,
        #"{"type":"goto","id":"a","page":2}"#,
        #"{}"#, "", "[]", "null", "hello",
    ]

    @Test func everyPlainHelloIsReadAsTheDecoderReadsIt() throws {
        for text in Self.plainHellos {
            let read = try #require(HelloReader.read(text), "declined: \(text)")
            #expect(read == Self.decoded(text), "\(text)")
        }
        // A long name is cut as the decoder cuts it.
        let long = try #require(HelloReader.read(Self.plainHellos[10]))
        #expect(long.name?.count == ClientMessage.maxNameLength)
    }

    @Test func whatTheReaderDeclinesIsLeftToTheDecoder() {
        for text in Self.declined {
            #expect(HelloReader.read(text) == nil, "read: \(text)")
        }
    }

    /// Random mutations of hellos (bytes changed, cut, repeated, odd values put in): whatever the
    /// reader reads, the decoder reads the same; where the decoder refuses, the reader declines.
    @Test func mutatedHellosAreReadAsTheDecoderReadsThemOrDeclined() {
        var random = SplitMix(state: UInt64.random(in: 0...UInt64.max))
        let seed = random.state
        var read = 0
        for round in 0..<20_000 {
            let template = Self.plainHellos[round % Self.plainHellos.count]
            let text = HostileInputTests.mutate(template, using: &random)
            guard let hello = HelloReader.read(text) else { continue }
            read += 1
            #expect(hello == Self.decoded(text), "\(text) (seed \(seed))")
        }
        // Many mutations leave a hello a hello (a changed name, spaces): the reader reads those.
        #expect(read > 1_000, "seed \(seed)")
    }

    // MARK: - The viewer's upgrade

    static func head(
        _ target: String = "/api/v1/sessions/ABC234/live", method: HTTPMethod = .GET, fields: [(String, String)] = []
    ) -> HTTPRequestHead {
        var headers = HTTPHeaders([("Host", "10.0.0.5:8080"), ("Upgrade", "websocket"), ("Connection", "Upgrade")])
        for (name, value) in fields { headers.add(name: name, value: value) }
        return HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers)
    }

    static let peer = try! SocketAddress(ipAddress: "10.0.0.9", port: 50_000)
    static let proxy = try! SocketAddress(ipAddress: "10.0.0.1", port: 50_000)
    static let viewer = "v_" + String(repeating: "a", count: 24)

    static func plan(_ head: HTTPRequestHead, from address: SocketAddress = peer) -> LiveUpgrade.Plan? {
        LiveUpgrade.plan(head, remoteAddress: address, origins: OriginCheck(publicURL: nil), trustedProxies: ["10.0.0.1"])
    }

    @Test func aViewersUpgradeIsTakenWithoutTheRouter() {
        #expect(Self.plan(Self.head()) == .init(code: "ABC234", viewerId: nil, clientKey: "10.0.0.9"))
        #expect(
            Self.plan(Self.head("/api/v1/sessions/abc-2_3/live?lang=de", fields: [("Origin", "http://10.0.0.5:8080")]))
                == .init(code: "abc-2_3", viewerId: nil, clientKey: "10.0.0.9"))
        // The viewer cookie among others; an invalid one is no identity, as through the router.
        let cookie = ("Cookie", "theme=dark; podium_viewer=\(Self.viewer)")
        #expect(Self.plan(Self.head(fields: [cookie])) == .init(code: "ABC234", viewerId: Self.viewer, clientKey: "10.0.0.9"))
        #expect(Self.plan(Self.head(fields: [("Cookie", "podium_viewer=nope")]))?.viewerId == nil)
        // A trusted proxy's forwarded address; anyone else's is ignored.
        let forwarded = ("X-Forwarded-For", "192.0.2.7, 198.51.100.4")
        #expect(Self.plan(Self.head(fields: [forwarded]), from: Self.proxy)?.clientKey == "198.51.100.4")
        #expect(Self.plan(Self.head(fields: [forwarded]))?.clientKey == "10.0.0.9")
    }

    @Test func everythingElseGoesThroughTheRouter() {
        // Credentials: the sign-in middleware looks them up.
        #expect(Self.plan(Self.head(fields: [("Authorization", "Bearer t")])) == nil)
        #expect(Self.plan(Self.head(fields: [("Cookie", "podium_viewer=\(Self.viewer); podium_auth=t")])) == nil)
        // A refused origin gets the router's answer.
        #expect(Self.plan(Self.head(fields: [("Origin", "http://evil.example")])) == nil)
        #expect(Self.plan(Self.head(fields: [("Origin", "null")])) == nil)
        // Other addresses and methods.
        #expect(Self.plan(Self.head("/api/v1/lobby")) == nil)
        #expect(Self.plan(Self.head("/api/v1/sessions//live")) == nil)
        #expect(Self.plan(Self.head("/api/v1/sessions/AB%20C/live")) == nil)
        #expect(Self.plan(Self.head("/api/v1/sessions/ABC/live/")) == nil)
        #expect(Self.plan(Self.head("/api/v1/sessions/A/B/live")) == nil)
        #expect(Self.plan(Self.head("http://10.0.0.5:8080/api/v1/sessions/ABC/live")) == nil)
        #expect(Self.plan(Self.head(method: .POST)) == nil)
        var twice = Self.head()
        twice.headers.add(name: "Upgrade", value: "websocket")
        #expect(Self.plan(twice) == nil)
    }

    /// The head's fields, read in one pass, are what `HTTPHeaders`' reads by name give: any case,
    /// several values in the order they came, the other fields skipped.
    @Test func theHeadsFieldsAreReadAsByName() {
        let headers = HTTPHeaders([
            ("HOST", "10.0.0.5"), ("cookie", "a=1"), ("X-Other", "z"), ("Cookie", "b=2"), ("sec-websocket-KEY", "k=="),
            ("Sec-WebSocket-Version", "13"), ("x-forwarded-for", "192.0.2.7"), ("X-Forwarded-For", "198.51.100.4"),
            ("ORIGIN", "http://10.0.0.5"), ("upgrade", "websocket"), ("Content-Length", "0"), ("Originals", "no"),
        ])
        let fields = LiveUpgrade.Fields(headers)
        #expect(fields.host == headers["Host"])
        #expect(fields.cookie == headers["Cookie"])
        #expect(fields.cookie == ["a=1", "b=2"])
        #expect(fields.origin == headers["Origin"])
        #expect(fields.upgrade == headers["Upgrade"])
        #expect(fields.forwardedFor == headers["X-Forwarded-For"])
        #expect(fields.forwardedFor.count == 2)
        #expect(fields.contentLength == headers["Content-Length"])
        #expect(fields.webSocketKey == headers["Sec-WebSocket-Key"])
        #expect(fields.webSocketVersion == headers["Sec-WebSocket-Version"])
        #expect(!fields.hasAuthorization && !fields.hasTransferEncoding)
        let credentials = LiveUpgrade.Fields(HTTPHeaders([("AUTHORIZATION", "Bearer t"), ("transfer-ENCODING", "chunked")]))
        #expect(credentials.hasAuthorization && credentials.hasTransferEncoding)
        // Lower-case names are a viewer's upgrade as well; credentials in any case are not.
        let lower = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: "/api/v1/sessions/ABC234/live",
            headers: HTTPHeaders([("host", "10.0.0.5:8080"), ("upgrade", "WebSocket"), ("connection", "upgrade")]))
        #expect(Self.plan(lower) == .init(code: "ABC234", viewerId: nil, clientKey: "10.0.0.9"))
        var signedIn = lower
        signedIn.headers.add(name: "COOKIE", value: "podium_auth=t")
        #expect(Self.plan(signedIn) == nil)
    }

    /// The key and the version are taken only where NIO's `canonicalForm` (split at commas,
    /// trimmed) reads the same single value; a value with a comma is left to NIO's handler.
    @Test func theKeyIsTakenOnlyAsNIOReadsIt() {
        let cases: [[String]] = [
            ["dGhlIHNhbXBsZQ=="], [" dGhlIHNhbXBsZQ== "], ["\tk\t"], [""], [" "], ["a,b"], ["a,"], ["13, 8"], ["a", "b"], [],
        ]
        for values in cases {
            // Taken only with the one value NIO reads; not taken, NIO's handler decides as before.
            if let single = LiveUpgrade.Fields.single(values) {
                #expect(HTTPHeaders(values.map { ("Sec-WebSocket-Key", $0) })[canonicalForm: "Sec-WebSocket-Key"] == [single])
            }
        }
        #expect(LiveUpgrade.Fields.single([" dGhlIHNhbXBsZQ== "]) == "dGhlIHNhbXBsZQ==")
        #expect(LiveUpgrade.Fields.single(["\tk\t"]) == "k")
        #expect(LiveUpgrade.Fields.single(["13"]) == "13")
        for declined: [String] in [[], [""], [" "], ["a,b"], ["a,"], ["13, 8"], ["a", "b"]] {
            #expect(LiveUpgrade.Fields.single(declined) == nil, "\(declined)")
        }
    }

    /// The viewer's `101`, encoded once, is byte for byte what NIO's HTTP encoder writes for the
    /// head NIO's WebSocket upgrader makes (the route's headers, `Upgrade`, the accept value,
    /// `Connection`), and the accept value is RFC 6455's for its example key.
    @Test func theEncodedHandshakeIsWhatNIOsEncoderWrites() throws {
        let key: Substring = "dGhlIHNhbXBsZSBub25jZQ=="
        #expect(LiveUpgradeHandler.accept(key: key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        var headers = LiveUpgrade.headers
        headers.replaceOrAdd(name: "Upgrade", value: "websocket")
        headers.add(name: "Sec-WebSocket-Accept", value: LiveUpgradeHandler.accept(key: key))
        headers.replaceOrAdd(name: "Connection", value: "upgrade")
        let channel = EmbeddedChannel(handler: HTTPResponseEncoder())
        try channel.writeOutbound(
            HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .switchingProtocols, headers: headers)))
        guard case .byteBuffer(let encoded)? = try channel.readOutbound(as: IOData.self) else {
            Issue.record("the encoder wrote no bytes")
            return
        }
        let once = LiveUpgradeHandler.response(key: key, allocator: ByteBufferAllocator())
        #expect(String(buffer: once) == String(buffer: encoded))
        #expect(String(buffer: once).hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(
            String(buffer: once).hasSuffix(
                "\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nConnection: upgrade\r\n\r\n"))
        _ = try channel.finish()
    }

    /// A client's first frames sent with its upgrade request, before the `101`, reach the socket:
    /// the request decoder hands what it read past the head to the WebSocket decoder. A hello in
    /// the same write as the upgrade gets its welcome, and a second one after it is read as one.
    @Test func framesSentWithTheUpgradeRequestAreRead() async throws {
        try await TestServer.withLiveSession { client, _, code in
            let hello = RawWebSocket.frame(RawWebSocket.Opcode.text, payload: Array(#"{"type":"hello","role":"viewer"}"#.utf8))
            let live = try await RawWebSocket.connect(
                port: client.port, path: "/api/v1/sessions/\(code)/live", then: hello + hello)
            let welcome = try #require(await live.nextText())
            #expect(welcome.contains(#""type":"welcome""#))
            // The second hello, read after the first: refused as a second hello, on the same socket.
            var next = try #require(await live.nextText())
            while !next.contains(#""type":"error""#) { next = try #require(await live.nextText()) }
            #expect(next.contains("hello was already sent"))
            live.close()
        }
    }

    /// The `101` of a viewer's upgrade says what the router's says (the lobby's upgrade still goes
    /// through the router).
    @Test func theViewersHandshakeCarriesTheRoutersHeaders() async throws {
        try await TestServer.withLiveSession { client, _, code in
            let live = try await RawWebSocket.connect(port: client.port, path: "/api/v1/sessions/\(code)/live")
            let lobby = try await RawWebSocket.connect(port: client.port, path: "/api/v1/lobby")
            func fields(_ head: String) -> [String] {
                head.split(separator: "\r\n").dropFirst().map { String($0) }.filter {
                    !$0.lowercased().hasPrefix("sec-websocket-accept:")
                }.sorted()
            }
            #expect(fields(live.responseHead) == fields(lobby.responseHead))
            #expect(live.responseHead.contains("Content-Security-Policy: "))
            live.close()
            lobby.close()
        }
    }

    /// How a connection's first request went reaches its task (``UpgradeOutcome``): decided
    /// before the task asks, or while it waits; the first outcome stands (NIO's upgrade handler
    /// fails its own result as it leaves, after a live socket's upgrade was taken).
    @Test func theFirstUpgradeOutcomeStandsWhenAskedBeforeOrAfter() async throws {
        let decided = UpgradeOutcome()
        decided.complete(.success(.socket))
        decided.complete(.failure(ChannelError.inappropriateOperationForState))
        guard case .socket = try await decided.result() else {
            Issue.record("the first outcome did not stand")
            return
        }

        let awaited = UpgradeOutcome()
        let task = Task { try await awaited.result() }
        while !awaited.isWaiting { await Task.yield() }
        awaited.complete(.failure(ChannelError.inputClosed))
        awaited.complete(.success(.socket))
        await #expect(throws: ChannelError.inputClosed) { try await task.value }
    }
}
