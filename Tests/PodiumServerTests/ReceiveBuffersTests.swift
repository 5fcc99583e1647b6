import HTTPTypes
import NIOCore
import Testing

@testable import PodiumServer

/// A connection's receive buffers (``ReceiveBuffers``): a socket keeps one small buffer once it is
/// a socket, and still reads whatever its client may send.
@Suite("Receive buffers", .timeLimit(.minutes(2)))
struct ReceiveBuffersTests {
    /// ``ReceiveBuffers/settle(_:)`` puts back NIO's reads per wake-up after dropping the pool's
    /// extra buffers: that count must be the one NIO gives a connection, or every socket would
    /// read differently from plain HTTP after its trim.
    @Test func aSettledConnectionReadsAsNIOsDefaultDoes() async throws {
        let (before, after, initial) = try await withLoopbackConnection { connection in
            try await connection.eventLoop.submit {
                let options = try #require(connection.syncOptions)
                let before = try options.getOption(ChannelOptions.maxMessagesPerRead)
                try ReceiveBuffers.settle(connection)
                let allocator = try options.getOption(ChannelOptions.recvAllocator) as? AdaptiveRecvByteBufferAllocator
                return (before, try options.getOption(ChannelOptions.maxMessagesPerRead), allocator?.initial)
            }.get()
        }
        #expect(before == ReceiveBuffers.readsPerWakeup, "NIO's default reads per wake-up changed")
        #expect(after == before)
        #expect(initial == 256)
    }

    /// A browser's upgrade is several reads of the small first buffer (its cookies make it about
    /// 1,500 bytes here); once it is a socket, the pool is trimmed to its first buffer, and a
    /// message near the largest a viewer may send (64 KiB) still arrives whole, read in growing
    /// reads, followed by a small one.
    @Test func aLargeMessageArrivesWholeAfterALongUpgrade() async throws {
        try await TestServer.withLiveSession { client, _, code in
            let cookie = "theme=" + String(repeating: "c", count: 1_200)
            let socket = try await client.socket(
                code: code,
                headers: [
                    .cookie: cookie, .origin: "http://127.0.0.1:\(client.port)",
                    .userAgent:
                        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
                ])
            #expect(try await socket.hello(["role": "viewer"])["type"] as? String == "welcome")
            let pad = String(repeating: "x", count: 60_000)
            try await socket.send(#"{"type":"ping","t":1,"pad":"\#(pad)"}"#)
            try await socket.send(#"{"type":"ping","t":2}"#)
            let first = try #require(try await socket.next(ofType: "pong"))
            let second = try #require(try await socket.next(ofType: "pong"))
            #expect(first["t"] as? Double == 1)
            #expect(second["t"] as? Double == 2)
        }
    }
}
