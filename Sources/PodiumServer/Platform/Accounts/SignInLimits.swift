import Crypto
import Foundation
import Hummingbird

/// Wrong passwords at the sign-in form, counted so that guessing is slow but a teacher is never
/// locked out of their own lecture by someone else's guesses (OWASP's "device cookies"):
///
/// - per client address: `limit` failures within `window` block that address until enough of
///   them are older than the window;
/// - per account, from everyone together: four times as many slow that account's sign-ins
///   (`429 too_many_attempts` with `retryAfter`) the same way;
/// - a browser that signed in to the account before carries a device cookie (an HMAC of the
///   account and a random nonce, under a key all nodes share): its sign-ins are counted against
///   that cookie alone, never against the address or the account, so others' failures do not
///   block it, and a stolen cookie only lets its thief guess `limit` times per window.
struct SignInLimits: Sendable {
    let perAddress: AttemptLimiter
    let perAccount: AttemptLimiter
    let perDevice: AttemptLimiter
    /// The device cookies' HMAC key.
    let deviceKey: [UInt8]

    static let cookieName = "podium_device"
    static let cookieLifetime = 365 * 24 * 3600

    init(limit: Int, window: TimeInterval, deviceKey: [UInt8]) {
        perAddress = AttemptLimiter(limit: limit, window: window)
        perAccount = AttemptLimiter(limit: limit * 4, window: window)
        perDevice = AttemptLimiter(limit: limit, window: window)
        self.deviceKey = deviceKey
    }

    /// The device cookies' key, derived from another secret all nodes share (the stream key):
    /// the HMAC of a fixed label under it.
    static func deviceKey(from secret: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Data("podium device cookie".utf8), using: SymmetricKey(data: secret)))
    }

    /// Which counters a sign-in to `account` from `address` with this cookie value touches.
    struct Keys {
        var limiters: [(AttemptLimiter, [String])]
        /// The sign-in came from a browser that signed in to the account before.
        var trustedDevice: Bool
    }

    func keys(account: String, address: String, cookie: String?) -> Keys {
        if let cookie, let nonce = validNonce(cookie, account: account) {
            return Keys(limiters: [(perDevice, ["device:" + nonce])], trustedDevice: true)
        }
        return Keys(limiters: [(perAddress, ["address:" + address]), (perAccount, ["account:" + account])], trustedDevice: false)
    }

    /// Seconds to wait before trying again (0: may try now).
    func wait(_ keys: Keys, now: Date) -> TimeInterval {
        keys.limiters.map { $0.0.retryAfter($0.1, now: now) }.max() ?? 0
    }

    /// Counts a failure; returns whether it is the one that reached a limit (a lock-out begins).
    func recordFailure(_ keys: Keys, now: Date) -> Bool {
        var blocked = false
        for (limiter, names) in keys.limiters {
            limiter.recordFailure(names, now: now)
            if names.contains(where: { limiter.recentCount($0, now: now) == limiter.limit }) { blocked = true }
        }
        return blocked
    }

    /// A new device cookie for `account`.
    func deviceCookie(account: String) -> Cookie {
        let nonce = Accounts.randomToken().prefix(32)
        return Cookie(
            name: Self.cookieName, value: "\(nonce).\(mac(account: account, nonce: String(nonce)))",
            maxAge: Self.cookieLifetime, path: "/api/v1/auth", httpOnly: true, sameSite: .strict)
    }

    /// The cookie's nonce when it was made for `account` by this server.
    func validNonce(_ cookie: String, account: String) -> String? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 32, parts[0].allSatisfy(\.isHexDigit) else { return nil }
        let expected = mac(account: account, nonce: String(parts[0]))
        // Compared in constant time.
        guard expected.utf8.count == parts[1].utf8.count,
            zip(expected.utf8, parts[1].utf8).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0
        else { return nil }
        return String(parts[0])
    }

    private func mac(account: String, nonce: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data((account + "\n" + nonce).utf8), using: SymmetricKey(data: deviceKey))
            .map { String(format: "%02x", $0) }.joined()
    }
}
