import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import PodiumServer

/// ``WebSocketFraming`` must read what NIO's frame decoder reads and refuse what it refuses, at the
/// same frame, however the bytes are split into reads; and write frames as NIO's encoder does.
@Suite("WebSocket framing")
struct WebSocketFramingTests {
    typealias SplitMix = HostileInputTests.SplitMix

    /// What a decoder made of a stream of reads: its frames, then the error it stopped at.
    struct Outcome: Equatable, CustomStringConvertible {
        var frames: [WebSocketFrame] = []
        var error: String?
        var description: String { "\(frames.count) frames, error \(error ?? "none")" }
    }

    static func decode(_ reads: [[UInt8]], with handler: any ChannelHandler) throws -> Outcome {
        let channel = EmbeddedChannel(handler: handler)
        var outcome = Outcome()
        for read in reads {
            do {
                try channel.writeInbound(ByteBuffer(bytes: read))
            } catch {
                outcome.error = "\(error)"
            }
            while let frame = try channel.readInbound(as: WebSocketFrame.self) { outcome.frames.append(frame) }
            if outcome.error != nil { break }
        }
        _ = try? channel.finish()
        return outcome
    }

    /// A frame's bytes with any first byte, length encoding, mask and payload, honest or not.
    static func randomFrame(_ random: inout SplitMix, maxFrameSize: Int) -> [UInt8] {
        let first = UInt8(truncatingIfNeeded: random.next())
        let masked = random.next() % 4 != 0
        let lengths = [0, 1, 5, 125, 126, 127, 200, 65_535, 65_536, maxFrameSize, maxFrameSize + 1]
        let length = Int(
            random.next() % 3 == 0 ? random.next() % 300 : UInt64(lengths[Int(random.next() % UInt64(lengths.count))]))
        var bytes: [UInt8] = [first]
        let maskBit: UInt8 = masked ? 0x80 : 0
        // Sometimes a long encoding for a short length, as NIO allows.
        switch (length, random.next() % 5) {
        case (0..<126, 0): bytes += [maskBit | 126, 0, UInt8(length)]
        case (0..<126, _): bytes.append(maskBit | UInt8(length))
        case (126...65_535, _): bytes += [maskBit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        default:
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((length >> shift) & 0xFF)) }
        }
        if masked { for _ in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: random.next())) } }
        // Refused frames need not carry their payload: the decoder stops at their header.
        let payload = length > maxFrameSize || length > 5_000 && random.next() % 2 == 0 ? 0 : length
        for index in 0..<payload { bytes.append(UInt8(truncatingIfNeeded: index &* 31)) }
        return bytes
    }

    @Test func readsAndRefusesWhatNIOsDecoderDoesHoweverTheReadsSplit() throws {
        var random = SplitMix(state: 0x5EED_F4A3)
        let maxFrameSize = 70_000
        for round in 0..<300 {
            var stream: [UInt8] = []
            for _ in 0..<(1 + random.next() % 6) { stream += Self.randomFrame(&random, maxFrameSize: maxFrameSize) }
            // A length of 2^63 or more, which NIO refuses as too long.
            if round % 50 == 7 { stream += [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1] }
            var reads: [[UInt8]] = []
            var start = 0
            while start < stream.count {
                let size = random.next() % 4 == 0 ? stream.count : Int(1 + random.next() % 700)
                let end = min(stream.count, start + size)
                reads.append(Array(stream[start..<end]))
                start = end
            }
            let nio = try Self.decode(reads, with: ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxFrameSize)))
            let ours = try Self.decode(reads, with: WebSocketFraming(maxFrameSize: maxFrameSize))
            #expect(ours == nio, "round \(round)")
        }
    }

    @Test func aFrameSplitAcrossReadsIsReadWholeAndNothingIsKeptAfterIt() throws {
        let handler = WebSocketFraming(maxFrameSize: 1 << 16)
        let channel = EmbeddedChannel(handler: handler)
        let payload = Array(#"{"type":"hello","role":"viewer"}"#.utf8)
        let key: [UInt8] = [1, 2, 3, 4]
        let masked = payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        let bytes: [UInt8] = [0x81, 0x80 | UInt8(payload.count)] + key + masked
        for byte in bytes.dropLast() {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
            #expect(try channel.readInbound(as: WebSocketFrame.self) == nil)
        }
        try channel.writeInbound(ByteBuffer(bytes: [bytes.last!]))
        let frame = try #require(try channel.readInbound(as: WebSocketFrame.self))
        #expect(frame.fin && frame.opcode == .text)
        #expect(Array(frame.unmaskedData.readableBytesView) == payload)
        _ = try channel.finish()
    }

    @Test(arguments: [0, 1, 125, 126, 65_535, 65_536])
    func writesFramesAsNIOsEncoder(length: Int) throws {
        let payload = ByteBuffer(repeating: UInt8(ascii: "y"), count: length)
        for frame in [
            WebSocketFrame(fin: true, opcode: .pong, data: payload),
            WebSocketFrame(fin: false, rsv2: true, opcode: .binary, maskKey: [9, 8, 7, 6], data: payload),
        ] {
            let nio = EmbeddedChannel(handler: WebSocketFrameEncoder())
            try nio.writeOutbound(frame)
            var expected = ByteBuffer()
            while var part = try nio.readOutbound(as: ByteBuffer.self) { expected.writeBuffer(&part) }
            #expect(WebSocketFraming.wire(frame, allocator: ByteBufferAllocator()) == expected)
            _ = try nio.finish()
        }
    }
}
