import NIOCore
import NIOWebSocket

/// A live socket's WebSocket framing in one handler: client frames read from the socket's bytes,
/// server frames written as bytes. It takes the place of NIO's `WebSocketFrameDecoder` (with the
/// `ByteToMessageHandler` it runs in) and `WebSocketFrameEncoder`: three handlers, three contexts
/// and the encoder's header buffer that an idle viewer kept for the socket's life, about 0.6 KiB
/// (heaptrack, `Benchmarks/idle-memory.sh`). Between frames it holds nothing.
///
/// It reads frames as NIO's decoder does and refuses the same ones, at the same point (as soon as
/// a frame's length is known, before its payload arrives): longer than `maxFrameSize`
/// (`invalidFrameLength`), a control frame not final (`fragmentedControlFrame`) or longer than
/// 125 bytes (`multiByteControlFrameLength`). The error goes to ``SocketHandler`` as NIO's decoder
/// sends it (`errorCaught`), which closes with a code and a reason; whatever the client sends
/// after a refused frame is dropped. Masking, reserved bits, opcodes, fragments and UTF-8 are
/// ``SocketHandler``'s checks, as before.
///
/// The broadcast's frames are encoded once for every socket and written past this handler's own
/// `write`: from its context, or straight to the channel's core when nothing outbound sits below
/// it (``aboveChannel``; see ``Outbox``); a `WebSocketFrame` written through the pipeline (a pong)
/// is encoded here.
final class WebSocketFraming: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = ByteBuffer

    private let maxFrameSize: Int
    /// Nothing outbound sits below this handler (a live socket on plain TCP: the upgrade removed
    /// every HTTP handler, and there is no TLS handler): what it writes reaches NIO's head
    /// handler, which hands it to the channel's core (`write0`, `flush0`) and does nothing else.
    /// The outbox then writes to the core itself (see ``Outbox``), without the walk.
    let aboveChannel: Bool
    /// The start of a frame not yet whole, in a buffer of its own: NIO reads into the same
    /// receive buffer again only while nothing else holds it (else it makes and keeps another).
    private var partial: ByteBuffer?
    /// A frame was refused: nothing more is read.
    private var refused = false

    init(maxFrameSize: Int, aboveChannel: Bool = false) {
        precondition(maxFrameSize <= UInt32.max, "as NIO's decoder: a frame's length fits 32 bits")
        self.maxFrameSize = maxFrameSize
        self.aboveChannel = aboveChannel
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        var bytes = unwrapInboundIn(data)
        var owned = false
        if var partial = partial.take() {
            partial.writeBuffer(&bytes)
            bytes = partial
            owned = true
        }
        do {
            while let frame = try Self.frame(from: &bytes, maxFrameSize: maxFrameSize) {
                context.fireChannelRead(wrapInboundOut(frame))
            }
        } catch {
            refused = true
            context.fireErrorCaught(error)
            return
        }
        guard bytes.readableBytes > 0 else { return }
        if owned {
            bytes.discardReadBytes()
            partial = bytes
        } else {
            var copy = context.channel.allocator.buffer(capacity: bytes.readableBytes)
            copy.writeBuffer(&bytes)
            partial = copy
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        partial = nil
        context.fireChannelInactive()
    }

    /// A frame written through the pipeline: its header, then its payload (masked with its key if
    /// it has one), in one buffer.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        context.write(wrapOutboundOut(Self.wire(frame, allocator: context.channel.allocator)), promise: promise)
    }

    /// The next whole frame at the buffer's reader index, which moves past it; nil while it is
    /// not whole (the buffer is left as it was). Throws NIO's decoder's error for a frame it
    /// refuses, as soon as the frame's length is known.
    static func frame(from buffer: inout ByteBuffer, maxFrameSize: Int) throws(NIOWebSocketError) -> WebSocketFrame? {
        var index = buffer.readerIndex
        guard let first = buffer.getInteger(at: index, as: UInt8.self),
            let second = buffer.getInteger(at: index + 1, as: UInt8.self)
        else { return nil }
        index += 2
        let length: Int
        switch second & 0x7F {
        case 126:
            guard let word = buffer.getInteger(at: index, as: UInt16.self) else { return nil }
            length = Int(word)
            index += 2
        case 127:
            guard let qword = buffer.getInteger(at: index, as: UInt64.self) else { return nil }
            guard qword <= UInt64(Int.max) else { throw .invalidFrameLength }
            length = Int(qword)
            index += 8
        case let short:
            length = Int(short)
        }
        // NIO's decoder's checks, in its order.
        guard length <= maxFrameSize else { throw .invalidFrameLength }
        let isControl = first & 0x08 != 0
        let isFinal = first & 0x80 != 0
        if isControl && !isFinal { throw .fragmentedControlFrame }
        if isControl && length > 125 { throw .multiByteControlFrameLength }
        var maskKey: WebSocketMaskingKey?
        if second & 0x80 != 0 {
            guard let key = buffer.getSlice(at: index, length: 4) else { return nil }
            maskKey = WebSocketMaskingKey(key.readableBytesView)
            index += 4
        }
        guard let payload = buffer.getSlice(at: index, length: length) else { return nil }
        buffer.moveReaderIndex(to: index + length)
        return WebSocketFrame(
            fin: isFinal, rsv1: first & 0x40 != 0, rsv2: first & 0x20 != 0, rsv3: first & 0x10 != 0,
            // Four bits: every value is an opcode to NIO (``SocketHandler`` refuses the unknown ones).
            opcode: WebSocketOpcode(encodedWebSocketOpcode: first & 0x0F) ?? .continuation,
            maskKey: maskKey, data: payload)
    }

    /// A frame as it goes on the wire (RFC 6455 §5.2), as NIO's encoder writes it: the header,
    /// the extension data, then the payload, masked with the frame's key if it has one.
    static func wire(_ frame: WebSocketFrame, allocator: ByteBufferAllocator) -> ByteBuffer {
        var extensionData = frame.extensionData
        var payload = frame.data
        if let key = frame.maskKey {
            extensionData?.webSocketMask(key)
            payload.webSocketMask(key, indexOffset: (extensionData?.readableBytes ?? 0) % 4)
        }
        let length = payload.readableBytes + (extensionData?.readableBytes ?? 0)
        var wire = allocator.buffer(capacity: 14 + length)
        var first = UInt8(webSocketOpcode: frame.opcode)
        if frame.fin { first |= 0x80 }
        if frame.rsv1 { first |= 0x40 }
        if frame.rsv2 { first |= 0x20 }
        if frame.rsv3 { first |= 0x10 }
        wire.writeInteger(first)
        let maskBit: UInt8 = frame.maskKey == nil ? 0 : 0x80
        if length < 126 {
            wire.writeInteger(maskBit | UInt8(length))
        } else if length <= Int(UInt16.max) {
            wire.writeInteger(maskBit | 126)
            wire.writeInteger(UInt16(length))
        } else {
            wire.writeInteger(maskBit | 127)
            wire.writeInteger(UInt64(length))
        }
        if let key = frame.maskKey { wire.writeBytes(key) }
        if var extensionData { wire.writeBuffer(&extensionData) }
        wire.writeBuffer(&payload)
        return wire
    }
}
