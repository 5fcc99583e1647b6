import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOPosix
import Testing

@testable import PodiumServer

/// A file answer's head leaves corked with its first bytes (``FileAnswerCork``, nginx's
/// `tcp_nopush`), and the cork never stays on: a corked connection holds a small answer back for
/// 200 ms.
@Suite("File answer cork", .timeLimit(.minutes(1)))
struct FileAnswerCorkTests {
    /// The cork's settings, in order, instead of the socket's.
    final class Corks {
        var set: [Bool] = []
    }

    static func channel() -> (EmbeddedChannel, FileAnswerCork, Corks) {
        let corks = Corks()
        let cork = FileAnswerCork { _, on in corks.set.append(on) }
        return (EmbeddedChannel(handler: cork), cork, corks)
    }

    static let head = HTTPServerResponsePart.head(
        HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "3"]))
    static let body = HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "abc")))

    @Test func aFileAnswersHeadIsCorkedWithItsBytesAndUncorkedOnceItsEndIsFlushed() throws {
        let (channel, cork, corks) = Self.channel()
        cork.expectFileAnswer()
        channel.write(Self.head, promise: nil)
        #expect(corks.set == [true], "corked before the head is passed on")
        channel.flush()
        channel.write(Self.body, promise: nil)
        channel.flush()
        channel.write(HTTPServerResponsePart.end(nil), promise: nil)
        #expect(corks.set == [true], "still corked until the end is flushed")
        channel.flush()
        #expect(corks.set == [true, false])
        // The parts pass unchanged and in order.
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == Self.head)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == Self.body)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == .end(nil))
        // The next answer, not a file's, is not corked.
        try channel.writeOutbound(Self.head)
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(corks.set == [true, false])
        _ = try channel.finish()
    }

    @Test func otherAnswersAreNeverCorked() throws {
        let (channel, _, corks) = Self.channel()
        for _ in 0..<3 {
            try channel.writeOutbound(Self.head)
            try channel.writeOutbound(Self.body)
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }
        #expect(corks.set.isEmpty)
        _ = try channel.finish()
    }

    /// The client went away or a write failed: the connection is closed, and uncorked first.
    @Test func aCorkedConnectionThatClosesIsUncorked() throws {
        let (channel, cork, corks) = Self.channel()
        cork.expectFileAnswer()
        try channel.writeOutbound(Self.head)
        #expect(corks.set == [true])
        try channel.close().wait()
        #expect(corks.set == [true, false])
    }

    /// An answer whose end never came (its body failed and the connection stayed) does not hold
    /// the next one back.
    @Test func theNextHeadUncorksAnAnswerThatNeverEnded() throws {
        let (channel, cork, corks) = Self.channel()
        cork.expectFileAnswer()
        try channel.writeOutbound(Self.head)
        try channel.writeOutbound(Self.body)
        try channel.writeOutbound(Self.head)
        #expect(corks.set == [true, false], "uncorked before the next head")
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(corks.set == [true, false])
        _ = try channel.finish()
    }

    /// `TCP_CORK` on a real connection: set, then cleared.
    @Test func theSocketIsCorkedAndUncorked() async throws {
        #if canImport(Glibc)
            let states = try await withLoopbackConnection { connection in
                try await connection.eventLoop.submit {
                    var states: [SocketOptionValue] = []
                    for on in [true, false] {
                        FileAnswerCork.socketCork(connection, on)
                        states.append(try connection.syncOptions!.getOption(FileAnswerCork.corkOption))
                    }
                    return states
                }.get()
            }
            #expect(states == [1, 0])
        #endif
    }

    /// Over the server's own pipeline: after each file answer on a kept-alive connection, a small
    /// answer on the same connection is not held back by a cork left on (200 ms).
    @Test func aSmallAnswerAfterAFileAnswerIsNotHeldBack() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let blob = try BlobRangeTests.putBlob(server, size: 300_007)
        try await server.run { client in
            var fastest = Duration.seconds(10)
            for range in ["bytes=0-", "bytes=1000-2000", "bytes=-7"] {
                let part = try await client.request(.get, blob.path, headers: [.range: range])
                #expect(part.status == .partialContent)
                let start = ContinuousClock.now
                let health = try await client.request(.get, "/healthz")
                fastest = min(fastest, ContinuousClock.now - start)
                #expect(health.status == .ok)
            }
            // A corked answer waits 200 ms for the kernel's timer; the fastest of three did not.
            #expect(fastest < .milliseconds(200), "fastest small answer after a file answer: \(fastest)")
        }
    }
}
