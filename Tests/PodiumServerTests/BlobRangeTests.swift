import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import PodiumStore
import Synchronization
import Testing

@testable import PodiumServer

/// Blobs and deck downloads answer range and conditional requests (RFC 9110 §13, §14): what
/// seeking in a video and resuming a download need. Every case runs against a real blob over HTTP.
@Suite("Blob ranges", .timeLimit(.minutes(3)))
struct BlobRangeTests {
    /// Random bytes stored in the server's blob store, as ingest would store them.
    struct StoredBlob {
        let name: String
        let bytes: [UInt8]
        var path: String { "/blobs/\(name)" }
        var hash: String { String(name.prefix { $0 != "." }) }
    }

    static func putBlob(_ server: TestServer, size: Int, fileExtension: String = "jpg") throws -> StoredBlob {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("blob-\(UUID().uuidString)")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let name = try FileBlobStore(root: server.configuration.blobDirectory).put(fileAt: file, fileExtension: fileExtension)
        return StoredBlob(name: name, bytes: bytes)
    }

    /// A test server with one stored blob of `size` random bytes.
    static func withBlob(
        size: Int, fileExtension: String = "jpg", _ body: @escaping @Sendable (Client, StoredBlob) async throws -> Void
    ) async throws {
        let server = TestServer()
        defer { server.removeData() }
        let blob = try putBlob(server, size: size, fileExtension: fileExtension)
        try await server.run { client in try await body(client, blob) }
    }

    @Test func aWholeBlobCarriesItsValidatorsAndLength() async throws {
        try await Self.withBlob(size: 10_000) { client, blob in
            let whole = try await client.request(.get, blob.path)
            #expect(whole.status == .ok)
            #expect(Array(buffer: whole.body) == blob.bytes)
            #expect(whole.headers[.acceptRanges] == "bytes")
            #expect(whole.headers[.eTag] == "\"\(blob.hash)\"")
            #expect(whole.headers[.contentLength] == "10000")
            #expect(whole.headers[.contentType] == "image/jpeg")
            #expect(whole.headers[.cacheControl] == "public, max-age=31536000, immutable")
            let lastModified = try #require(whole.headers[.lastModified])
            #expect(HTTPDate.parse(lastModified) != nil, "\(lastModified) is an IMF-fixdate")
            #expect(whole.headers[.contentRange] == nil)
        }
    }

    @Test func oneRangeIsAnsweredWithItsBytes() async throws {
        try await Self.withBlob(size: 10_000) { client, blob in
            let cases: [(header: String, from: Int, to: Int)] = [
                ("bytes=0-99", 0, 99),
                ("bytes=9000-", 9000, 9999),
                ("bytes=-250", 9750, 9999),
                ("bytes=9999-9999", 9999, 9999),
                // Past the end is clamped to the end; a suffix longer than the file is the file.
                ("bytes=5000-99999999999999999999999", 5000, 9999),
                ("bytes=-20000", 0, 9999),
                // Units are case-insensitive; spaces around the list are allowed.
                ("Bytes= 10-19 ", 10, 19),
            ]
            for (header, from, to) in cases {
                let part = try await client.request(.get, blob.path, headers: [.range: header])
                #expect(part.status == .partialContent, "\(header)")
                #expect(part.headers[.contentRange] == "bytes \(from)-\(to)/10000", "\(header)")
                #expect(part.headers[.contentLength] == String(to - from + 1), "\(header)")
                #expect(part.headers[.eTag] == "\"\(blob.hash)\"")
                #expect(part.headers[.contentType] == "image/jpeg")
                #expect(Array(buffer: part.body) == Array(blob.bytes[from...to]), "\(header)")
            }
        }
    }

    @Test func aRangeOutsideTheFileIs416() async throws {
        try await Self.withBlob(size: 10_000) { client, blob in
            for header in ["bytes=10000-", "bytes=20000-30000", "bytes=-0"] {
                let refused = try await client.request(.get, blob.path, headers: [.range: header])
                #expect(refused.status == .rangeNotSatisfiable, "\(header)")
                #expect(refused.headers[.contentRange] == "bytes */10000", "\(header)")
                #expect(refused.errorCode == "range_not_satisfiable", "\(header)")
            }
        }
    }

    @Test func severalOrMalformedRangesGetTheWholeFile() async throws {
        try await Self.withBlob(size: 10_000) { client, blob in
            let headers = [
                "bytes=0-9,20-29",  // several ranges: documented as served whole
                "bytes=0-9, -5",
                "bytes=abc", "bytes=9-5", "bytes=", "bytes=-", "bytes=1-2-3", "bytes 0-9", "items=0-9", "bytes=0x10-20",
                "bytes=+1-2",
            ]
            for header in headers {
                let whole = try await client.request(.get, blob.path, headers: [.range: header])
                #expect(whole.status == .ok, "\(header)")
                #expect(whole.headers[.contentRange] == nil, "\(header)")
                #expect(Array(buffer: whole.body) == blob.bytes, "\(header)")
            }
        }
    }

