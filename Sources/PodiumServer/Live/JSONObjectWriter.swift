import NIOCore

/// A JSON object written member by member into one buffer, for the frames built on every join:
/// numbers, strings and empty collections by hand, anything else by `JSONEncoder`, and already
/// encoded JSON as it is. A nil member is left out, as `JSONEncoder` leaves out a nil optional.
///
/// `JSONEncoder` costs about 60,000 instructions a call however little it encodes
/// (`Benchmarks/fanout-instructions.sh`), which was most of a viewer's welcome once its large
/// parts were kept encoded.
struct JSONObjectWriter {
    private var buffer = ByteBuffer()
    private var empty = true

    init(capacity: Int) {
        buffer.reserveCapacity(capacity)
        buffer.writeStaticString("{")
    }

    /// An object that begins with the members of `head` (an ``unfinished()`` object, not empty).
    init(continuing head: ByteBuffer, capacity: Int) {
        buffer.reserveCapacity(capacity)
        buffer.writeImmutableBuffer(head)
        empty = false
    }

    private mutating func key(_ name: StaticString) {
        if empty {
            empty = false
        } else {
            buffer.writeStaticString(",")
        }
        buffer.writeStaticString("\"")
        buffer.writeStaticString(name)
        buffer.writeStaticString("\":")
    }

    mutating func int(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        buffer.writeString(String(value))
    }

    mutating func string(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        Self.writeString(value, to: &buffer)
    }

    mutating func raw(_ name: StaticString, _ json: ByteBuffer) {
        key(name)
        buffer.writeImmutableBuffer(json)
    }

    /// An array: `[]` when empty, else encoded by `JSONEncoder`. False if it cannot be encoded.
    mutating func array<Element: Encodable>(_ name: StaticString, _ value: [Element]?) -> Bool {
        guard let value else { return true }
        return value.isEmpty ? literal(name, "[]") : encoded(name, value)
    }

    /// An object keyed by strings: `{}` when empty, else encoded by `JSONEncoder`.
    mutating func dictionary<Value: Encodable>(_ name: StaticString, _ value: [String: Value]?) -> Bool {
        guard let value else { return true }
        return value.isEmpty ? literal(name, "{}") : encoded(name, value)
    }

    private mutating func literal(_ name: StaticString, _ json: StaticString) -> Bool {
        key(name)
        buffer.writeStaticString(json)
        return true
    }

    /// Any value, encoded by `JSONEncoder`. False if it cannot be encoded.
    mutating func encoded(_ name: StaticString, _ value: (some Encodable)?) -> Bool {
        guard let value else { return true }
        guard let json = try? Frames.encoded(value) else { return false }
        raw(name, json)
        return true
    }

    /// The members so far, without the closing brace: a head for ``init(continuing:capacity:)``.
    consuming func unfinished() -> ByteBuffer {
        precondition(!empty, "a head with no member")
        return buffer
    }

    consuming func finished() -> ByteBuffer {
        buffer.writeStaticString("}")
        return buffer
    }

    /// A JSON string (RFC 8259 §7): the quotation mark, the reverse solidus and control
    /// characters escaped, everything else as its UTF-8.
    static func writeString(_ string: String, to buffer: inout ByteBuffer) {
        buffer.writeStaticString("\"")
        if string.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            buffer.writeString(string)
        } else {
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""): buffer.writeStaticString("\\\"")
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case 0x0A: buffer.writeStaticString("\\n")
                case 0x0D: buffer.writeStaticString("\\r")
                case 0x09: buffer.writeStaticString("\\t")
                case ..<0x20:
                    buffer.writeStaticString("\\u00")
                    buffer.writeInteger(hexDigits[Int(byte >> 4)])
                    buffer.writeInteger(hexDigits[Int(byte & 0xF)])
                default: buffer.writeInteger(byte)
                }
            }
        }
        buffer.writeStaticString("\"")
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
