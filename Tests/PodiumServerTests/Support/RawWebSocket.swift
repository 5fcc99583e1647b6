import Foundation
import NIOCore
import NIOPosix

/// A WebSocket client over a plain TCP connection that writes whatever bytes it is given: a
/// hand-built handshake, then frames built by ``frame(_:payload:fin:rsv:masked:declaredLength:mask:)``,
/// broken ones included (reserved bits, unknown opcodes, unmasked, lying lengths, stray
/// continuations). It reads the server's frames itself, with no size limit, and answers the
/// server's pings while it reads.
///
/// Everything the server sends is buffered as it arrives, so the server never waits on this
/// client however little the test reads.
final class RawWebSocket {
    enum Opcode {
        static let continuation: UInt8 = 0x0
        static let text: UInt8 = 0x1
        static let binary: UInt8 = 0x2
        static let close: UInt8 = 0x8
        static let ping: UInt8 = 0x9
        static let pong: UInt8 = 0xA
    }

    /// A whole message from the server.
    enum Incoming {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        case close(code: UInt16?)
    }

    private let channel: any Channel
    private var chunks: AsyncStream<ByteBuffer>.Iterator
    private var buffer = ByteBuffer()
    private var fragments: (opcode: UInt8, payload: [UInt8])?
    /// The server closed the connection (or sent a close frame).
    private(set) var closed = false
    /// The reason text of the server's close frame, once it came.
    private(set) var closeReason: String?
    /// The handshake's response head, as the server sent it.
    private(set) var responseHead = ""

    private init(channel: any Channel, chunks: AsyncStream<ByteBuffer>.Iterator) {
        self.channel = channel
        self.chunks = chunks
    }

    struct HandshakeFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects and upgrades. `headers` are added to the upgrade request as they are; `then` is
    /// sent in the same write, right after the request (a client's first frames, before the `101`).
    static func connect(
        port: Int, path: String, headers: [(String, String)] = [], then: [UInt8] = []
    ) async throws -> RawWebSocket {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(continuation: continuation))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let socket = RawWebSocket(channel: channel, chunks: stream.makeAsyncIterator())
        var key = [UInt8](repeating: 0, count: 16)
        for index in key.indices { key[index] = UInt8.random(in: 0...255) }
        var request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(Data(key).base64EncodedString())\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        try await socket.write(Array((request + "\r\n").utf8) + then)
        // The response head ends with an empty line; what follows is already frames.
        let terminator = Array("\r\n\r\n".utf8)
        while true {
            let bytes = socket.buffer.readableBytesView
            if let end = bytes.firstRange(of: terminator) {
                let head = String(decoding: bytes[bytes.startIndex..<end.upperBound], as: UTF8.self)
                socket.responseHead = head
                socket.buffer.moveReaderIndex(forwardBy: end.upperBound - bytes.startIndex)
                guard head.hasPrefix("HTTP/1.1 101") else {
                    socket.close()
                    throw HandshakeFailed(description: head)
                }
                return socket
            }
            guard var chunk = await socket.chunks.next() else {
                throw HandshakeFailed(description: "closed during the handshake")
            }
            socket.buffer.writeBuffer(&chunk)
        }
    }

    /// One frame as a client would send it (masked), or deliberately not.
    /// - Parameters:
    ///   - rsv: the three reserved bits, as the low bits of this value.
    ///   - declaredLength: a payload length to claim in the header instead of the real one.
    static func frame(
        _ opcode: UInt8, payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true,
        declaredLength: UInt64? = nil, mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | ((rsv & 0x7) << 4) | (opcode & 0xF)]
        let length = declaredLength ?? UInt64(payload.count)
        let maskBit: UInt8 = masked ? 0x80 : 0
        if length < 126 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= UInt64(UInt16.max) {
            bytes.append(maskBit | 126)
            bytes += [UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(length >> UInt64(shift) & 0xFF)) }
        }
        if masked {
            bytes += mask
            bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        } else {
            bytes += payload
        }
        return bytes
    }

    func write(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// A well-formed text message.
    func send(_ text: String) async throws {
        try await write(Self.frame(Opcode.text, payload: Array(text.utf8)))
    }

    func send(_ object: [String: Any]) async throws {
        try await send(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    /// The next whole message from the server, or nil once the connection is closed.
    func next() async -> Incoming? {
        while !closed {
            if let message = parse() { return message }
            guard var chunk = await chunks.next() else {
                closed = true
                return nil
            }
            buffer.writeBuffer(&chunk)
        }
        return nil
    }

    /// The next text message, skipping control frames; nil once the connection is closed.
    func nextText() async -> String? {
        while let message = await next() {
            if case .text(let text) = message { return text }
        }
        return nil
    }

    /// Parses one frame from the buffer, reassembling fragmented messages.
    private func parse() -> Incoming? {
        while true {
            let view = buffer.readableBytesView
            guard view.count >= 2 else { return nil }
            let start = view.startIndex
            let first = view[start]
            let second = view[start + 1]
            var length = UInt64(second & 0x7F)
            var header = 2
            if length == 126 {
                guard view.count >= 4 else { return nil }
                length = UInt64(view[start + 2]) << 8 | UInt64(view[start + 3])
                header = 4
            } else if length == 127 {
                guard view.count >= 10 else { return nil }
                length = (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(view[start + 2 + $1]) }
                header = 10
            }
            let masked = second & 0x80 != 0
            let maskStart = header
            if masked { header += 4 }
            guard UInt64(view.count - header) >= length else { return nil }
            var payload = Array(view[(start + header)..<(start + header + Int(length))])
            if masked {
                let mask = Array(view[(start + maskStart)..<(start + maskStart + 4)])
                for index in payload.indices { payload[index] ^= mask[index % 4] }
            }
            buffer.moveReaderIndex(forwardBy: header + Int(length))
            let fin = first & 0x80 != 0
            let opcode = first & 0x0F
            switch opcode {
            case Opcode.ping:
                // As every client must (the server pings every 30 s and closes a socket that does not answer).
                channel.writeAndFlush(ByteBuffer(bytes: Self.frame(Opcode.pong, payload: payload)), promise: nil)
                return .ping(payload)
            case Opcode.pong: return .pong(payload)
            case Opcode.close:
                closed = true
                close()
                closeReason = payload.count > 2 ? String(decoding: payload.dropFirst(2), as: UTF8.self) : nil
                return .close(code: payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil)
            case Opcode.continuation:
                guard var started = fragments else { return .binary(payload) }  // a stray continuation: hand it up as is
                started.payload += payload
                fragments = fin ? nil : started
                if fin { return Self.message(started.opcode, started.payload) }
            default:
                if fin { return Self.message(opcode, payload) }
                fragments = (opcode, payload)
            }
        }
    }

    private static func message(_ opcode: UInt8, _ payload: [UInt8]) -> Incoming {
        opcode == Opcode.text ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload)
    }

    func close() {
        channel.close(promise: nil)
    }

    deinit { channel.close(promise: nil) }
}

/// Hands every chunk the connection reads to an async stream, and ends it when the connection closes.
private final class Collector: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    let continuation: AsyncStream<ByteBuffer>.Continuation

    init(continuation: AsyncStream<ByteBuffer>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish()
        context.close(promise: nil)
    }
}
