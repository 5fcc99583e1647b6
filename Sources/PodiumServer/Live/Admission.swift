import NIOCore
import Synchronization

/// At most `limit` pieces of work at once; the rest wait their turn, in order, as a closure each
/// (no task, no stack).
///
/// Hellos go through one of these per server (``LiveConnection/hellos``). A hall that arrives
/// together, or comes back together after a restart, would otherwise run a thousand hellos at
/// once, each a task holding a few KiB for its store calls and its welcome until the session
/// gets to it, and the allocator keeps that memory long after. Hellos take turns at the session
/// anyway, so letting 64 run at once costs a crowd no time.
///
/// A turn ends when its holder releases its ``Ticket``, or after `patience` at the latest: a
/// hello stuck on a slow store must not keep the door shut for everyone behind it. Every turn has
/// the same patience, so turns run out in the order they began: one scheduled check for the
/// oldest running turn watches them all, instead of a deadline scheduled and cancelled for each
/// turn (about 6,000 instructions a join, #42).
final class Admission: Sendable {
    /// One turn. Releasing it twice, or after its patience ran out, does nothing more.
    final class Ticket: Sendable {
        private let admission: Admission
        /// When this turn's patience runs out.
        fileprivate let expires: NIODeadline
        private let released = Atomic<Bool>(false)

        fileprivate init(admission: Admission, expires: NIODeadline) {
            self.admission = admission
            self.expires = expires
        }

        fileprivate var isReleased: Bool { released.load(ordering: .acquiring) }

        func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            admission.leave()
        }
    }

    typealias Start = @Sendable (Ticket) -> Void

    private struct State {
        var running = 0
        var waiting = CircularBuffer<(start: Start, loop: any EventLoop)>()
        /// The running turns, oldest first (released ones leave from the front as they are
        /// passed): the order their patience runs out in.
        var turns = CircularBuffer<Ticket>()
        /// Whether a check of the oldest turn's patience is scheduled.
        var watching = false
    }

    let limit: Int
    let patience: TimeAmount
    private let state = Mutex(State())

    init(limit: Int, patience: TimeAmount) {
        precondition(limit > 0, "an admission that lets nothing in")
        self.limit = limit
        self.patience = patience
    }

    /// Calls `start` with a ticket now if fewer than `limit` turns are running, else when one
    /// ends. The ticket's patience is kept on `loop`.
    func enter(on loop: any EventLoop, _ start: @escaping Start) {
        let now = state.withLock { state -> Bool in
            guard state.running < limit else {
                state.waiting.append((start, loop))
                return false
            }
            state.running += 1
            return true
        }
        if now { begin(start, on: loop) }
    }

    /// How many turns run and wait (for tests and diagnostics).
    var counts: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waiting.count) }
    }

    private func begin(_ start: Start, on loop: any EventLoop) {
        let ticket = Ticket(admission: self, expires: .now() + patience)
        let arm = state.withLock { state -> Bool in
            // Most turns are given back in about the order they began: they leave from the front.
            while let oldest = state.turns.first, oldest.isReleased { state.turns.removeFirst() }
            state.turns.append(ticket)
            defer { state.watching = true }
            return !state.watching
        }
        if arm { watch(from: ticket.expires, on: loop) }
        start(ticket)
    }

    /// At `deadline`, ends the turns whose patience ran out, and watches the oldest one left.
    private func watch(from deadline: NIODeadline, on loop: any EventLoop) {
        loop.scheduleTask(deadline: deadline) { [self] in
            let now = NIODeadline.now()
            let (expired, next) = state.withLock { state -> ([Ticket], NIODeadline?) in
                var expired: [Ticket] = []
                while let oldest = state.turns.first, oldest.isReleased || oldest.expires <= now {
                    state.turns.removeFirst()
                    if !oldest.isReleased { expired.append(oldest) }
                }
                let next = state.turns.first?.expires
                state.watching = next != nil
                return (expired, next)
            }
            if let next { watch(from: next, on: loop) }
            // Outside the lock: each lets the next waiting turn begin.
            for ticket in expired { ticket.release() }
        }
    }

    /// A turn ended: the first waiting one takes its place.
    private func leave() {
        let next = state.withLock { state -> (start: Start, loop: any EventLoop)? in
            guard let next = state.waiting.popFirst() else {
                state.running -= 1
                return nil
            }
            return next
        }
        if let next { begin(next.start, on: next.loop) }
    }
}
