import Foundation

/// What non-members listened to today, counted from the segments the server gave them: each
/// station's segment once per person (two tabs, or a player fetching a segment again, count
/// once), reset at midnight in the channel's time zone. Pure: the caller passes the time, loads
/// each person's stored total once a day and writes the additions in batches (``drain()``).
///
/// A person without a cookie is a new person with a full allowance at every request, so every
/// non-member also draws on the pool of their client address (``addressPool(of:)``): what a
/// person is counted is counted to their address too, and nobody from an address is served a new
/// segment once its pool (`listenersPerAddress` allowances a day) is spent. A lecture hall of that
/// many people behind one address each listens their own allowance; a guest who drops the cookie
/// gets no more than the address's pool. Pools are kept and written like people, under their
/// `addr:` key.
public struct ListeningLedger: Sendable {
    public struct Addition: Sendable, Equatable {
        public var viewerKey: String
        public var day: String
        public var seconds: Double
    }

    private struct Listener {
        var day: String
        /// Seconds stored before this process counted any (nil until loaded).
        var stored: Double?
        /// Counted here, written or not.
        var counted: Double = 0
        var unwritten: Double = 0
        /// The sequence numbers counted today per station; the newest few are enough, since a
        /// player only asks for segments of the current window.
        var seen: [String: [Int]] = [:]

        var total: Double { (stored ?? 0) + counted }
    }

    public let allowance: TimeInterval
    /// How many allowances the listeners of one address share a day (0: no address pool).
    public let listenersPerAddress: Int
    /// The pool of one address: `listenersPerAddress` allowances.
    public var addressAllowance: TimeInterval { allowance * Double(listenersPerAddress) }
    public let calendar: Calendar
    private var listeners: [String: Listener] = [:]
    /// Unwritten seconds of people whose day ended before they were written.
    private var carried: [Addition] = []
    private static let remembered = 64