    @Test func ifRangeServesTheRangeOnlyForTheSameFile() async throws {
        try await Self.withBlob(size: 10_000) { client, blob in
            let head = try await client.request(.head, blob.path)
            let eTag = try #require(head.headers[.eTag])
            let lastModified = try #require(head.headers[.lastModified])
            let matching = [eTag, lastModified]
            for validator in matching {
                let part = try await client.request(.get, blob.path, headers: [.range: "bytes=0-9", .ifRange: validator])
                #expect(part.status == .partialContent, "\(validator)")
                #expect(Array(buffer: part.body) == Array(blob.bytes[0...9]))
            }
            // Another file's tag, a weak tag (never matches strongly), another date, garbage.
            let other = ["\"0000\"", "W/\(eTag)", "Sun, 06 Nov 1994 08:49:37 GMT", "yesterday"]
            for validator in other {
                let whole = try await client.request(.get, blob.path, headers: [.range: "bytes=0-9", .ifRange: validator])
                #expect(whole.status == .ok, "\(validator)")
                #expect(Array(buffer: whole.body) == blob.bytes, "\(validator)")
            }
        }
    }

    @Test func aCachedCopyIsNotSentAgain() async throws {
        try await Self.withBlob(size: 10_000) { client, blob in
            let eTag = "\"\(blob.hash)\""
            let lastModified = try #require(try await client.request(.head, blob.path).headers[.lastModified])
            let fresh: [HTTPFields] = [
                [.ifNoneMatch: eTag], [.ifNoneMatch: "W/\(eTag)"], [.ifNoneMatch: "\"other\", \(eTag)"], [.ifNoneMatch: "*"],
                [.ifModifiedSince: lastModified],
                // If-None-Match wins over the Range it comes with.
                [.ifNoneMatch: eTag, .range: "bytes=0-9"],
            ]
            for headers in fresh {
                let notModified = try await client.request(.get, blob.path, headers: headers)
                #expect(notModified.status == .notModified, "\(headers)")
                #expect(notModified.body.readableBytes == 0)
                #expect(notModified.headers[.eTag] == eTag)
                #expect(notModified.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }
            let stale: [HTTPFields] = [
                [.ifNoneMatch: "\"other\""],
                [.ifModifiedSince: "Sun, 06 Nov 1994 08:49:37 GMT"],
                // If-None-Match that does not match decides: If-Modified-Since is not looked at.
                [.ifNoneMatch: "\"other\"", .ifModifiedSince: lastModified],
            ]
            for headers in stale {
                let whole = try await client.request(.get, blob.path, headers: headers)
                #expect(whole.status == .ok, "\(headers)")
                #expect(Array(buffer: whole.body) == blob.bytes)
            }
            let head = try await client.request(.head, blob.path, headers: [.ifNoneMatch: eTag])
            #expect(head.status == .notModified)
        }
    }

    @Test func headHasTheHeadersAndNoBody() async throws {
        try await Self.withBlob(size: 10_000) { client, blob in
            let get = try await client.request(.get, blob.path)
            let head = try await client.request(.head, blob.path)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            for name in [HTTPField.Name.contentLength, .contentType, .eTag, .lastModified, .acceptRanges, .cacheControl] {
                #expect(head.headers[name] == get.headers[name], "\(name)")
            }
            #expect(head.headers[.contentLength] == "10000")
            // Range is defined for GET only (RFC 9110 §14.2).
            let headWithRange = try await client.request(.head, blob.path, headers: [.range: "bytes=0-9"])
            #expect(headWithRange.status == .ok)
            #expect(headWithRange.headers[.contentLength] == "10000")
            #expect(try await client.request(.head, "/blobs/\(String(repeating: "0", count: 64)).png").status == .notFound)
        }
    }

    @Test func aLargeFileReadByRangesIsReassembledByteForByte() async throws {
        let size = 700 * 1024 + 13
        try await Self.withBlob(size: size) { client, blob in
            var reassembled: [UInt8] = []
            // Uneven pieces, as a player's probing and buffering would ask for them.
            let piece = 97 * 1024 + 7
            while reassembled.count < size {
                let from = reassembled.count
                let part = try await client.request(.get, blob.path, headers: [.range: "bytes=\(from)-\(from + piece - 1)"])
                #expect(part.status == .partialContent)
                let to = min(from + piece, size) - 1
                #expect(part.headers[.contentRange] == "bytes \(from)-\(to)/\(size)")
                reassembled += Array(buffer: part.body)
            }
            #expect(reassembled == blob.bytes)
            let whole = try await client.request(.get, blob.path)
            #expect(Array(buffer: whole.body) == blob.bytes)
        }
    }

    /// The file is read in chunks as the body is written, never whole: a writer that records
    /// what it is given sees several pieces, none larger than FileIO's chunk.
    @Test func theBodyIsStreamedInChunks() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let size = 700 * 1024
        let blob = try Self.putBlob(server, size: size)
        let url = try #require(try FileBlobStore(root: server.configuration.blobDirectory).file(named: blob.name))
        let context = BasicRequestContext(source: .init(channel: EmbeddedChannel(), logger: TestServer.logger()))
        for (range, expected) in [(nil, blob.bytes), ("bytes=1000-600000", Array(blob.bytes[1000...600_000]))] {
            var headers = HTTPFields()
            headers[.range] = range
            let request = Request(
                head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: blob.path, headerFields: headers),
                body: .init(buffer: ByteBuffer()))
            let response = try await RangeResponse(file: url, entityTag: "\"\(blob.hash)\"", headers: [:])
                .response(to: request, context: context)
            let recorder = RecordingWriter()
            let log = recorder.log
            try await response.body.write(recorder)
            #expect(log.chunks.count > 1)
            #expect(log.chunks.allSatisfy { $0.count <= 128 * 1024 })
            #expect(log.chunks.flatMap { $0 } == expected)
            #expect(log.finished)
        }
    }

    @Test func theDeckDownloadAnswersRangesToo() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let original = try Array(Data(contentsOf: TestServer.demoDeck))
            let code = try #require(
                try await client.startSession(deckId: deckId, token: token, allowDownload: true)["code"] as? String)
            for path in ["/api/v1/decks/\(deckId)/pdf", "/api/v1/sessions/\(code)/download"] {
                let whole = try await client.request(.get, path, token: token)
                #expect(whole.status == .ok, "\(path)")
                #expect(Array(buffer: whole.body) == original)
                #expect(whole.headers[.acceptRanges] == "bytes")
                #expect(whole.headers[.contentType] == "application/pdf")
                #expect(whole.headers[.contentDisposition]?.hasPrefix("attachment; filename=") == true)
                let eTag = try #require(whole.headers[.eTag])
                let part = try await client.request(
                    .get, path, token: token, headers: [.range: "bytes=-100", .ifRange: eTag])
                #expect(part.status == .partialContent)
                #expect(part.headers[.contentRange] == "bytes \(original.count - 100)-\(original.count - 1)/\(original.count)")
                #expect(part.headers[.contentDisposition] == whole.headers[.contentDisposition])
                #expect(Array(buffer: part.body) == Array(original.suffix(100)))
                let head = try await client.request(.head, path, token: token)
                #expect(head.status == .ok, "\(path)")
                #expect(head.headers[.contentLength] == String(original.count))
                #expect(head.body.readableBytes == 0)
                #expect(try await client.request(.get, path, token: token, headers: [.ifNoneMatch: eTag]).status == .notModified)
                let refused = try await client.request(.get, path, token: token, headers: [.range: "bytes=\(original.count)-"])
                #expect(refused.status == .rangeNotSatisfiable)
                #expect(refused.headers[.contentRange] == "bytes */\(original.count)")
            }
            // Access is checked before any of it: no deck, no bytes.
            #expect(try await client.request(.head, "/api/v1/decks/\(deckId)/pdf").status == .unauthorized)
        }
    }

    @Test func mediaTypesForAudioVideoAndSubtitles() async throws {
        let expected = [
            "a.mp4": "video/mp4", "a.m4s": "video/iso.segment", "a.m4a": "audio/mp4",
            "a.m3u8": "application/vnd.apple.mpegurl", "a.webm": "video/webm", "a.mp3": "audio/mpeg", "a.aac": "audio/aac",
            "a.vtt": "text/vtt; charset=utf-8", "a.webp": "image/webp", "a.json": "application/json", "a.ts": "video/mp2t",
            "a.jpg": "image/jpeg", "a.png": "image/png", "a.pdf": "application/pdf", "a.MP4": "video/mp4",
            "a.bin": "application/octet-stream",
        ]
        for (name, type) in expected { #expect(WebController.mediaType(for: name) == type, "\(name)") }
        // And as served: `/blobs/` serves pictures (media only by stream URL: ProtectedMediaTests).
        try await Self.withBlob(size: 100, fileExtension: "webp") { client, blob in
            let head = try await client.request(.head, blob.path)
            #expect(head.headers[.contentType] == "image/webp")
        }
    }

    @Test func theContentSecurityPolicyAllowsMediaFromHereAndBlobURLsOnly() async throws {
        try await Self.withBlob(size: 100) { client, blob in
            for path in ["/", blob.path] {
                let policy = try #require(try await client.request(.get, path).headers[.contentSecurityPolicy])
                let directives = policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                #expect(directives.filter { $0.hasPrefix("media-src") } == ["media-src 'self' blob:"], "\(policy)")
                // Nothing else was loosened.
                #expect(directives.contains("default-src 'self'"))
                #expect(directives.contains("script-src 'self'"))
                #expect(directives.contains("connect-src 'self' ws: wss:"))
            }
        }
    }

    @Test func rangeHeadersParseAsRFC9110Says() {
        let size = 1000
        let cases: [(String, RangeResponse.RangeRequest)] = [
            ("bytes=0-0", .satisfiable(0...0)), ("bytes=0-", .satisfiable(0...999)), ("bytes=-1", .satisfiable(999...999)),
            ("bytes=500-2000", .satisfiable(500...999)), ("BYTES=1-2", .satisfiable(1...2)), ("bytes=1-2,", .satisfiable(1...2)),
            ("bytes=1000-", .unsatisfiable), ("bytes=-0", .unsatisfiable), ("bytes=1000-1000", .unsatisfiable),
            ("bytes=2-1", .ignored), ("bytes=0-1,3-4", .ignored), ("bytes=", .ignored), ("bytes=-", .ignored),
            ("bytes= 1 -2", .ignored), ("lines=0-1", .ignored), ("0-1", .ignored), ("bytes=a-b", .ignored),
            ("bytes=-1-", .ignored),
        ]
        for (header, expected) in cases {
            #expect(RangeResponse.parse(header, size: size) == expected, "\(header)")
        }
        // An empty file has no bytes to give: its (empty) whole.
        #expect(RangeResponse.parse("bytes=-5", size: 0) == .ignored)
        #expect(RangeResponse.parse("bytes=0-", size: 0) == .unsatisfiable)
    }

    /// One `stat`: the size and the modification time in whole seconds; anything but a regular
    /// file (missing, a directory) is the 404 a missing blob gets.
    @Test func aFileIsReadWithOneStat() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("range-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file")
        try Data(repeating: 1, count: 1234).write(to: file)
        let modified = Date(timeIntervalSince1970: 1_800_000_000.75)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)

        let answer = try RangeResponse(path: file.path, entityTag: "\"t\"", headers: [:])
        #expect(answer.size == 1234)
        #expect(answer.modified == Date(timeIntervalSince1970: 1_800_000_000))
        for path in [directory.path, directory.appendingPathComponent("missing").path] {
            #expect(throws: APIError.self, "\(path)") { try RangeResponse(path: path, entityTag: "\"t\"", headers: [:]) }
        }
    }

    /// `HTTPDate.format` counts days itself: the same text as `Calendar`'s GMT components give,
    /// for dates since the Gregorian calendar began (1582) and after 2100.
    @Test func httpDatesAreFormattedAsCalendarSaysThem() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        func byCalendar(_ date: Date) -> String {
            let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
            let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
            let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
            return "\(days[parts.weekday! - 1]), \(two(parts.day)) \(months[parts.month! - 1]) \(parts.year!) "
                + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
        }
        var generator = SystemRandomNumberGenerator()
        let edges: [Int] = [0, -1, 86_399, 86_400, 951_782_400, 951_868_800, 4_107_542_400, -12_219_292_800, 253_402_300_799]
        let seconds = edges + (0..<2000).map { _ in Int.random(in: -12_219_292_800...7_258_118_400, using: &generator) }
        for second in seconds {
            let date = Date(timeIntervalSince1970: TimeInterval(second))
            #expect(HTTPDate.format(date) == byCalendar(date), "\(second)")
        }
        // A fraction of a second is dropped, as `Last-Modified` has it.
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777.9)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -0.5)) == "Wed, 31 Dec 1969 23:59:59 GMT")
    }

    /// The extension `/blobs/` checks is `NSString`'s, without bridging.
    @Test func aBlobsExtensionIsWhatNSStringSays() {
        for name in ["ab.jpg", "ab.JPEG", "a.b.png", "noext", "ends.", ".jpg", "..jpg", "a..webp", "x.tar.gz", ""] {
            #expect(String(WebController.fileExtension(name)) == (name as NSString).pathExtension, "\(name)")
        }
    }

    @Test func httpDatesRoundTrip() throws {
        let date = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.format(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == date)
        for text in ["Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 6 Nov 1994 08:49:37 GMT", ""] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }
}

/// Records what a response body writes, piece by piece.
struct RecordingWriter: ResponseBodyWriter {
    final class Log: Sendable {
        let state = Mutex<(chunks: [[UInt8]], finished: Bool)>(([], false))
        var chunks: [[UInt8]] { state.withLock { $0.chunks } }
        var finished: Bool { state.withLock { $0.finished } }
    }
    let log = Log()

    func write(_ buffer: ByteBuffer) async throws { log.state.withLock { $0.chunks.append(Array(buffer: buffer)) } }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws { log.state.withLock { $0.finished = true } }
}
