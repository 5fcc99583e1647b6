import Foundation
import Logging
import NIOConcurrencyHelpers
import PodiumCore
import PodiumStore

/// The pointer's side log of one session while its presenter records (issue #44): the live path
/// notes samples here without waiting (a lock held for an append), pointer moves coalesced to at
/// most ``maxPerSecond`` a second (newest wins), each stroke's drawing start; a task of its own
/// writes what was noted to the ``ReplayStore`` every ``interval``, one row per batch.
final class ReplayRecorder: Sendable {
    static let maxPerSecond = 5
    static let spacing: TimeInterval = 1 / Double(maxPerSecond)
    static let interval = Duration.seconds(2)

    /// Coalesces pointer samples: one every ``spacing`` at most; a move that comes sooner waits
    /// as the pending one (a newer one replaces it) and goes out in the next free slot.
    struct Coalescer: Sendable {
        var batch: [ReplaySample] = []
        var lastEmitted: Date?
        var pending: ReplaySample?
        /// A stroke is being drawn: its start is noted, further `inking` messages are not.
        var drawing = false

        mutating func notePointer(_ sample: ReplaySample) {
            if let pending, let last = lastEmitted, sample.at >= last.addingTimeInterval(ReplayRecorder.spacing) {
                emit(ReplaySample(at: last.addingTimeInterval(ReplayRecorder.spacing), pending.kind))
                self.pending = nil
            }
            if let last = lastEmitted, sample.at < last.addingTimeInterval(ReplayRecorder.spacing) {
                pending = sample
            } else {
                pending = nil
                emit(sample)
            }
        }

        mutating func noteInking(_ message: InkingMessage, at time: Date) {
            if message.done == true {
                drawing = false
            } else if !drawing {
                drawing = true
                batch.append(ReplaySample(at: time, .inkStart))
            }
        }

        /// What is due by `now` (the pending move once its slot came), oldest first; emptied.
        mutating func take(now: Date, all: Bool = false) -> [ReplaySample] {
            if let pending, let last = lastEmitted {
                let slot = last.addingTimeInterval(ReplayRecorder.spacing)
                if all || slot <= now {
                    emit(ReplaySample(at: max(slot, pending.at), pending.kind))
                    self.pending = nil
                }
            }
            defer { batch = [] }
            return batch.sorted { $0.at < $1.at }
        }

        private mutating func emit(_ sample: ReplaySample) {
            batch.append(sample)
            lastEmitted = sample.at
        }
    }

    private struct State {
        var coalescer = Coalescer()
        var writer: Task<Void, Never>?
        var stopped = false
    }

    let sessionId: String
    private let store: any ReplayStore
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    init(sessionId: String, store: any ReplayStore, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.sessionId = sessionId
        self.store = store
        self.now = now
        self.logger = logger
    }

    /// The pointer moved (or hid: nil) on `page` (of `deck` in a room).
    func pointer(_ point: PagePoint?, page: Int, deck: String?) {
        let sample = ReplaySample(
            at: now(), point.map { .pointer(page: page, deck: deck, x: $0.x, y: $0.y) } ?? .hidden)
        note { $0.notePointer(sample) }
    }

    /// A stroke is being drawn: the first message after the previous stroke ended is its start.
    func inking(_ message: InkingMessage) {
        let time = now()
        note { $0.noteInking(message, at: time) }
    }

    private func note(_ change: (inout Coalescer) -> Void) {
        let start = state.withLockedValue { state -> Bool in
            change(&state.coalescer)
            guard state.writer == nil, !state.stopped else { return false }
            return true
        }
        if start { startWriter() }
    }

    private func startWriter() {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                // Cancelled (a flush): stop at once; the flush writes what is left.
                do { try await Task.sleep(for: ReplayRecorder.interval) } catch { return }
                guard let self else { return }
                await self.write(all: false)
            }
        }
        let started = state.withLockedValue { state -> Bool in
            guard state.writer == nil else { return false }
            state.writer = task
            return true
        }
        if !started { task.cancel() }
    }

    /// Writes what was noted (everything, with `all`), as one batch.
    func write(all: Bool) async {
        let at = now()
        let batch = state.withLockedValue { $0.coalescer.take(now: at, all: all) }
        guard !batch.isEmpty else { return }
        do {
            try await store.appendReplaySamples(sessionId: sessionId, batch)
        } catch {
            logger.error("could not store the pointer's side log of session \(sessionId): \(error)")
        }
    }

    /// Recording stopped (or the session ended): everything noted is written now; the writer
    /// stops until the next sample.
    func flush() async {
        let writer = state.withLockedValue { state -> Task<Void, Never>? in
            defer { state.writer = nil }
            return state.writer
        }
        writer?.cancel()
        // A batch the writer took is stored before this one (and before the flush returns).
        await writer?.value
        await write(all: true)
    }

    /// The session is gone from this node: the writer stops (after writing what is left).
    func close() async {
        state.withLockedValue { $0.stopped = true }
        await flush()
    }
}
