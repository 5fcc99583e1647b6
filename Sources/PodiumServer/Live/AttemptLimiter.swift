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
}
