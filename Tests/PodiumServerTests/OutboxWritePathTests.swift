import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import PodiumServer

/// Where an outbox writes its frames (``Outbox``'s write path): straight to the channel's core
/// when the live socket's ``WebSocketFraming`` sits directly above the channel (plain TCP), from
/// the framing handler's context when something outbound sits below it (TLS). Either way the
/// client gets the same bytes in the same order, the pipeline's own writes (a pong) included.
@Suite("Outbox write path")
struct OutboxWritePathTests {
    /// An outbound handler that records what passes it, where TLS would sit.
    final class Below: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var writes = 0
        var flushes = 0

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            writes += 1
            context.write(data, promise: promise)
        }

        func flush(context: ChannelHandlerContext) {
            flushes += 1
            context.flush()
        }
    }

    /// A socket whose framing handler says whether it sits above the channel, with `below`
    /// under it.
    struct Socket {
        let loop = EmbeddedEventLoop()
        let channel: EmbeddedChannel
        let outbox: Outbox
        let below = Below()

        init(aboveChannel: Bool) throws {
            channel = EmbeddedChannel(loop: loop)
            try channel.pipeline.syncOperations.addHandler(below)
            try channel.pipeline.syncOperations.addHandler(WebSocketFraming(maxFrameSize: 1 << 16, aboveChannel: aboveChannel))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            outbox = Outbox(limit: 4, channel: channel)
            loop.run()  // it attaches
        }

        /// Everything flushed to the client so far, end to end.
        func sent() throws -> [UInt8] {
            var bytes: [UInt8] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
            return bytes
        }

        /// Every turn of the loop's passes.
        func settle() {
            for _ in 0..<10 { loop.advanceTime(by: LoopBatch.readBreak) }
        }
    }

    static func frame(_ text: String) -> Outbox.Frame { Outbox.Frame(ByteBuffer(string: text)) }
    static func wire(_ text: String) -> [UInt8] { Array(frame(text).wire.readableBytesView) }
    static let pong = WebSocketFrame(fin: true, opcode: .pong, data: ByteBuffer(string: "p"))
    static var pongWire: [UInt8] { Array(WebSocketFraming.wire(pong, allocator: ByteBufferAllocator()).readableBytesView) }

    /// Broadcasts, a frame for the socket alone and a pong written through the pipeline, then a
    /// goodbye: what the client got.
    static func conversation(_ socket: Socket) throws -> [UInt8] {
        let groups = OutboxGroups([socket.outbox])
        groups.send(.push(frame("a")))
        socket.settle()
        socket.channel.writeAndFlush(pong, promise: nil)
        groups.send(.push(frame("b")))
        groups.send(.push(frame("c")))  // b and c in one pass: one joined write
        socket.settle()
        socket.outbox.push(frame("one"))
        socket.settle()
        socket.outbox.close(.finished)
        socket.settle()
        return try socket.sent()
    }

    static var expected: [UInt8] {
        wire("a") + pongWire + wire("b") + wire("c") + wire("one")
            + Array(Frames.closeWire(code: .normalClosure, reason: nil).readableBytesView)
    }

    @Test func aboveTheChannelTheOutboxWritesToTheCoreAndTheClientGetsTheSameBytes() throws {
        let socket = try Socket(aboveChannel: true)
        #expect(socket.outbox.writesToChannelCore)
        #expect(try Self.conversation(socket) == Self.expected)
        // Only the pong went down the pipeline: the outbox's frames went past every handler.
        #expect(socket.below.writes == 1)
    }

    @Test func withAHandlerBelowTheFramingEveryFrameGoesThroughIt() throws {
        let socket = try Socket(aboveChannel: false)
        #expect(!socket.outbox.writesToChannelCore)
        #expect(try Self.conversation(socket) == Self.expected)
        // a, the pong, b and c joined, one, the close frame.
        #expect(socket.below.writes == 5)
    }

    /// A socket that cannot take more keeps its frames (up to its limit) and writes them, in
    /// order, to the core once it can; one more than the limit cuts it off.
    @Test func aSlowSocketOnTheCorePathQueuesThenCatchesUpOrIsCutOff() throws {
        let socket = try Socket(aboveChannel: true)
        let groups = OutboxGroups([socket.outbox])
        socket.channel.isWritable = false
        for name in ["a", "b", "c"] {
            groups.send(.push(Self.frame(name)))
            socket.settle()
        }
        #expect(try socket.sent() == [])
        socket.channel.isWritable = true
        socket.outbox.writabilityChanged()  // as the socket's handler does (the embedded loop is this thread)
        #expect(try socket.sent() == Self.wire("a") + Self.wire("b") + Self.wire("c"))

        socket.channel.isWritable = false
        for name in ["d", "e", "f", "g", "h"] {  // the limit is 4: h is one too many
            groups.send(.push(Self.frame(name)))
            socket.settle()
        }
        #expect(try socket.sent() == [], "a cut-off socket gets no goodbye")
        #expect(socket.outbox.isClosed)
        #expect(!socket.channel.isActive)
    }
}
