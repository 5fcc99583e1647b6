import NIOConcurrencyHelpers

/// A store operation that was given up on; its caller was let go.
public struct StoreOperationAbandoned: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { reason }
}

/// Runs an operation on a task of its own and lets its caller go when the operation cannot
/// finish: past a time limit, or as soon as it is known to be hopeless.
///
/// Closing a PostgreSQL connection is not enough to free a caller stuck on it: after PostgreSQL
/// restarts, a query sent as its connection is torn down can wait for a reply that never comes,
/// and closing the already closed connection does not fail it (about once in ten restarts in the
/// cluster fault test; the caller held a live session's command gate, so that node's viewers got
/// nothing more). The caller is let go with ``StoreOperationAbandoned`` instead; the operation,
/// if it ever ends, ends alone.
enum OperationDeadline {
    private struct State<T: Sendable> {
        var caller: CheckedContinuation<T, any Error>?
        var watch: Task<Void, Never>?
        var work: Task<Void, Never>?
        var cancelled = false
    }

    /// - Parameters:
    ///   - limit: the longest the caller waits.
    ///   - interval: how often `hopeless` is asked while the operation runs.
    ///   - hopeless: whether the operation can no longer succeed (its connection is closed);
    ///     the caller is let go when it says so twice in a row, so an operation that fails by
    ///     itself (as it should) has `interval` to do so.
    ///   - availability: when set, an operation still running at the first look makes it suspect
    ///     the database (it probes), and the caller is let go at the first look after it is
    ///     known to be down (see ``StoreAvailability``).
    ///   - sleep: waits between looks; `Task.sleep` but in tests (the limit counts the waits).
    ///   - abandoned: called once, with the reason, when the caller is let go.
    ///   - operation: the work; the caller's cancellation reaches it.
    static func run<T: Sendable>(
        limit: Duration, interval: Duration = .milliseconds(500),
        hopeless: @escaping @Sendable () -> Bool = { false },
        availability: StoreAvailability? = nil,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        abandoned: @escaping @Sendable (String) -> Void,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let state = NIOLockedValueBox(State<T>())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (caller: CheckedContinuation<T, any Error>) in
                // The caller first: either task may end before the other is made.
                state.withLockedValue { $0.caller = caller }
                let watch = Task {
                    // Cancelled when the work ends first (most operations end before the first look).
                    let reason = await Self.watch(
                        limit: limit, interval: interval, hopeless: hopeless, availability: availability, sleep: sleep)
                    guard let reason, let caller = state.withLockedValue({ $0.caller.take() }) else { return }
                    abandoned(reason)
                    caller.resume(throwing: StoreOperationAbandoned(reason: reason))
                }
                let work = Task {
                    let result: Result<T, any Error>
                    do {
                        result = .success(try await operation())
                    } catch {
                        result = .failure(error)
                    }
                    let (caller, watch) = state.withLockedValue { ($0.caller.take(), $0.watch) }
                    watch?.cancel()
                    caller?.resume(with: result)
                }
                let cancelled = state.withLockedValue { state in
                    state.watch = watch
                    state.work = work
                    return state.cancelled
                }
                if cancelled { work.cancel() }
            }
        } onCancel: {
            let work = state.withLockedValue { state in
                state.cancelled = true
                return state.work
            }
            work?.cancel()
        }
    }

    /// Waits until the operation should be given up (the reason), or is cancelled (nil).
    private static func watch(
        limit: Duration, interval: Duration, hopeless: @Sendable () -> Bool, availability: StoreAvailability?,
        sleep: @Sendable (Duration) async throws -> Void
    ) async -> String? {
        var waited = Duration.zero
        var hopelessBefore = false
        while true {
            let step = min(interval, limit - waited)
            guard (try? await sleep(step)) != nil else { return nil }
            waited += step
            if waited >= limit { return "the database did not answer within \(limit)" }
            if let availability {
                if !availability.isAvailable { return "the database cannot be reached" }
                // Most operations end before the first look: one still waiting may wait for a
                // database that is gone (a lease nobody can give), so it is probed.
                if waited == step { availability.suspect() }
            }
            let hopelessNow = hopeless()
            if hopelessNow && hopelessBefore { return "the database connection closed under the operation" }
            hopelessBefore = hopelessNow
        }
    }
}
