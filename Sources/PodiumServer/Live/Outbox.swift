import NIOCore
import Synchronization

/// The bounded outbound queue of one socket.
///
/// The hub pushes already-encoded frames (the same `ByteBuffer` storage for every socket: an event
/// is encoded once, however many viewers there are); the socket's writer task drains them.
/// Durable frames queue up to `limit`; past it the outbox closes with `.tooSlow` and the client
/// reconnects and catches up by `lastSeq`. Ephemeral frames (pointer, presence) keep only the
/// latest of each kind, so a slow viewer sees where the pointer is now, not where it was.
final class Outbox: Sendable {
    enum Ephemeral: Int, CaseIterable {
        case pointer
        case presence
        case results
        case myAnswer
        case questions
        case viewerList
        case publicQuestions
        case myVotes
        case leaderboard
        case myScore
        case inking
        case roomPresence
    }

    enum CloseReason: Sendable, Equatable {
        case finished
        case tooSlow
        case shutdown
        case kicked(String)
    }

    private struct State {
        var durable: [ByteBuffer] = []
        var ephemeral: [ByteBuffer?] = Array(repeating: nil, count: Ephemeral.allCases.count)
        var waiter: CheckedContinuation<Void, Never>?
        var closed: CloseReason?
    }

    private let state = Mutex(State())
    let limit: Int
    /// Called once when the outbox gives up on a client that stopped reading. The writer may be
    /// stuck in a write to a full socket and never come back to ``next()``, so the connection
    /// itself must be closed.
    private let onTooSlow: @Sendable () -> Void

    init(limit: Int, onTooSlow: @escaping @Sendable () -> Void = {}) {
        self.limit = limit
        self.onTooSlow = onTooSlow
    }

    /// Queues a durable frame. Returns false (and closes) if the socket has fallen too far behind.
    @discardableResult
    func push(_ frame: ByteBuffer) -> Bool {
        let (accepted, waiter, gaveUp) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?, Bool) in
            guard state.closed == nil else { return (false, nil, false) }
            guard state.durable.count < limit else {
                state.closed = .tooSlow
                let waiter = state.waiter
                state.waiter = nil
                return (false, waiter, true)
            }
            state.durable.append(frame)
            let waiter = state.waiter
            state.waiter = nil
            return (true, waiter, false)
        }
        waiter?.resume()
        if gaveUp { onTooSlow() }
        return accepted
    }

    /// Replaces the pending ephemeral frame of this kind.
    func replace(_ kind: Ephemeral, with frame: ByteBuffer) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.closed == nil else { return nil }
            state.ephemeral[kind.rawValue] = frame
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    func close(_ reason: CloseReason) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.closed == nil { state.closed = reason }
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Waits for frames and takes all of them: durable first, then the latest ephemeral ones.
    /// Returns the close reason instead once the outbox is closed and drained (a closed outbox
    /// still hands out what it queued before, except when it closed for being too slow).
    func next() async -> Result<[ByteBuffer], CloseReason> {
        while true {
            enum Step {
                case frames([ByteBuffer])
                case closed(CloseReason)
                case wait
            }
            let step = state.withLock { state -> Step in
                if state.closed == .tooSlow { return .closed(.tooSlow) }
                var frames = state.durable
                state.durable.removeAll(keepingCapacity: true)
                for index in state.ephemeral.indices {
                    if let frame = state.ephemeral[index] { frames.append(frame) }
                    state.ephemeral[index] = nil
                }
                if !frames.isEmpty { return .frames(frames) }
                if let reason = state.closed { return .closed(reason) }
                return .wait
            }
            switch step {
            case .frames(let frames): return .success(frames)
            case .closed(let reason): return .failure(reason)
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        let hasWork = !state.durable.isEmpty || state.ephemeral.contains { $0 != nil } || state.closed != nil
                        if hasWork { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    var isClosed: Bool { state.withLock { $0.closed != nil } }
}

extension Outbox.CloseReason: Error {}
