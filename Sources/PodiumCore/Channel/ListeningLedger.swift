import Foundation

/// What non-members listened to today, counted from the segments the server gave them: each
/// station's segment once per person (two tabs, or a player fetching a segment again, count
/// once), reset at midnight in the channel's time zone. Pure: the caller passes the time, loads
/// each person's stored total once a day and writes the additions in batches (``drain()``).
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
    public let calendar: Calendar
    private var listeners: [String: Listener] = [:]
    /// Unwritten seconds of people whose day ended before they were written.
    private var carried: [Addition] = []
    private static let remembered = 64

    public init(allowance: TimeInterval, timeZone: TimeZone) {
        self.allowance = allowance
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

    /// Seconds left today (0 when spent).
    public func remaining(_ viewerKey: String, at date: Date) -> Double {
        guard let listener = listeners[viewerKey], listener.day == day(of: date) else { return allowance }
        return max(0, allowance - listener.total)
    }

    /// Whether the segment `sequence` of `station` may be served, counting it if it is new to the
    /// person. A segment counted already is served again free; a new one only while some of the
    /// allowance is left (so the last one may pass it by a few seconds).
    public mutating func serve(_ viewerKey: String, station: String, sequence: Int, duration: Double, at date: Date) -> Bool {
        let today = day(of: date)
        if listeners[viewerKey]?.day != today { replace(viewerKey, with: Listener(day: today)) }
        guard var listener = listeners[viewerKey] else { return false }
        defer { listeners[viewerKey] = listener }
        var seen = listener.seen[station] ?? []
        if seen.contains(sequence) { return true }
        guard listener.total < allowance else { return false }
        seen.append(sequence)
        if seen.count > Self.remembered { seen.removeFirst(seen.count - Self.remembered) }
        listener.seen[station] = seen
        listener.counted += duration
        listener.unwritten += duration
        return true
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
