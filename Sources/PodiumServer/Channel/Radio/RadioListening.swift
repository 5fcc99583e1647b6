import Foundation
import Logging
import PodiumCore
import PodiumStore
import ServiceLifecycle
import Synchronization

/// The daily radio allowance of non-members, counted from the segments served (see
/// ``ListeningLedger``), per person and per client address. A person's (and an address's) stored
/// total is read once a day; what they listen to is written in batches every `flushInterval`
/// (and at shutdown), not once per segment, in `channel_radio_usage` (addresses under `addr:`).
final class RadioListening: Service, Sendable {
    private let store: any ChannelRadioStore
    private let ledger: Mutex<ListeningLedger>
    private let now: @Sendable () -> Date
    private let flushInterval: Duration
    private let logger: Logger
    let allowance: TimeInterval

    init(
        store: any ChannelRadioStore, allowance: TimeInterval, listenersPerAddress: Int = 0, timeZone: TimeZone,
        flushInterval: Duration = .seconds(5), logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.allowance = allowance
        ledger = Mutex(ListeningLedger(allowance: allowance, timeZone: timeZone, listenersPerAddress: listenersPerAddress))
        self.flushInterval = flushInterval
        self.logger = logger
        self.now = now
    }

    /// The pool a non-member at this client address draws on too (see ``ListeningLedger``): the
    /// address the request came from, or the one a trusted proxy forwarded (the rule of
    /// ``AppRequestContext/clientKey``).
    static func pool(_ context: AppRequestContext) -> String { ListeningLedger.addressPool(of: context.clientKey) }

    /// Seconds left today for a non-member: their own, or their address's pool's if less.
    func remaining(_ viewerKey: String, pool: String) async throws -> Double {
        let date = now()
        try await loadIfNeeded(viewerKey, at: date)
        try await loadIfNeeded(pool, at: date)
        return ledger.withLock { $0.remaining(viewerKey, pool: pool, at: date) }
    }

    /// Whether a non-member may have this segment, counting it to them and to their address's
    /// pool (see ``ListeningLedger/serve``).
    func serve(_ viewerKey: String, pool: String, station: String, sequence: Int, duration: Double) async throws -> Bool {
        let date = now()
        try await loadIfNeeded(viewerKey, at: date)
        try await loadIfNeeded(pool, at: date)
        return ledger.withLock {
            $0.serve(viewerKey, pool: pool, station: station, sequence: sequence, duration: duration, at: date)
        }
    }

    /// When the allowance comes back.
    func resetsAt() -> Date { ledger.withLock { $0.resetsAt(after: now()) } }

    private func loadIfNeeded(_ viewerKey: String, at date: Date) async throws {
        let (needed, day) = ledger.withLock { ($0.needsLoading(viewerKey, at: date), $0.day(of: date)) }
        guard needed else { return }
        let stored = try await store.radioUsage(viewerKey: viewerKey, day: day)
        ledger.withLock { ledger in
            // Another request may have loaded it meanwhile; loading again would lose its count.
            if ledger.needsLoading(viewerKey, at: date) { ledger.loaded(viewerKey, day: day, seconds: stored) }
        }
    }

    /// Writes what was counted since the last batch.
    func flush() async {
        let additions = ledger.withLock { $0.drain(at: now()) }
        guard !additions.isEmpty else { return }
        do {
            try await store.addRadioUsage(
                additions.map { RadioUsage(viewerKey: $0.viewerKey, day: $0.day, seconds: $0.seconds) })
        } catch {
            logger.error("could not save radio listening (kept for the next batch): \(error)")
            ledger.withLock { $0.restore(additions) }
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: self.flushInterval) } catch { break }
                await self.flush()
            }
        }
        // What the last seconds counted.
        await flush()
    }
}
