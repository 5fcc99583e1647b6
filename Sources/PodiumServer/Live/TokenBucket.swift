import Foundation

/// Allows `rate` actions per second on average with bursts up to `burst`: the command rate limit
/// of one socket. A flooding client gets `rate_limited` errors; everyone else is unaffected.
struct TokenBucket {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: Date

    init(rate: Double, burst: Double, now: Date) {
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = now
    }

    mutating func take(now: Date) -> Bool {
        tokens = min(burst, tokens + max(0, now.timeIntervalSince(last)) * rate)
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
