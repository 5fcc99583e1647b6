import Foundation
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

    static func encode(_ value: some Encodable) -> ByteBuffer {
        do {
            return ByteBuffer(bytes: try encoder.encode(value))
        } catch {
            // Our own message types always encode; reaching this is a programming error.
            preconditionFailure("could not encode \(type(of: value)): \(error)")
        }
    }

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
