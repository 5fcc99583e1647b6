import Foundation
import Logging
import NIOCore
import NIOWebSocket

/// Encodes protocol messages into text-frame payloads. An event is encoded once and the same
/// buffer is queued on every socket.
enum Frames {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .withoutEscapingSlashes
        return encoder
    }()

    /// Encodes a message, or says why it cannot be (a non-finite number, say). Durable events
    /// are encoded with this before they are stored, so one that cannot be sent is refused
    /// instead of stored.
    static func encoded(_ value: some Encodable) throws(FrameEncodingError) -> ByteBuffer {
        do {
            return ByteBuffer(bytes: try encoder.encode(value))
        } catch {
            throw FrameEncodingError(type: "\(type(of: value))", reason: "\(error)")
        }
    }

    /// Encodes a message that is built by the server from values checked where they came in.
    /// Should one fail anyway, the process goes on: the socket gets an `internal` error instead,
    /// and the failure is logged.
    static func encode(_ value: some Encodable) -> ByteBuffer {
        do {
            return try encoded(value)
        } catch {
            failureLogger.error("could not encode a frame: \(error)")
            return internalErrorFrame
        }
    }

    static let failureLogger = Logger(label: "podium.frames")

    /// What a client gets in place of a frame that could not be encoded.
    static let internalErrorFrame = ByteBuffer(
        string: #"{"type":"error","code":"internal","message":"The server could not send this message."}"#)

    /// A whole unmasked WebSocket text frame (RFC 6455 §5.2): FIN and opcode, the payload length
    /// in 7, 7+16 or 7+64 bits, then the payload.
    static func wire(_ payload: ByteBuffer, opcode: UInt8 = 0x1) -> ByteBuffer {
        let length = payload.readableBytes
        var frame = ByteBuffer()
        frame.reserveCapacity(length + 10)
        frame.writeInteger(0x80 | opcode)
        if length < 126 {
            frame.writeInteger(UInt8(length))
        } else if length <= Int(UInt16.max) {
            frame.writeInteger(UInt8(126))
            frame.writeInteger(UInt16(length))
        } else {
            frame.writeInteger(UInt8(127))
            frame.writeInteger(UInt64(length))
        }
        var payload = payload
        frame.writeBuffer(&payload)
        return frame
    }

    /// A close frame (RFC 6455 §5.5.1): the status code, then an optional UTF-8 reason.
    static func closeWire(code: WebSocketErrorCode, reason: String?) -> ByteBuffer {
        var payload = ByteBuffer()
        payload.write(webSocketErrorCode: code)
        if let reason { payload.writeString(String(reason.utf8.prefix(120)) ?? "") }
        return wire(payload, opcode: 0x8)
    }

    /// An empty ping, the same bytes for every socket.
    static let pingWire = wire(ByteBuffer(), opcode: 0x9)

    /// The frame a wire form came from, for a pipeline without the encoder we write past.
    static func webSocketFrame(fromWire wire: ByteBuffer) -> WebSocketFrame {
        var wire = wire
        let first = wire.readInteger(as: UInt8.self) ?? 0x81
        let second = wire.readInteger(as: UInt8.self) ?? 0
        switch second & 0x7F {
        case 126: wire.moveReaderIndex(forwardBy: 2)
        case 127: wire.moveReaderIndex(forwardBy: 8)
        default: break
        }
        return WebSocketFrame(fin: true, opcode: WebSocketOpcode(encodedWebSocketOpcode: first & 0x0F) ?? .text, data: wire)
    }
}

/// A message could not be encoded as JSON.
struct FrameEncodingError: Error, CustomStringConvertible {
    let type: String
    let reason: String
    var description: String { "could not encode \(type): \(reason)" }
}
