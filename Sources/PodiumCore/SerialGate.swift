import Synchronization

/// Lets async work through one at a time, in the order it arrives.
///
/// Actors are reentrant across `await`: two commands to one session could both read `seq` before
/// either stored its event. Work that must not interleave (decide → store → publish, or a SQL
/// transaction on a shared connection) holds the gate across its suspension points.
public final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Waits until the gate is free and takes it. Pair every `enter` with one `leave`.
    public func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let enteredNow = state.withLock { state in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if enteredNow { continuation.resume() }
        }
    }

    /// Frees the gate, handing it straight to the next in line if there is one.
    public func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    /// Runs `operation` while holding the gate.
    public func run<T: Sendable>(_ operation: () async throws -> T) async rethrows -> T {
        await enter()
        defer { leave() }
        return try await operation()
    }
}
