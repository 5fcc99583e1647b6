import Foundation

/// The little of DNS that multicast DNS browsing needs (RFC 1035 names with compression,
/// RFC 6762/6763 records): queries out, PTR, SRV, TXT, A and AAAA answers in.
struct DNSMessage: Sendable {
    enum RecordType: UInt16, Sendable {
        case a = 1
        case ptr = 12
        case txt = 16
        case aaaa = 28
        case srv = 33
        case any = 255
    }

    struct Question: Sendable, Hashable {
        var name: String
        var type: RecordType
    }

    enum RecordData: Sendable, Equatable {
        case ptr(String)
        case srv(priority: UInt16, weight: UInt16, port: UInt16, target: String)
        case txt([String])
        case a(String)
        case aaaa(String)
        case other
    }

    struct Record: Sendable, Equatable {
        var name: String
        var type: UInt16
        var ttl: UInt32
        var data: RecordData
    }

    var isResponse = false
    var questions: [Question] = []
    /// Answers, authority and additional records together: a browser wants them all.
    var records: [Record] = []

    /// A query for `questions` (id 0, as multicast DNS asks).
    static func query(_ questions: [Question]) -> [UInt8] {
        var bytes: [UInt8] = [0, 0, 0, 0]
        append16(UInt16(questions.count), to: &bytes)
        bytes += [0, 0, 0, 0, 0, 0]
        for question in questions {
            appendName(question.name, to: &bytes)
            append16(question.type.rawValue, to: &bytes)
            append16(1, to: &bytes)  // IN
        }
        return bytes
    }

    static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 8), UInt8(value & 0xff)]
    }

    static func appendName(_ name: String, to bytes: inout [UInt8]) {
        for label in name.split(separator: ".", omittingEmptySubsequences: true) {
            let utf8 = Array(label.utf8.prefix(63))
            bytes.append(UInt8(utf8.count))
            bytes += utf8
        }
        bytes.append(0)
    }

    struct Malformed: Error {}

    /// Parses a message; throws on anything that runs past its end or loops.
    init(parsing bytes: [UInt8]) throws {
        var reader = Reader(bytes: bytes)
        _ = try reader.u16()  // id
        let flags = try reader.u16()
        isResponse = flags & 0x8000 != 0
        let questionCount = try reader.u16()
        let recordCount = Int(try reader.u16()) + Int(try reader.u16()) + Int(try reader.u16())
        for _ in 0..<questionCount {
            let name = try reader.name()
            let type = try reader.u16()
            _ = try reader.u16()
            questions.append(Question(name: name, type: RecordType(rawValue: type) ?? .any))
        }
        for _ in 0..<recordCount {
            let name = try reader.name()
            let type = try reader.u16()
            _ = try reader.u16()  // class, with the cache-flush bit
            let ttl = UInt32(try reader.u16()) << 16 | UInt32(try reader.u16())
            let length = Int(try reader.u16())
            let start = reader.offset
            guard start + length <= bytes.count else { throw Malformed() }
            var data = RecordData.other
            switch RecordType(rawValue: type) ?? .any {
            case .ptr: data = .ptr(try reader.name())
            case .srv:
                data = .srv(
                    priority: try reader.u16(), weight: try reader.u16(), port: try reader.u16(), target: try reader.name())
            case .txt:
                var strings: [String] = []
                while reader.offset < start + length {
                    let count = Int(try reader.u8())
                    strings.append(String(decoding: try reader.take(count), as: UTF8.self))
                }
                data = .txt(strings)
            case .a where length == 4:
                data = .a(try reader.take(4).map { String($0) }.joined(separator: "."))
            case .aaaa where length == 16:
                let raw = Array(try reader.take(16))
                data = .aaaa(
                    stride(from: 0, to: 16, by: 2).map { String(UInt16(raw[$0]) << 8 | UInt16(raw[$0 + 1]), radix: 16) }
                        .joined(separator: ":"))
            default: break
            }
            reader.offset = start + length
            records.append(Record(name: name, type: type, ttl: ttl, data: data))
        }
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func u8() throws -> UInt8 {
            guard offset < bytes.count else { throw Malformed() }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func u16() throws -> UInt16 {
            UInt16(try u8()) << 8 | UInt16(try u8())
        }

        mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
            guard count >= 0, offset + count <= bytes.count else { throw Malformed() }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        /// A name, following compression pointers (at most 32, so a loop cannot hang us).
        mutating func name() throws -> String {
            var labels: [String] = []
            var position = offset
            var jumped = false
            var jumps = 0
            while true {
                guard position < bytes.count else { throw Malformed() }
                let length = Int(bytes[position])
                if length == 0 {
                    position += 1
                    break
                }
                if length & 0xC0 == 0xC0 {
                    guard position + 1 < bytes.count, jumps < 32 else { throw Malformed() }
                    let target = (length & 0x3F) << 8 | Int(bytes[position + 1])
                    if !jumped { offset = position + 2 }
                    jumped = true
                    jumps += 1
                    position = target
                    continue
                }
                guard position + 1 + length <= bytes.count else { throw Malformed() }
                labels.append(String(decoding: bytes[(position + 1)...(position + length)], as: UTF8.self))
                position += 1 + length
            }
            if !jumped { offset = position }
            return labels.joined(separator: ".")
        }
    }
}
