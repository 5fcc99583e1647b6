import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import PodiumServer

/// Whole WebSocket frames built once per event must be byte for byte what NIO's encoder writes.
@Suite("Wire frames")
struct FramesTests {
    @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 200_000])
    func matchNIOsEncoder(length: Int) throws {
        let payload = ByteBuffer(repeating: UInt8(ascii: "x"), count: length)
        let channel = EmbeddedChannel(handler: WebSocketFrameEncoder())
        try channel.writeOutbound(WebSocketFrame(fin: true, opcode: .text, data: payload))
        var expected = ByteBuffer()
        while var part = try channel.readOutbound(as: ByteBuffer.self) { expected.writeBuffer(&part) }
        #expect(Frames.wire(payload) == expected)
        _ = try channel.finish()
    }
}
