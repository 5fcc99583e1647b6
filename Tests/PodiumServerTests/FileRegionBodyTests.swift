import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Testing

@testable import PodiumServer

/// Files are sent below Hummingbird's body writer as NIO's `FileRegion` (``FileRegionBody``):
/// on a plain HTTP/1 connection the region goes to NIO's HTTP/1 encoder and the socket sends it
/// with `sendfile`; a connection without the plain codec (TLS) gets the bytes read and written
/// through the writer. The range and conditional answers around it are BlobRangeTests'.
@Suite("File region bodies", .timeLimit(.minutes(2)))
struct FileRegionBodyTests {
    static func file(size: Int) throws -> (URL, [UInt8]) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("region-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        return (url, bytes)
    }

    static func get(range: String? = nil) -> Request {
        var headers = HTTPFields()
        headers[.range] = range
        return Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/blobs/x", headerFields: headers),
            body: .init(buffer: ByteBuffer()))
    }

    @Test func onAPlainConnectionTheRangeGoesBelowTheCodecAsOneRegion() async throws {
        let (url, _) = try Self.file(size: 300_000)
        defer { try? FileManager.default.removeItem(at: url) }
        let channel = NIOAsyncTestingChannel()
        try await channel.pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false), name: FileRegionBody.plainHTTP1Codec)
        let context = AppRequestContext(source: .init(channel: channel, logger: TestServer.logger()))
        for (range, bytes) in [(nil, 0..<300_000), ("bytes=1000-200000", 1000..<200_001), ("bytes=-10", 299_990..<300_000)] {
            let response = try await RangeResponse(file: url, entityTag: "\"x\"", headers: [:])
                .response(to: Self.get(range: range), context: context)
            #expect(response.body.contentLength == bytes.count)
            let recorder = RecordingWriter()
            let log = recorder.log
            try await response.body.write(recorder)
            // Nothing went through the writer but its end; the bytes went to the encoder as a region.
            #expect(log.chunks.isEmpty)
            #expect(log.finished)
            let part = try #require(try await channel.readOutbound(as: HTTPServerResponsePart.self))
            guard case .body(.fileRegion(let region)) = part else {
                Issue.record("not a file region: \(part)")
                continue
            }
            #expect(region.readerIndex == bytes.lowerBound && region.endIndex == bytes.upperBound, "\(range ?? "whole")")
            #expect(!region.fileHandle.isOpen, "closed once the socket took it")
        }
        #expect(try await channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
    }

    /// A connection whose HTTP codec is not the plain one (TLS: NIOSSL cannot encrypt a region)
    /// gets the bytes read in chunks and written through Hummingbird's writer.
    @Test func withoutThePlainCodecTheBytesAreReadAndWritten() async throws {
        let (url, bytes) = try Self.file(size: 300_000)
        defer { try? FileManager.default.removeItem(at: url) }
        let channel = NIOAsyncTestingChannel()
        try await channel.pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: true), name: "tls-http1")
        let context = AppRequestContext(source: .init(channel: channel, logger: TestServer.logger()))
        for (range, expected) in [(nil, bytes), ("bytes=1000-200000", Array(bytes[1000...200_000]))] {
            let response = try await RangeResponse(file: url, entityTag: "\"x\"", headers: [:])
                .response(to: Self.get(range: range), context: context)
            let recorder = RecordingWriter()
            let log = recorder.log
            try await response.body.write(recorder)
            #expect(log.chunks.flatMap { $0 } == expected)
            #expect(log.chunks.count > 1 && log.chunks.allSatisfy { $0.count <= 128 * 1024 })
            #expect(log.finished)
        }
        #expect(try await channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
    }

    /// Over a real connection (the server's own pipeline): a file of several megabytes, whole and
    /// by ranges, arrives byte for byte with its length, with keep-alive requests after it; with
    /// `sendfile` (the default) and without (``ServerConfiguration/sendfile`` false: buffers).
    @Test(arguments: [true, false])
    func aServerSendsLargeBlobsWholeAndByRanges(sendfile: Bool) async throws {
        let server = TestServer { $0.sendfile = sendfile }
        defer { server.removeData() }
        let size = 6 * 1024 * 1024 + 7
        let blob = try BlobRangeTests.putBlob(server, size: size)
        try await server.run { client in
            for _ in 0..<2 {
                let whole = try await client.request(.get, blob.path)
                #expect(whole.status == .ok)
                #expect(whole.headers[.contentLength] == String(size))
                #expect(Array(buffer: whole.body) == blob.bytes)
            }
            let part = try await client.request(.get, blob.path, headers: [.range: "bytes=3000000-"])
            #expect(part.status == .partialContent)
            #expect(part.headers[.contentRange] == "bytes 3000000-\(size - 1)/\(size)")
            #expect(Array(buffer: part.body) == Array(blob.bytes[3_000_000...]))
            let small = try await client.request(.get, blob.path, headers: [.range: "bytes=10-19"])
            #expect(Array(buffer: small.body) == Array(blob.bytes[10...19]))
        }
    }
}
