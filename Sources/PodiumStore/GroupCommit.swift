import Synchronization

/// Writes that arrive while others are being written go together in the next transaction: a
/// group commit.
///
/// A hall that arrives at once sends thousands of hellos, each with a small write (the visit,
/// and the viewer's number). Alone, each paid for its own BEGIN and COMMIT: on SQLite two more
/// trips to the database's thread and a commit to the WAL, which cost twice what the two rows
/// did (`Benchmarks/fanout-instructions.sh`). A write that finds none running is written at once,
/// by itself, as before; one that finds a write running waits for it and goes with every other
/// that waited, up to `maximum`. Each caller still returns only once its own write is committed.
///
/// A group that fails (one write's error rolls back the transaction of all) is written again
/// one write at a time, so each caller gets its own outcome and no one's write is lost for
/// another's.
final class GroupCommit<Input: Sendable, Output: Sendable>: Sendable {
    typealias Together = @Sendable ([Input]) async throws -> [Output]
    typealias Alone = @Sendable (Input) async throws -> Output

    private struct Waiting: Sendable {
        let input: Input
        let reply: CheckedContinuation<Output, any Error>
    }

    private struct State: Sendable {
        var writing = false
        var waiting: [Waiting] = []
    }

    private let state = Mutex(State())
    let maximum: Int

    init(maximum: Int) {
        precondition(maximum > 0)
        self.maximum = maximum
    }

    /// How many writes wait for the one being written.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Writes `input` with the ones waiting beside it (`together`, one transaction, returning an
    /// output for each input in order) or by itself (`alone`). Every caller passes the same two.
    func write(_ input: Input, together: @escaping Together, alone: @escaping Alone) async throws -> Output {
        try await withCheckedThrowingContinuation { reply in
            let leads = state.withLock { state in
                state.waiting.append(Waiting(input: input, reply: reply))
                defer { state.writing = true }
                return !state.writing
            }
            if leads { Task { await self.drain(together: together, alone: alone) } }
        }
    }

    /// Writes what waits, group after group, until nothing does.
    private func drain(together: Together, alone: Alone) async {
        while true {
            let group = state.withLock { state -> [Waiting] in
                guard !state.waiting.isEmpty else {
                    state.writing = false
                    return []
                }
                let count = min(state.waiting.count, maximum)
                defer { state.waiting.removeFirst(count) }
                return Array(state.waiting.prefix(count))
            }
            if group.isEmpty { return }
            if group.count > 1, let outputs = try? await together(group.map(\.input)), outputs.count == group.count {
                for (waiting, output) in zip(group, outputs) { waiting.reply.resume(returning: output) }
                continue
            }
            for waiting in group {
                do {
                    waiting.reply.resume(returning: try await alone(waiting.input))
                } catch {
                    waiting.reply.resume(throwing: error)
                }
            }
        }
    }
}
