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
/// hello stuck on a slow store must not keep the door shut for everyone behind it.
final class Admission: Sendable {
    /// One turn. Releasing it twice, or after its patience ran out, does nothing more.
    final class Ticket: Sendable {
        private struct State {
            var released = false
            var deadline: Scheduled<Void>?
        }
        private let admission: Admission
        private let state = Mutex(State())

        fileprivate init(admission: Admission) {
            self.admission = admission
        }

        fileprivate func expire(after patience: TimeAmount, on loop: any EventLoop) {
            let deadline = loop.scheduleTask(in: patience) { [self] in release() }
            let alreadyReleased = state.withLock { state -> Bool in
                if !state.released { state.deadline = deadline }
                return state.released
            }
            if alreadyReleased { deadline.cancel() }
        }

        func release() {
            let deadline = state.withLock { state -> Scheduled<Void>?? in
                guard !state.released else { return .none }
                state.released = true
                defer { state.deadline = nil }
                return .some(state.deadline)
            }
            guard case .some(let pending) = deadline else { return }
            pending?.cancel()
            admission.leave()
        }
    }

    typealias Start = @Sendable (Ticket) -> Void

    private struct State {
        var running = 0
        var waiting = CircularBuffer<(start: Start, loop: any EventLoop)>()
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
        let ticket = Ticket(admission: self)
        ticket.expire(after: patience, on: loop)
        start(ticket)
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
