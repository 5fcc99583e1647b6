import Foundation
import Synchronization

/// Counts failed attempts (wrong passcodes) per key within a sliding window, to slow guessing.
final class AttemptLimiter: Sendable {
    private let failures = Mutex<[String: [Date]]>([:])
    let limit: Int
    let window: TimeInterval

    init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Whether another attempt is allowed for every one of `keys` at `now`.
    func allows(_ keys: [String], now: Date) -> Bool {
        failures.withLock { failures in
            keys.allSatisfy { key in
                let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
                failures[key] = recent.isEmpty ? nil : recent
                return recent.count < limit
            }
        }
    }

    func recordFailure(_ keys: [String], now: Date) {
        failures.withLock { failures in
            for key in keys { failures[key, default: []].append(now) }
        }
    }

    /// How long until every one of `keys` may try again at `now` (0: now): until enough of its
    /// failures have left the window.
    func retryAfter(_ keys: [String], now: Date) -> TimeInterval {
        failures.withLock { failures in
            keys.map { key in
                let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }.sorted()
                guard recent.count >= limit, limit > 0 else { return 0 }
                return max(0, window - now.timeIntervalSince(recent[recent.count - limit]))
            }.max() ?? 0
        }
    }

    /// `key`'s failures within the window at `now`.
    func recentCount(_ key: String, now: Date) -> Int {
        failures.withLock { failures in (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }.count }
    }

    /// Forgets `keys`' failures.
    func reset(_ keys: [String]) {
        failures.withLock { failures in
            for key in keys { failures[key] = nil }
        }
    }
}

/// Growing waits after wrong guesses, per key: the `freeFailures`-th wrong guess starts a wait
/// of `firstDelay`, and each one more doubles it up to `maxDelay` (exponential backoff with a
/// cap). A key's failures are forgotten `memory` after its last one.
///
/// Passcodes use two: one per client identity and session (a typo costs that person alone a
/// short wait, however many people share the hall's address), and one per session from everyone
/// together (a guesser with ever new identities is slowed down: their hellos wait before they
/// are checked, and the wait grows with every wrong guess; a right passcode waits as long, but
/// is never refused).
final class Backoff: Sendable {
    struct Policy: Sendable {
        var freeFailures: Int
        var firstDelay: TimeInterval
        var maxDelay: TimeInterval
        var memory: TimeInterval

        /// The wait that follows the `failures`-th wrong guess.
        func delay(after failures: Int) -> TimeInterval {
            let threshold = max(1, freeFailures)
            guard failures >= threshold, firstDelay > 0 else { return 0 }
            let doublings = min(failures - threshold, 62)
            return min(maxDelay, firstDelay * pow(2, Double(doublings)))
        }
    }

    private struct Entry {
        var failures: Int
        var last: Date
    }

    let policy: Policy
    private let entries = Mutex<[String: Entry]>([:])
    /// Past this many keys, forgotten ones are swept out on the next failure.
    private static let sweepAbove = 10_000

    init(_ policy: Policy) {
        self.policy = policy
    }

    /// How long `key` must still wait at `now`; 0 when it may try.
    func wait(_ key: String, now: Date) -> TimeInterval {
        entries.withLock { entries in
            guard let entry = entries[key] else { return 0 }
            if now.timeIntervalSince(entry.last) >= policy.memory {
                entries[key] = nil
                return 0
            }
            return max(0, policy.delay(after: entry.failures) - now.timeIntervalSince(entry.last))
        }
    }

    /// Counts a wrong guess for `key`; returns the wait it starts (0 while guesses are free).
    @discardableResult
    func recordFailure(_ key: String, now: Date) -> TimeInterval {
        entries.withLock { entries in
            if entries.count > Self.sweepAbove {
                entries = entries.filter { now.timeIntervalSince($0.value.last) < policy.memory }
            }
            var entry = entries[key] ?? Entry(failures: 0, last: now)
            if now.timeIntervalSince(entry.last) >= policy.memory { entry.failures = 0 }
            entry.failures += 1
            entry.last = now
            entries[key] = entry
            return policy.delay(after: entry.failures)
        }
    }

    /// Forgets `key`'s failures (it got in: it knows the passcode now).
    func reset(_ key: String) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }
}
