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
}
