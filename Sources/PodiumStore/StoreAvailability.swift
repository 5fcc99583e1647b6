import NIOConcurrencyHelpers

/// The database is known to be unreachable: the operation was not tried (or its caller was let
/// go), and fails at once rather than after the per-operation limit.
public struct StoreUnreachable: Error, CustomStringConvertible, Sendable {
    public var description: String { "the database cannot be reached" }
}

/// Whether the database can be reached, as a probe last found: the store's operations fail at
/// once while it cannot, instead of each waiting out its own limit (``OperationDeadline``).
///
/// When PostgreSQL stops, an operation does not fail by itself: it waits for a pool's lease, or
/// for an answer on a connection torn down, up to the 15 s limit, and a live session's commands
/// queue behind it (a presenter's page change was answered `unavailable` after 15 to 30 s). So an
/// operation that has waited ``OperationDeadline``'s first interval, or that failed as a lost
/// connection fails, makes this *suspect* the database: it probes it once (a new connection and
/// `SELECT 1`). A failed probe marks it down: every waiting operation is let go with
/// ``StoreUnreachable`` at its next look (within half a second) and every new one fails at once.
/// While down, it probes every ``probeInterval``; the first probe that succeeds marks it up.
///
/// Time is injected (`sleep`), so tests move it by hand; only PostgreSQL uses one (SQLite, in
/// the process, is never unreachable).
public final class StoreAvailability: Sendable {
    private struct State {
        var down = false
        /// A probe (or the loop of probes while down) runs.
        var probing = false
        /// Set when the state changes, for tests and metrics.
        var changes = 0
    }

    /// How often a database that is down is probed.
    public let probeInterval: Duration
    private let probe: @Sendable () async throws -> Void
    private let sleep: @Sendable (Duration) async throws -> Void
    private let changed: @Sendable (_ available: Bool) -> Void
    private let state = NIOLockedValueBox(State())

    /// - Parameters:
    ///   - probe: throws when the database cannot be reached; it must give up by itself (a time limit).
    ///   - sleep: waits; `Task.sleep` but in tests.
    ///   - changed: told each time the database goes down or comes back (a metrics gauge, a log line).
    public init(
        probeInterval: Duration = .seconds(1),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        changed: @escaping @Sendable (_ available: Bool) -> Void = { _ in },
        probe: @escaping @Sendable () async throws -> Void
    ) {
        self.probeInterval = probeInterval
        self.sleep = sleep
        self.changed = changed
        self.probe = probe
    }

    /// False from a failed probe until a probe succeeds.
    public var isAvailable: Bool { !state.withLockedValue { $0.down } }

    /// Before an operation: throws ``StoreUnreachable`` while the database is known to be down.
    public func check() throws(StoreUnreachable) {
        if state.withLockedValue({ $0.down }) { throw StoreUnreachable() }
    }

    /// An operation waits long, or failed as a lost database fails: probe now, unless a probe
    /// already runs (or the database is known to be down, and probed anyway).
    public func suspect() {
        let start = state.withLockedValue { state -> Bool in
            guard !state.probing else { return false }
            state.probing = true
            return true
        }
        guard start else { return }
        Task { await self.probeUntilUp() }
    }

    /// An operation failed with `error`: one that says the connection is gone makes this suspect
    /// the database (``suspect()``); an error the database answered with (a constraint, a
    /// conflict) says nothing of whether it can be reached.
    public func failed(_ error: any Error) {
        if Self.mayMeanUnreachable(error) { suspect() }
    }

    /// The probe, then (when it failed) one every ``probeInterval`` until one succeeds.
    private func probeUntilUp() async {
        while true {
            let reachable = (try? await probe()) != nil
            let (stop, change) = state.withLockedValue { state -> (Bool, Bool) in
                let change = state.down == reachable
                state.down = !reachable
                if change { state.changes += 1 }
                if reachable { state.probing = false }
                return (reachable, change)
            }
            if change { changed(reachable) }
            if stop { return }
            guard (try? await sleep(probeInterval)) != nil else {
                state.withLockedValue { $0.probing = false }
                return
            }
        }
    }

    /// Errors that come from the connection rather than from the database's answer.
    static func mayMeanUnreachable(_ error: any Error) -> Bool {
        if error is StoreOperationAbandoned || error is StoreUnreachable { return true }
        // An error the server answered carries its SQLSTATE: the database is there.
        if PostgresURL.sqlState(of: error) != nil { return false }
        let type = String(reflecting: Swift.type(of: error))
        return type.hasPrefix("PostgresNIO.") || type.hasPrefix("NIOCore.") || type.hasPrefix("NIOPosix.")
    }
}
