import Foundation
import NIOCore
import NIOPosix

/// What one WebSocket connection does with what arrives. Every call comes on the channel's event
/// loop; `now` is the time the bytes were read (`Clock.micros()`, one reading per socket read).
protocol FrameReceiver {
    /// The server answered the upgrade with 101.
    mutating func opened(now: UInt64, context: ChannelHandlerContext) -> FrameAction
    /// One whole text message (unfragmented or reassembled).
    mutating func text(_ payload: UnsafeRawBufferPointer, now: UInt64, context: ChannelHandlerContext) -> FrameAction
    /// The connection is gone. `upgraded` says whether it got as far as the 101.
    mutating func closed(upgraded: Bool)
}

enum FrameAction {
    case proceed
    /// Read nothing more (a stalled phone): reading is switched off and the rest of this read dropped.
    case stopReading
}

/// Microseconds on the monotonic clock since the generator started.
enum Clock {
    static let base = NIODeadline.now().uptimeNanoseconds
    static func micros() -> UInt64 { (NIODeadline.now().uptimeNanoseconds &- base) / 1000 }
    static func seconds() -> Double { Double(micros()) / 1e6 }
    /// A `micros()` time as the monotonic clock's µs since boot, which a server's trace uses too.
    static func sinceBoot(_ micros: UInt64) -> UInt64 { base / 1000 + micros }
}

/// A `ws://host:port/path` address.
struct WebSocketURL: Sendable {
    var host: String
    var port: Int
    var path: String

    init(_ text: String) throws {
        guard let url = URL(string: text), let host = url.host, ["ws", "http"].contains(url.scheme ?? "") else {
            throw LoadError("not a ws:// or http:// URL: \(text)")
        }
        self.host = host
        self.port = url.port ?? 80
        let query = url.query.map { "?" + $0 } ?? ""
        self.path = (url.path.isEmpty ? "/" : url.path) + query
    }
}

struct LoadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The client side of RFC 6455 in one handler: writes the upgrade request when the socket
/// connects, checks the 101, then parses the server's frames straight from each read and hands
/// every text message to its receiver. No frame objects, no tasks: one pass over the bytes.
final class WebSocketHandler<Receiver: FrameReceiver>: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum State {
        case connecting
        case handshaking
        case open
        case stopped
        case closed
    }

    private var receiver: Receiver
    private let url: WebSocketURL
    private var state = State.connecting
    /// Bytes of an incomplete response head or frame, kept until the next read.
    private var pending: ByteBuffer?
    /// A fragmented message so far.
    private var message: ByteBuffer?
    private var messageIsText = false
    private var upgraded = false

    /// Largest frame accepted from the server.
    static var maxFrame: Int { 16 << 20 }

    init(url: WebSocketURL, receiver: Receiver) {
        self.url = url
        self.receiver = receiver
    }

    func channelActive(context: ChannelHandlerContext) {
        state = .handshaking
        var key = [UInt8](repeating: 0, count: 16)
        for index in key.indices { key[index] = .random(in: 0...255) }
        let request =
            "GET \(url.path) HTTP/1.1\r\nHost: \(url.host):\(url.port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(Data(key).base64EncodedString())\r\nSec-WebSocket-Version: 13\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
        // A server that never answers the upgrade: give up on this socket.
        context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(30)) { [channel = context.channel] in
            if self.state == .handshaking { channel.close(promise: nil) }
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        state = .closed
        receiver.closed(upgraded: upgraded)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard state == .handshaking || state == .open else { return }
        var buffer = unwrapInboundIn(data)
        if var kept = pending {
            pending = nil
            kept.discardReadBytes()
            kept.writeBuffer(&buffer)
            buffer = kept
        }
        let now = Clock.micros()
        if state == .handshaking {
            let headEnd = buffer.withUnsafeReadableBytes { Wire.index(of: Wire.headEnd, in: $0, from: 0) }
            guard let headEnd else {
                if buffer.readableBytes > 64 << 10 { context.close(promise: nil) } else { pending = buffer }
                return
            }
            let accepted = buffer.withUnsafeReadableBytes { Wire.hasPrefix(Wire.switching, $0) }
            guard accepted else {
                context.close(promise: nil)
                return
            }
            buffer.moveReaderIndex(forwardBy: headEnd)
            state = .open
            upgraded = true
            if case .stopReading = receiver.opened(now: now, context: context) { stopReading(context: context) }
        }
        guard state == .open, buffer.readableBytes > 0 else { return }
        let consumed = buffer.withUnsafeReadableBytes { parse($0, now: now, context: context) }
        if state == .open, consumed < buffer.readableBytes {
            buffer.moveReaderIndex(forwardBy: consumed)
            pending = buffer
        }
    }

    /// Handles every whole frame in `bytes`; answers how many bytes that was.
    private func parse(_ bytes: UnsafeRawBufferPointer, now: UInt64, context: ChannelHandlerContext) -> Int {
        var offset = 0
        let count = bytes.count
        while state == .open, count - offset >= 2 {
            let first = bytes[offset]
            let second = bytes[offset + 1]
            var header = 2
            var length = Int(second & 0x7F)
            if length == 126 {
                guard count - offset >= 4 else { break }
                length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                header = 4
            } else if length == 127 {
                guard count - offset >= 10 else { break }
                length = 0
                for index in 2..<10 { length = length << 8 | Int(bytes[offset + index]) }
                header = 10
            }
            // A server never masks its frames; anything this large is not ours either.
            guard second & 0x80 == 0, length >= 0, length <= Self.maxFrame else {
                context.close(promise: nil)
                return count
            }
            guard count - offset - header >= length else { break }
            let start = offset + header
            offset = start + length
            let payload = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
            frame(opcode: first & 0x0F, final: first & 0x80 != 0, payload: payload, now: now, context: context)
        }
        return offset
    }

    private func frame(
        opcode: UInt8, final: Bool, payload: UnsafeRawBufferPointer, now: UInt64, context: ChannelHandlerContext
    ) {
        switch opcode {
        case 0x1, 0x2:
            if final {
                if opcode == 0x1, case .stopReading = receiver.text(payload, now: now, context: context) {
                    stopReading(context: context)
                }
            } else {
                message = context.channel.allocator.buffer(bytes: payload)
                messageIsText = opcode == 0x1
            }
        case 0x0:
            guard message != nil else { return }
            message!.writeBytes(payload)
            if message!.readableBytes > Self.maxFrame {
                context.close(promise: nil)
                return
            }
            if final, let whole = message {
                message = nil
                if messageIsText {
                    let action = whole.withUnsafeReadableBytes { receiver.text($0, now: now, context: context) }
                    if case .stopReading = action { stopReading(context: context) }
                }
            }
        case 0x8:
            context.writeAndFlush(wrapOutboundOut(OutgoingFrame.close(allocator: context.channel.allocator)), promise: nil)
            context.close(promise: nil)
            state = .closed
        case 0x9:
            context.writeAndFlush(
                wrapOutboundOut(OutgoingFrame.make(opcode: 0xA, payload: payload, allocator: context.channel.allocator)),
                promise: nil)
        default:
            break
        }
    }

    private func stopReading(context: ChannelHandlerContext) {
        state = .stopped
        pending = nil
        message = nil
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
    }
}

