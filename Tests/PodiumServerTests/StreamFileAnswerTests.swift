import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization
import Testing

@testable import PodiumServer

/// Stream files answered on the connection's loop, below the router (``FileAnswerHandler``):
/// the same answers as the stream route for a held file (ranges, conditional requests, `HEAD`, the
/// viewer cookie, the middleware's headers), everything else passed to the router unchanged, and
/// the order of answers kept on a kept-alive, pipelined connection.
@Suite("Stream file answers", .timeLimit(.minutes(1)))
struct StreamFileAnswerTests {
    static let key = [UInt8](repeating: 7, count: 32)
    static let segment = String(repeating: "ab", count: 32) + ".m4s"

    /// A source that holds one file of one clip, as a held blob set would.
    struct HeldSource: StreamSource {
        let files: [String: String]
        func respond(file: String, claims: StreamClaims, request: Request, context: AppRequestContext) async throws -> Response {
            throw APIError.notFound("file")
        }
        func heldFile(_ file: String, claims: StreamClaims) -> String? {
            claims.id == "c1" ? files[file] : nil
        }
    }

    struct Setup {
        let channel: EmbeddedChannel
        let answers: FileAnswers
        let tokens: StreamTokens
        let bytes: Int
        let url: URL
        let corks: FileAnswerCorkTests.Corks
        var token: String { tokens.issue(resource: "clip:c1", viewerKey: "v_x").token }
    }

    /// A plain connection's codec (named as ``PodiumServerChannel`` names it) with the handler above.
    static func setup(size: Int = 50_000, now: Date = Date()) throws -> Setup {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
        try Data(repeating: 1, count: size).write(to: url)
        let tokens = StreamTokens(keyBytes: key, lifetime: 600, now: { now })
        let answers = FileAnswers(
            streams: StreamController(
                tokens: tokens, sources: ["clip": HeldSource(files: [segment: url.path, "gone.m4s": "/nowhere"])]),
            serverName: "Podium")
        let corks = FileAnswerCorkTests.Corks()
        let channel = EmbeddedChannel(handler: FileAnswerCork { _, on in corks.set.append(on) })
        try channel.pipeline.syncOperations.addHandler(
            HTTP1ToHTTPServerCodec(secure: false), name: FileRegionBody.plainHTTP1Codec)
        try channel.pipeline.syncOperations.addHandler(FileAnswerHandler(answers: answers))
        return Setup(channel: channel, answers: answers, tokens: tokens, bytes: size, url: url, corks: corks)
    }

    static func request(
        _ channel: EmbeddedChannel, _ method: HTTPMethod = .GET, _ uri: String, _ headers: [(String, String)] = []
    )
        throws
    {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
        head.headers.add(name: "Host", value: "localhost")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        try channel.writeInbound(HTTPServerRequestPart.head(head))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
    }

