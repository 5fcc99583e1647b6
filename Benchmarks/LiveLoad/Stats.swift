import Foundation

/// Just enough scanning of JSON text to find a type and a number without decoding the frame.
enum Wire {
    enum MessageType {
        case page
        case pointer
        case welcome
        case ack
        case error
        case other
    }

    // Static strings: no array to retain or lazily initialise per frame.
    static let typeKey: StaticString = #""type":""#
    static let seqKey: StaticString = #""seq":"#
    static let xKey: StaticString = #""x":"#
    /// The id of a presenter command, `g<n>`.
    static let gotoIDKey: StaticString = #""id":"g"#
    static let headEnd: StaticString = "\r\n\r\n"
    static let switching: StaticString = "HTTP/1.1 101"

    static func messageType(_ bytes: UnsafeRawBufferPointer) -> MessageType {
        guard let at = index(of: typeKey, in: bytes, from: 0), at < bytes.count else { return .other }
        switch bytes[at] {
        case UInt8(ascii: "p"):
            if matches(#"page""#, in: bytes, at: at) { return .page }
            if matches(#"pointer""#, in: bytes, at: at) { return .pointer }
        case UInt8(ascii: "w"):
            if matches(#"welcome""#, in: bytes, at: at) { return .welcome }
        case UInt8(ascii: "a"):
            if matches(#"ack""#, in: bytes, at: at) { return .ack }
        case UInt8(ascii: "e"):
            if matches(#"error""#, in: bytes, at: at) { return .error }
        default:
            break
        }
        return .other
    }

    static func matches(_ word: StaticString, in bytes: UnsafeRawBufferPointer, at start: Int) -> Bool {
        let count = word.utf8CodeUnitCount
        guard start >= 0, bytes.count - start >= count, let base = bytes.baseAddress else { return false }
        return memcmp(base + start, word.utf8Start, count) == 0
    }

    static func hasPrefix(_ prefix: StaticString, _ bytes: UnsafeRawBufferPointer) -> Bool {
        matches(prefix, in: bytes, at: 0)
    }

    /// The index just after the first `needle` at or after `from`.
    static func index(of needle: StaticString, in bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        let count = needle.utf8CodeUnitCount
        guard count > 0, bytes.count - from >= count else { return nil }
        let first = needle.utf8Start[0]
        var start = from
        let last = bytes.count - count
        while start <= last {
            if bytes[start] == first, matches(needle, in: bytes, at: start) { return start + count }
            start += 1
        }
        return nil
    }

    static func integer(after key: StaticString, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard var index = self.index(of: key, in: bytes, from: 0) else { return nil }
        var value = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57, digits < 18 {
            value = value * 10 + Int(bytes[index] - 48)
            digits += 1
            index += 1
        }
        return digits > 0 ? value : nil
    }

    /// The JSON number after `key`, times 1,000,000, rounded: the pointer's number n sent as
    /// x = n / 1,000,000, whatever form the server's encoder gave it (0.00012, 1.2e-05).
    static func micros(after key: StaticString, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard var index = self.index(of: key, in: bytes, from: 0) else { return nil }
        var mantissa = 0
        var digits = 0
        var exponent = 0
        var fraction = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 48, byte <= 57 {
                if digits < 18 {
                    mantissa = mantissa * 10 + Int(byte - 48)
                    digits += 1
                    if fraction { exponent -= 1 }
                } else if !fraction {
                    exponent += 1
                }
            } else if byte == UInt8(ascii: "."), !fraction {
                fraction = true
            } else {
                break
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var negative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                negative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var power = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57, power < 400 {
                power = power * 10 + Int(bytes[index] - 48)
                index += 1
            }
            exponent += negative ? -power : power
        }
        let value = (Double(mantissa) * pow(10, Double(exponent + 6))).rounded()
        return value.isFinite && abs(value) < 1e12 ? Int(value) : nil
    }

    /// The pointer number as the six digits after "0." (JSON keeps them as sent).
    static func sixDigits(_ n: Int) -> String {
        let text = String(n % 1_000_000)
        return String(repeating: "0", count: 6 - text.count) + text
    }
}

/// "p50 …, p90 …, p99 …, max …" of durations in seconds.
func percentiles(_ values: [Double]) -> String {
    guard !values.isEmpty else { return "n/a" }
    let sorted = values.sorted()
    func at(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000 }
    return String(
        format: "p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms", at(0.5), at(0.9), at(0.99), sorted.last! * 1000)
}

/// CPU time and memory of a process, from /proc.
enum ProcStat {
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Several processes (the nodes of a cluster) together; nil when one cannot be read.
    static func cpuSeconds(_ pids: [Int32]) -> Double? {
        var total = 0.0
        for pid in pids {
            guard let seconds = cpuSeconds(pid) else { return nil }
            total += seconds
        }
        return total
    }

    static func rssKiB(_ pids: [Int32]) -> Int? {
        var total = 0
        for pid in pids {
            guard let kib = rssKiB(pid) else { return nil }
            total += kib
        }
        return total
    }

    static func rssKiB(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
        return nil
    }
}
