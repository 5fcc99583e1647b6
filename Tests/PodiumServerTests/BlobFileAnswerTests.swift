import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import PodiumStore
import Testing

@testable import PodiumServer

/// Picture blobs answered on the connection's loop, below the router (``FileAnswerHandler``), by
/// the route's own decision (``WebController/publicBlob(_:blobs:)``): the same answers as
/// `/blobs/<name>` (ranges, conditional requests, `HEAD`, the middleware's headers, no viewer
/// cookie), everything else passed to the router unchanged, and the order of answers kept.
@Suite("Blob file answers", .timeLimit(.minutes(1)))
struct BlobFileAnswerTests {
    struct Setup {
        let channel: EmbeddedChannel
        let answers: FileAnswers
        let root: URL
        /// A stored JPEG of `bytes` bytes, and a stored segment (a blob `/blobs/` never serves).
        let picture: String
        let segment: String
        let bytes: Int
        let corks: FileAnswerCorkTests.Corks
    }

    /// A plain connection's codec (named as ``PodiumServerChannel`` names it) with the handler
    /// above, answering from a blob store of its own.
    static func setup(size: Int = 40_000) throws -> Setup {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("blobs-\(UUID().uuidString)")
        let blobs = try FileBlobStore(root: root)
        func put(_ bytes: Data, _ fileExtension: String) throws -> String {
            let file = root.appendingPathComponent("upload-\(UUID().uuidString)")
            try bytes.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            return try blobs.put(fileAt: file, fileExtension: fileExtension)
        }
        let picture = try put(Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }), "jpg")
        let segment = try put(Data(repeating: 9, count: 1000), "m4s")
        let answers = FileAnswers(blobs: blobs, serverName: "Podium")
        let corks = FileAnswerCorkTests.Corks()
        let channel = EmbeddedChannel(handler: FileAnswerCork { _, on in corks.set.append(on) })
        try channel.pipeline.syncOperations.addHandler(
            HTTP1ToHTTPServerCodec(secure: false), name: FileRegionBody.plainHTTP1Codec)
        try channel.pipeline.syncOperations.addHandler(FileAnswerHandler(answers: answers))
        return Setup(
            channel: channel, answers: answers, root: root, picture: picture, segment: segment, bytes: size, corks: corks)
    }

    @Test func aPictureIsAnsweredWholeByRangeAndConditionallyWithTheRoutesHeaders() throws {
        let setup = try Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.root) }
        let channel = setup.channel
        let path = "/blobs/\(setup.picture)"

        try StreamFileAnswerTests.request(channel, .GET, path)
        let whole = try StreamFileAnswerTests.answer(channel)
        #expect(whole.head.status == .ok && whole.region == 0..<setup.bytes)
        let headers = whole.head.headers
        #expect(headers["Content-Length"] == ["\(setup.bytes)"])
        #expect(headers["Content-Type"] == ["image/jpeg"])
        #expect(headers["Cache-Control"] == ["public, max-age=31536000, immutable"])
        #expect(headers["Accept-Ranges"] == ["bytes"])
        let entityTag = "\"\(setup.picture.prefix { $0 != "." })\""
        #expect(headers["ETag"] == [entityTag])
        let lastModified = try #require(headers["Last-Modified"].first)
        #expect(headers["X-Frame-Options"] == ["DENY"] && headers["X-Content-Type-Options"] == ["nosniff"])
        #expect(headers["Content-Security-Policy"].first?.hasPrefix("default-src 'self'") == true)
        #expect(headers["Server"] == ["Podium"] && headers["Date"].count == 1)
        // `/blobs/` is not under the channel's middleware: no viewer cookie is given.
        #expect(headers["Set-Cookie"].isEmpty)
        #expect(try StreamFileAnswerTests.routed(channel) == nil)
        #expect(setup.corks.set == [true, false])

        try StreamFileAnswerTests.request(channel, .GET, path, [("Range", "bytes=100-1099")])
        let part = try StreamFileAnswerTests.answer(channel)
        #expect(part.head.status == .partialContent && part.region == 100..<1100)
        #expect(part.head.headers["Content-Range"] == ["bytes 100-1099/\(setup.bytes)"])
        #expect(part.head.headers["Content-Length"] == ["1000"])

        try StreamFileAnswerTests.request(channel, .GET, path, [("If-None-Match", "\"x\", W/\(entityTag)")])
        let unchanged = try StreamFileAnswerTests.answer(channel)
        #expect(unchanged.head.status == .notModified && unchanged.region == nil)
        #expect(unchanged.head.headers["Content-Length"].isEmpty && unchanged.head.headers["ETag"] == [entityTag])

        try StreamFileAnswerTests.request(channel, .GET, path, [("If-Modified-Since", lastModified)])
        #expect(try StreamFileAnswerTests.answer(channel).head.status == .notModified)
        // An older date: the file changed since, so the whole of it.
        try StreamFileAnswerTests.request(channel, .GET, path, [("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")])
        #expect(try StreamFileAnswerTests.answer(channel).region == 0..<setup.bytes)

        try StreamFileAnswerTests.request(channel, .HEAD, path)
        let head = try StreamFileAnswerTests.answer(channel)
        #expect(head.head.status == .ok && head.region == nil && head.head.headers["Content-Length"] == ["\(setup.bytes)"])
        #expect(try StreamFileAnswerTests.routed(channel) == nil)
        #expect(setup.answers.answered == 6)
    }

    /// A picture's whole head is made once and kept, and used only while a `stat` of the file gives
    /// what it was made for: a file written anew (another size), one whose time was changed in
    /// place, and a removed one (the router's 404) are never answered from the kept head.
    @Test func aKeptHeadIsUsedOnlyWhileTheFileIsTheSame() throws {
        let setup = try Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.root) }
        let channel = setup.channel
        let path = "/blobs/\(setup.picture)"
        let file = setup.root.appendingPathComponent(String(setup.picture.prefix(2))).appendingPathComponent(setup.picture)
        func whole() throws -> (head: HTTPResponseHead, region: Range<Int>?) {
            try StreamFileAnswerTests.request(channel, .GET, path)
            return try StreamFileAnswerTests.answer(channel)
        }
        let first = try whole()
        let second = try whole()
        #expect(setup.answers.keptHeads == 1)
        #expect(second.head.headers["Content-Length"] == ["\(setup.bytes)"] && second.region == 0..<setup.bytes)
        #expect(second.head.headers["Last-Modified"] == first.head.headers["Last-Modified"])
        #expect(second.head.headers["Date"].count == 1)

        try Data(repeating: 7, count: 1234).write(to: file, options: .atomic)
        let rewritten = try whole()
        #expect(rewritten.head.headers["Content-Length"] == ["1234"] && rewritten.region == 0..<1234)

        let older = Date(timeIntervalSince1970: 784_111_777)
        try FileManager.default.setAttributes([.modificationDate: older], ofItemAtPath: file.path)
        let touched = try whole()
        #expect(touched.head.headers["Last-Modified"] == ["Sun, 06 Nov 1994 08:49:37 GMT"])
        #expect(touched.head.headers["Content-Length"] == ["1234"])
        #expect(setup.answers.keptHeads == 1)

        try FileManager.default.removeItem(at: file)
        try StreamFileAnswerTests.request(channel, .GET, path)
        #expect(try StreamFileAnswerTests.routed(channel) == path)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        #expect(setup.answers.answered == 4)
    }

    /// Refusals (not a picture, missing, `416`) and whatever the middleware treats differently are
    /// the router's, unchanged.
    @Test func anythingElseGoesToTheRouter() throws {
        let setup = try Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.root) }
        let channel = setup.channel
        let good = "/blobs/\(setup.picture)"
        let missing = "/blobs/\(String(repeating: "0", count: 64)).jpg"
        let cases: [(HTTPMethod, String, [(String, String)])] = [
            (.GET, "/blobs/\(setup.segment)", []),  // stored, but media is served only by stream links: 404
            (.GET, missing, []),  // 404
            (.GET, "/blobs/not-a-blob.jpg", []),  // 404
            (.GET, "/blobs/\(setup.picture.uppercased())", []),
            (.GET, good + "?v=1", []),
            (.GET, good + "/", []),
            (.GET, good, [("Range", "bytes=50000-")]),  // 416
            (.GET, good, [("Authorization", "Bearer x")]),
            (.GET, good, [("Cookie", "podium_auth=abc")]),
            (.GET, good, [("X-Forwarded-Proto", "https")]),
            (.GET, good, [("Connection", "close")]),
            (.GET, good, [("Upgrade", "websocket")]),
            (.POST, good, []),
            (.DELETE, good, []),
        ]
        for (method, path, headers) in cases {
            try StreamFileAnswerTests.request(channel, method, path, headers)
            #expect(try StreamFileAnswerTests.routed(channel) == path, "\(method) \(path) \(headers)")
            #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .notFound)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            guard case .head(let head) = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self)) else {
                throw StreamFileAnswerTests.Failure("not the router's head")
            }
            #expect(head.status == .notFound)
            _ = try channel.readOutbound(as: HTTPServerResponsePart.self)
        }
        #expect(setup.answers.answered == 0)
    }

    /// After a request the router holds, a picture waits for it (it goes to the router too); once
    /// the router has answered, the next is the loop's.
    @Test func pipelinedRequestsKeepTheirOrder() throws {
        let setup = try Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.root) }
        let channel = setup.channel
        let picture = "/blobs/\(setup.picture)"
        try StreamFileAnswerTests.request(channel, .GET, "/api/v1/limits")
        try StreamFileAnswerTests.request(channel, .GET, picture)
        var heads: [String] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) {
            if case .head(let head) = part { heads.append(head.path ?? "") }
        }
        #expect(heads == ["/api/v1/limits", picture])
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        while try channel.readOutbound(as: HTTPServerResponsePart.self) != nil {}
        try StreamFileAnswerTests.request(channel, .GET, picture)
        #expect(try StreamFileAnswerTests.answer(channel).region == 0..<setup.bytes)
        #expect(try StreamFileAnswerTests.routed(channel) == nil)
        #expect(setup.answers.answered == 1)
    }

    /// Over the server's own pipeline, on one kept-alive connection: a picture answered on the loop
    /// has the status, headers and bytes the router gives the same request made with an account's
    /// token (which the loop leaves to the router), whole, by range, conditionally and as `HEAD`;
    /// a JSON answer follows on the same connection, and requests pipelined together get their own
    /// answers in order.
    @Test func overTheServerTheLoopsAnswersAreTheRoutes() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let blob = try BlobRangeTests.putBlob(server, size: 70_001)
        try await server.run { client in
            let token = try await client.login()
            let whole = try await client.request(.get, blob.path)
            #expect(whole.status == .ok && Array(buffer: whole.body) == blob.bytes)
            let entityTag = try #require(whole.headers[.eTag])
            let cases: [(HTTPRequest.Method, HTTPFields)] = [
                (.get, [:]), (.get, [.range: "bytes=5-9"]), (.get, [.range: "bytes=-3"]), (.get, [.ifNoneMatch: entityTag]),
                (.get, [.ifModifiedSince: try #require(whole.headers[.lastModified])]), (.head, [:]),
                (.get, [.range: "bytes=70001-"]),
            ]
            for (method, headers) in cases {
                let loop = try await client.request(method, blob.path, headers: headers)
                let routed = try await client.request(method, blob.path, token: token, headers: headers)
                #expect(loop.status == routed.status, "\(method) \(headers)")
                if loop.headers[.contentType]?.hasPrefix("application/json") == true {
                    // The router's 416: its error body, whose keys JSONEncoder orders as it likes.
                    #expect(NSDictionary(dictionary: try loop.object()) == NSDictionary(dictionary: try routed.object()))
                } else {
                    #expect(loop.body == routed.body, "\(method) \(headers)")
                }
                func named(_ response: TestResponse) -> [String] {
                    response.headers.filter { $0.name != .date }.map { "\($0.name.canonicalName): \($0.value)" }.sorted()
                }
                #expect(named(loop) == named(routed), "\(method) \(headers)")
                #expect(loop.headers[.date] != nil)
            }
            let missing = try await client.request(.get, "/blobs/\(String(repeating: "0", count: 64)).jpg")
            #expect(missing.status == .notFound)
            #expect((try missing.object()["error"] as? [String: Any])?["code"] as? String == "not_found")
            // The same connection, kept alive, answers JSON next.
            let limits = try await client.request(.get, "/api/v1/limits")
            #expect(limits.status == .ok)
            #expect(limits.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect((try? JSONSerialization.jsonObject(with: Data(String(buffer: limits.body).utf8))) != nil)
            // Made at once, so pipelined on the one connection: each gets its own answer.
            async let part = client.request(.get, blob.path, headers: [.range: "bytes=10-19"])
            async let json = client.request(.get, "/api/v1/limits")
            async let unchanged = client.request(.get, blob.path, headers: [.ifNoneMatch: entityTag])
            async let picture = client.request(.get, blob.path)
            let (a, b, c, d) = try await (part, json, unchanged, picture)
            #expect(a.status == .partialContent && Array(buffer: a.body) == Array(blob.bytes[10...19]))
            #expect(b.status == .ok && b.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(c.status == .notModified && c.body.readableBytes == 0)
            #expect(d.status == .ok && Array(buffer: d.body) == blob.bytes)
        }
    }
}
