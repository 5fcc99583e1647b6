import Foundation
import NIOCore

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
    static func wire(_ payload: ByteBuffer) -> ByteBuffer {
        let length = payload.readableBytes
        var frame = ByteBuffer()
        frame.reserveCapacity(length + 10)
        frame.writeInteger(UInt8(0x81))
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
}