/// Frames a client sends: always masked (RFC 6455 §5.3).
enum OutgoingFrame {
    static func text(_ text: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        var utf8 = text
        return utf8.withUTF8 { make(opcode: 0x1, payload: UnsafeRawBufferPointer($0), allocator: allocator) }
    }

    static func close(allocator: ByteBufferAllocator) -> ByteBuffer {
        // Status 1000, normal closure.
        [UInt8]([0x03, 0xE8]).withUnsafeBytes { make(opcode: 0x8, payload: $0, allocator: allocator) }
    }

    static func make(opcode: UInt8, payload: UnsafeRawBufferPointer, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: payload.count + 14)
        buffer.writeInteger(0x80 | opcode)
        if payload.count < 126 {
            buffer.writeInteger(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            buffer.writeInteger(UInt8(0x80 | 126))
            buffer.writeInteger(UInt16(payload.count))
        } else {
            buffer.writeInteger(UInt8(0x80 | 127))
            buffer.writeInteger(UInt64(payload.count))
        }
        let mask = (UInt8.random(in: 0...255), UInt8.random(in: 0...255), UInt8.random(in: 0...255), UInt8.random(in: 0...255))
        buffer.writeMultipleIntegers(mask.0, mask.1, mask.2, mask.3)
        let key = [mask.0, mask.1, mask.2, mask.3]
        for (index, byte) in payload.enumerated() { buffer.writeInteger(byte ^ key[index & 3]) }
        return buffer
    }
}

enum WebSocketClient {
    /// Connects and upgrades; the receiver is made on the channel's event loop. The future
    /// succeeds once TCP is connected (the upgrade and everything after it is the receiver's).
    static func connect<Receiver: FrameReceiver>(
        _ url: WebSocketURL, on loop: any EventLoop, receiver makeReceiver: @escaping @Sendable () -> Receiver
    ) -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        WebSocketHandler(url: url, receiver: makeReceiver()))
                }
            }
            .connect(host: url.host, port: url.port)
    }
}