    /// The answer given on the loop: its head, the region's bytes, and that it ended.
    static func answer(_ channel: EmbeddedChannel) throws -> (head: HTTPResponseHead, region: Range<Int>?) {
        guard case .head(let head) = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self)) else {
            throw Failure("no head first")
        }
        var region: Range<Int>?
        var part = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self))
        if case .body(.fileRegion(let file)) = part {
            region = file.readerIndex..<file.endIndex
            part = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self))
        }
        guard case .end = part else { throw Failure("no end after the body: \(part)") }
        return (head, region)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The request the router got, if one did.
    static func routed(_ channel: EmbeddedChannel) throws -> String? {
        var path: String?
        while let part = try channel.readInbound(as: HTTPRequestPart.self) {
            if case .head(let head) = part { path = head.path }
        }
        return path
    }

    @Test func aHeldFileIsAnsweredWholeByRangeAndConditionallyWithTheRoutesHeaders() throws {
        let setup = try Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.url) }
        let channel = setup.channel
        let path = "/stream/\(setup.token)/\(Self.segment)"

        try Self.request(channel, .GET, path)
        let whole = try Self.answer(channel)
        #expect(whole.head.status == .ok && whole.region == 0..<setup.bytes)
        let headers = whole.head.headers
        #expect(headers["Content-Length"] == ["\(setup.bytes)"])
        #expect(headers["Content-Type"] == ["video/iso.segment"])
        #expect(headers["Cache-Control"] == ["private, max-age=31536000, immutable"])
        #expect(headers["Accept-Ranges"] == ["bytes"])
        let entityTag = "\"\(String(repeating: "ab", count: 32))\""
        #expect(headers["ETag"] == [entityTag])
        let lastModified = try #require(headers["Last-Modified"].first)
        #expect(headers["X-Frame-Options"] == ["DENY"] && headers["X-Content-Type-Options"] == ["nosniff"])
        #expect(headers["Content-Security-Policy"].first?.hasPrefix("default-src 'self'") == true)
        #expect(headers["Server"] == ["Podium"] && headers["Date"].count == 1)
        // A browser without a viewer cookie is given one, as the channel's middleware does.
        #expect(headers["Set-Cookie"].first?.hasPrefix("podium_viewer=v_") == true)
        #expect(try Self.routed(channel) == nil)
        // The head was corked with the bytes, and uncorked once its end was flushed.
        #expect(setup.corks.set == [true, false])

        let viewer = ("Cookie", "podium_viewer=\(InteractionTests.identity(3))")
        try Self.request(channel, .GET, path, [("Range", "bytes=10-19"), viewer])
        let part = try Self.answer(channel)
        #expect(part.head.status == .partialContent && part.region == 10..<20)
        #expect(part.head.headers["Content-Range"] == ["bytes 10-19/\(setup.bytes)"])
        #expect(part.head.headers["Content-Length"] == ["10"])
        #expect(part.head.headers["Set-Cookie"].isEmpty)

        try Self.request(channel, .GET, path, [("If-None-Match", entityTag), viewer])
        let unchanged = try Self.answer(channel)
        #expect(unchanged.head.status == .notModified && unchanged.region == nil)
        #expect(unchanged.head.headers["Content-Length"].isEmpty && unchanged.head.headers["ETag"] == [entityTag])

        try Self.request(channel, .GET, path, [("If-Modified-Since", lastModified), viewer])
        #expect(try Self.answer(channel).head.status == .notModified)
        try Self.request(channel, .GET, path, [("If-None-Match", "\"other\""), viewer])
        #expect(try Self.answer(channel).head.status == .ok)

        try Self.request(channel, .HEAD, path, [viewer])
        let head = try Self.answer(channel)
        #expect(head.head.status == .ok && head.region == nil && head.head.headers["Content-Length"] == ["\(setup.bytes)"])
        // Answers without bytes are never corked.
        #expect(setup.corks.set == [true, false, true, false, true, false])
        #expect(try Self.routed(channel) == nil)
        #expect(setup.answers.answered == 6)
    }

    /// Refusals and whatever the middleware treats differently are the router's, unchanged.
    @Test func anythingElseGoesToTheRouter() throws {
        let setup = try Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.url) }
        let channel = setup.channel
        let good = "/stream/\(setup.token)/\(Self.segment)"
        let expired = StreamTokens(keyBytes: Self.key, lifetime: 600, now: { Date() - 3600 })
            .issue(resource: "clip:c1", viewerKey: "v_x").token
        let cases: [(String, [(String, String)])] = [
            ("/stream/abc.def/\(Self.segment)", []),  // forged
            ("/stream/\(expired)/\(Self.segment)", []),  // expired: 410
            ("/stream/\(setup.token)/other.m4s", []),  // not the resource's
            ("/stream/\(setup.token)/gone.m4s", []),  // held but missing: 404
            ("/stream/\(setup.tokens.issue(resource: "clip:c2", viewerKey: "v_x").token)/\(Self.segment)", []),
            ("/stream/\(setup.token)/..%2F\(Self.segment)", []),
            (good + "?a=b", []),
            (good, [("Range", "bytes=60000-")]),  // 416
            (good, [("Authorization", "Bearer x")]),
            (good, [("Cookie", "podium_auth=abc")]),
            (good, [("X-Forwarded-Proto", "https")]),
            (good, [("Connection", "close")]),
            ("/api/v1/health", []),
        ]
        for (path, headers) in cases {
            try Self.request(channel, .GET, path, headers)
            #expect(try Self.routed(channel) == path, "\(path) \(headers)")
            #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
            // The router's answer passes through.
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .notFound)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            guard case .head(let head) = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self)) else {
                throw Failure("not the router's head")
            }
            #expect(head.status == .notFound)
            _ = try channel.readOutbound(as: HTTPServerResponsePart.self)
        }
        #expect(setup.answers.answered == 0)
    }

    /// Pipelined requests are answered in order: after a request the router holds, a held file
    /// waits for it (it goes to the router too); once the router has answered, the next is the loop's.
    @Test func pipelinedRequestsKeepTheirOrder() throws {
        let setup = try Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.url) }
        let channel = setup.channel
        let segment = "/stream/\(setup.token)/\(Self.segment)"
        try Self.request(channel, .GET, "/api/v1/health")
        try Self.request(channel, .GET, segment)
        var heads: [String] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) {
            if case .head(let head) = part { heads.append(head.path ?? "") }
        }
        #expect(heads == ["/api/v1/health", segment])
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        while try channel.readOutbound(as: HTTPServerResponsePart.self) != nil {}
        // Every routed answer ended: the next held file is answered here.
        try Self.request(channel, .GET, segment)
        #expect(try Self.answer(channel).region == 0..<setup.bytes)
        #expect(try Self.routed(channel) == nil)
        #expect(setup.answers.answered == 1)
    }

    /// Over the server's own pipeline, on one kept-alive connection: a held segment answered on the
    /// loop (a browser with its viewer cookie) has the status, headers and bytes the router gives
    /// the same request made with an account's token (which the loop leaves to the router), whole,
    /// by range, conditionally and as `HEAD`; a JSON answer follows on the same connection.
    @Test func overTheServerTheLoopsAnswersAreTheRoutes() async throws {
        try await ChannelVideoAPITests.withServer(.sqlite) { client, store, blobs, clock, token in
            let seeded = try await ChannelVideoAPITests.seedCatalogue(client, store, blobs, clock, token: token)
            let viewer: HTTPFields = [.cookie: "podium_viewer=\(InteractionTests.identity(7))"]
            let stream = try await client.request(.get, "/api/v1/channel/videos/\(seeded.free)/stream", headers: viewer)
            let url = try #require(try stream.object()["url"] as? String)
            let video = try #require(seeded.videos["free"])
            // The master playlist is the router's (captions); it loads the video's blob set.
            #expect(try await client.request(.get, url, headers: viewer).status == .ok)
            let segment = String(url.dropLast(video.master.count)) + video.segments[0]
            let whole = try await client.request(.get, segment, headers: viewer)
            let entityTag = try #require(whole.headers[.eTag])
            let cases: [(HTTPRequest.Method, HTTPFields)] = [
                (.get, [:]), (.get, [.range: "bytes=5-9"]), (.get, [.range: "bytes=-3"]), (.get, [.ifNoneMatch: entityTag]),
                (.get, [.ifModifiedSince: try #require(whole.headers[.lastModified])]), (.head, [:]),
            ]
            for (method, headers) in cases {
                var asViewer = headers
                asViewer.append(contentsOf: viewer)
                let loop = try await client.request(method, segment, headers: asViewer)
                let routed = try await client.request(method, segment, token: token, headers: headers)
                #expect(loop.status == routed.status, "\(method) \(headers)")
                #expect(loop.body == routed.body, "\(method) \(headers)")
                func named(_ response: TestResponse) -> [String] {
                    response.headers.filter { $0.name != .date }.map { "\($0.name.canonicalName): \($0.value)" }.sorted()
                }
                #expect(named(loop) == named(routed), "\(method) \(headers)")
                #expect(loop.headers[.date] != nil)
            }
            #expect(whole.status == .ok && whole.body.readableBytes == Int(whole.headers[.contentLength] ?? "") ?? -1)
            // The same connection, kept alive, answers JSON next.
            let list = try await client.request(.get, "/api/v1/channel/videos", headers: viewer)
            #expect(list.status == .ok)
            #expect(list.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect((try? JSONSerialization.jsonObject(with: Data(String(buffer: list.body).utf8))) != nil)
        }
    }

    /// A socket that has not taken a region yet: its write completes when the test says.
    final class SlowSocket: ChannelOutboundHandler {
        typealias OutboundIn = HTTPServerResponsePart
        var regionWritten: EventLoopPromise<Void>?
        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .body(.fileRegion) = unwrapOutboundIn(data) {
                regionWritten = promise
                context.write(data, promise: nil)
            } else {
                context.write(data, promise: promise)
            }
        }
    }

    /// While a region answered here is still being written, the next request goes to the router and
    /// its answer waits behind this one's end, which follows the region (the cork comes off then).
    @Test func theRoutersAnswerWaitsForTheRegionAndItsEnd() throws {
        let setup = try Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.url) }
        let channel = setup.channel
        let socket = SlowSocket()
        try channel.pipeline.syncOperations.addHandler(socket, position: .first)
        let segment = "/stream/\(setup.token)/\(Self.segment)"
        try Self.request(channel, .GET, segment)
        guard case .head = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self)) else {
            throw Failure("no head")
        }
        guard case .body(.fileRegion) = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self)) else {
            throw Failure("no region")
        }
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil, "no end before the region is written")
        #expect(setup.corks.set == [true])
        try Self.request(channel, .GET, segment)
        #expect(try Self.routed(channel) == segment)
        // Not `writeOutbound`, which waits for the write: held here until the region is written.
        let routerWrote = channel.eventLoop.makePromise(of: Void.self)
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.writeAndFlush(HTTPResponsePart.end(nil), promise: routerWrote)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil, "the router's answer waits")
        try #require(socket.regionWritten).succeed()
        guard case .end = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self)) else {
            throw Failure("not the end first")
        }
        guard case .head(let routed) = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self)) else {
            throw Failure("not the router's head next")
        }
        #expect(routed.status == .ok)
        try routerWrote.futureResult.wait()
        #expect(setup.corks.set == [true, false])
    }

    @Test func targetsAreAStreamsTokenAndFileOrABlobsNameOfPlainLetters() {
        #expect(FileAnswers.target("/stream/a.b/c.m4s") == .stream(token: "a.b", file: "c.m4s"))
        #expect(FileAnswers.target("/stream/a-_b/c") == .stream(token: "a-_b", file: "c"))
        #expect(FileAnswers.target("/blobs/ab12.jpg") == .blob(name: "ab12.jpg"))
        for target in [
            "/stream/a.b", "/stream//c", "/stream/a.b/", "/stream/a/b/c", "/stream/a%2Fb/c", "/blobs/a/b", "/stream/a/b?x",
            "/blobs/", "/blobs//a.jpg", "/blobs/a.jpg/", "/blobs/a.jpg?x=1", "/blobs/a%2E.jpg", "/blob/a.jpg", "/api/v1/x",
        ] {
            #expect(FileAnswers.target(target) == nil, "\(target)")
        }
    }
}