    public init(allowance: TimeInterval, timeZone: TimeZone, listenersPerAddress: Int = 0) {
        self.allowance = allowance
        self.listenersPerAddress = max(0, listenersPerAddress)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// `YYYY-MM-DD` of `date` in the channel's time zone.
    public func day(of date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The next midnight after `date` in the channel's time zone: when the allowance comes back.
    public func resetsAt(after date: Date) -> Date {
        calendar.nextDate(after: date, matching: DateComponents(hour: 0, minute: 0, second: 0), matchingPolicy: .nextTime)
            ?? date.addingTimeInterval(86_400)
    }

    /// Whether the person's stored total for today must be loaded before ``serve``.
    public func needsLoading(_ viewerKey: String, at date: Date) -> Bool {
        guard let listener = listeners[viewerKey], listener.day == day(of: date) else { return true }
        return listener.stored == nil
    }

    /// Records the stored total of `day` (loaded from the store).
    public mutating func loaded(_ viewerKey: String, day: String, seconds: Double) {
        if listeners[viewerKey]?.day != day { replace(viewerKey, with: Listener(day: day)) }
        listeners[viewerKey]?.stored = seconds
    }

    /// Starts a person's new day, keeping what the old one has not written yet.
    private mutating func replace(_ viewerKey: String, with listener: Listener) {
        if let old = listeners[viewerKey], old.unwritten > 0 {
            carried.append(Addition(viewerKey: viewerKey, day: old.day, seconds: old.unwritten))
        }
        listeners[viewerKey] = listener
    }

    /// Seconds left today (0 when spent): the person's own, or what their address's pool has
    /// left if that is less.
    public func remaining(_ viewerKey: String, pool: String? = nil, at date: Date) -> Double {
        let own = max(0, allowance - used(viewerKey, at: date))
        guard let pool, listenersPerAddress > 0 else { return own }
        return min(own, max(0, addressAllowance - used(pool, at: date)))
    }

    /// Seconds counted today under `key`, stored and not.
    private func used(_ key: String, at date: Date) -> Double {
        guard let listener = listeners[key], listener.day == day(of: date) else { return 0 }
        return listener.total
    }

    /// Whether the segment `sequence` of `station` may be served, counting it if it is new to the
    /// person. A segment counted already is served again free; a new one only while some of the
    /// allowance is left (so the last one may pass it by a few seconds), of the person's own and of
    /// their address's `pool` (``addressPool(of:)``), which counts it too.
    public mutating func serve(
        _ viewerKey: String, pool: String? = nil, station: String, sequence: Int, duration: Double, at date: Date
    ) -> Bool {
        let today = day(of: date)
        let pool = listenersPerAddress > 0 ? pool : nil
        for key in [viewerKey] + (pool.map { [$0] } ?? []) where listeners[key]?.day != today {
            replace(key, with: Listener(day: today))
        }
        guard var listener = listeners[viewerKey] else { return false }
        var seen = listener.seen[station] ?? []
        if seen.contains(sequence) { return true }
        guard listener.total < allowance else { return false }
        if let pool, used(pool, at: date) >= addressAllowance { return false }
        seen.append(sequence)
        if seen.count > Self.remembered { seen.removeFirst(seen.count - Self.remembered) }
        listener.seen[station] = seen
        listener.counted += duration
        listener.unwritten += duration
        listeners[viewerKey] = listener
        if let pool {
            listeners[pool]?.counted += duration
            listeners[pool]?.unwritten += duration
        }
        return true
    }

    /// The key of the pool that the non-members of a client address share: `addr:` and the
    /// address, an IPv6 address by its /64 (one household, one office, one phone's prefix: the
    /// least a network is given, so changing the last 64 bits escapes nothing). An IPv4 address
    /// mapped into IPv6 is the IPv4 address; what is no address at all is kept as it is.
    public static func addressPool(of address: String) -> String {
        var text = address.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") {
            text = String(text[text.index(after: text.startIndex)..<end])
        }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        guard text.contains(":"), let groups = ipv6Groups(text) else { return "addr:" + String(text.prefix(64)) }
        if groups[0..<5].allSatisfy({ $0 == 0 }), groups[5] == 0xffff {
            return "addr:\(groups[6] >> 8).\(groups[6] & 0xff).\(groups[7] >> 8).\(groups[7] & 0xff)"
        }
        return "addr:" + groups[0..<4].map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }

    /// The eight 16-bit groups of an IPv6 address in text, nil when it is none.
    static func ipv6Groups(_ text: String) -> [UInt16]? {
        func groups(_ part: Substring) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    let bytes = piece.split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
                    guard bytes.count == 4, piece.split(separator: ".").count == 4 else { return nil }
                    result += [UInt16(bytes[0]) << 8 | UInt16(bytes[1]), UInt16(bytes[2]) << 8 | UInt16(bytes[3])]
                } else {
                    guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        let halves = text.components(separatedBy: "::")
        switch halves.count {
        case 1:
            guard let all = groups(Substring(text)), all.count == 8 else { return nil }
            return all
        case 2:
            guard let head = groups(Substring(halves[0])), let tail = groups(Substring(halves[1])), head.count + tail.count < 8
            else { return nil }
            return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
    }

    /// The additions not written yet, and forgets the people of earlier days.
    public mutating func drain(at date: Date) -> [Addition] {
        let today = day(of: date)
        var additions = carried
        carried = []
        for (key, var listener) in listeners {
            if listener.unwritten > 0 {
                additions.append(Addition(viewerKey: key, day: listener.day, seconds: listener.unwritten))
                listener.unwritten = 0
            }
            listeners[key] = listener.day == today ? listener : nil
        }
        return additions.sorted { ($0.viewerKey, $0.day) < ($1.viewerKey, $1.day) }
    }

    /// Puts back additions that could not be written, to try again with the next batch.
    public mutating func restore(_ additions: [Addition]) {
        carried.append(contentsOf: additions)
    }
}
