import PodiumCore

/// A socket's first message read without `JSONDecoder`, when it is a plain hello.
///
/// Every join starts with a hello of a few short fields, and a hall sends thousands of them at
/// once. `JSONDecoder` builds a general tree of the message and a keyed container over it for
/// these few fields (`Benchmarks/fanout-instructions.sh` counted the hello's read and admission
/// at about 65,000 instructions a join). This reads the common form directly: one JSON object
/// whose values are strings without escapes, non-negative integers, `true`, `false` or `null`.
/// Anything else (an escape in a string, a nested value, a number with a fraction or exponent, a
/// key twice, a field of the wrong type, another `type`, JSON that is not well formed) gives nil,
/// and the caller reads the message with the general decoder, which gives the same hello or the
/// same error as before. So this may decline a hello, but never reads one differently.
enum HelloReader {
    /// The hello `text` is, or nil when it is not a plain hello (see ``HelloReader``).
    static func read(_ text: String) -> ClientMessage.Hello? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            return reader.hello()
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        enum Value {
            /// The bytes between the quotes.
            case string(Range<Int>)
            case integer(Int)
            case bool(Bool)
            case null
        }

        mutating func hello() -> ClientMessage.Hello? {
            var type: Range<Int>?
            var role: Role?
            var name: String??
            var passcode: String??
            var token: String??
            var lastSeq: Int??
            var projector: Bool??
            var seen: UInt8 = 0
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            skipSpace()
            if take(UInt8(ascii: "}")) { return nil }  // no type: the decoder says so
            while true {
                guard let keyRange = string() else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                guard let value = value() else { return nil }
                if let key = Key(bytes, keyRange) {
                    // A key twice: the decoder's rule decides which one counts.
                    guard seen & key.rawValue == 0 else { return nil }
                    seen |= key.rawValue
                    switch (key, value) {
                    case (.type, .string(let range)): type = range
                    case (.role, .string(let range)):
                        guard let known = Role(rawValue: text(range)) else { return nil }
                        role = known
                    case (.name, .string(let range)): name = .some(text(range))
                    case (.passcode, .string(let range)): passcode = .some(text(range))
                    case (.token, .string(let range)): token = .some(text(range))
                    case (.lastSeq, .integer(let number)): lastSeq = .some(number)
                    case (.projector, .bool(let flag)): projector = .some(flag)
                    case (.name, .null): name = .some(nil)
                    case (.passcode, .null): passcode = .some(nil)
                    case (.token, .null): token = .some(nil)
                    case (.lastSeq, .null): lastSeq = .some(nil)
                    case (.projector, .null): projector = .some(nil)
                    default: return nil  // a mistyped field, or a null type or role
                    }
                }
                skipSpace()
                if take(UInt8(ascii: ",")) {
                    skipSpace()
                    continue
                }
                guard take(UInt8(ascii: "}")) else { return nil }
                break
            }
            skipSpace()
            guard index == bytes.count, let type, equals(type, "hello"), let role else { return nil }
            return ClientMessage.Hello(
                role: role, name: (name ?? nil).map { String($0.prefix(ClientMessage.maxNameLength)) },
                passcode: passcode ?? nil, token: token ?? nil, lastSeq: lastSeq ?? nil, projector: (projector ?? nil) ?? false)
        }

        /// The hello's fields; any other key is read past, as the decoder ignores it.
        enum Key: UInt8 {
            case type = 1, role = 2, name = 4, passcode = 8, token = 16, lastSeq = 32, projector = 64

            init?(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
                let key = UnsafeBufferPointer(rebasing: bytes[range])
                switch key.count {
                case 4 where key.elementsEqual("type".utf8): self = .type
                case 4 where key.elementsEqual("role".utf8): self = .role
                case 4 where key.elementsEqual("name".utf8): self = .name
                case 5 where key.elementsEqual("token".utf8): self = .token
                case 7 where key.elementsEqual("lastSeq".utf8): self = .lastSeq
                case 8 where key.elementsEqual("passcode".utf8): self = .passcode
                case 9 where key.elementsEqual("projector".utf8): self = .projector
                default: return nil
                }
            }
        }

        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        func equals(_ range: Range<Int>, _ expected: StaticString) -> Bool {
            range.count == expected.utf8CodeUnitCount
                && UnsafeBufferPointer(rebasing: bytes[range]).elementsEqual(
                    UnsafeBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount))
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string without escapes or control characters (which JSON does not allow unescaped).
        mutating func string() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    return start..<index
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        mutating func value() -> Value? {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return integer().map(Value.integer)
            default: return nil  // an object, an array, a negative number, or not JSON
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count,
                UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                    UnsafeBufferPointer(start: word.utf8Start, count: count))
            else { return false }
            index += count
            return true
        }

        /// Digits without a leading zero (JSON's rule); a fraction or exponent after them is left
        /// for the caller, which then finds no `,` or `}` and declines.
        mutating func integer() -> Int? {
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { return nil }
                return 0
            }
            var number = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                let (times, overflow) = number.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
                guard !overflow, !overflow2 else { return nil }
                number = sum
                index += 1
            }
            return number
        }
    }
}
