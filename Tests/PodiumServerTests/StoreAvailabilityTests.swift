import Synchronization
import Testing

@testable import PodiumStore

/// A database known to be unreachable fails operations within about 2 s, not after the 15 s
/// per-operation limit (a presenter's command was answered `unavailable` after 15 to 30 s), and
/// comes back when a probe finds it again (#39). Time moves by hand: nothing here sleeps.
@Suite("Store availability", .timeLimit(.minutes(1)))
struct StoreAvailabilityTests {
    struct Refused: Error {}

    @Test func anOperationOnAnUnreachableDatabaseFailsWithinTwoSecondsAndTheNextAtOnce() async throws {
        let time = ManualTime()
        let reachable = Atomic<Bool>(false)
        let probes = Atomic<Int>(0)
        let (changes, change) = AsyncStream.makeStream(of: Bool.self)
        let availability = StoreAvailability(
            probeInterval: .seconds(1), sleep: time.sleep, changed: { change.yield($0) },
            probe: {
                probes.add(1, ordering: .relaxed)
                if !reachable.load(ordering: .relaxed) { throw Refused() }
            })
        var changed = changes.makeAsyncIterator()

        // An operation waits for a lease that never comes (the database stopped).
        let caller = Task {
            try await OperationDeadline.run(
                limit: .seconds(15), availability: availability, sleep: time.sleep, abandoned: { _ in }
            ) { () async throws -> Int in
                await OperationDeadlineTests.forever()
                return 0
            }
        }
        await time.waitForSleepers(1)
        #expect(probes.load(ordering: .relaxed) == 0)  // an operation that ends soon probes nothing
        time.advance(by: .milliseconds(500))
        // Still waiting at the first look: the database is probed, and found down.
        #expect(await changed.next() == false)
        #expect(!availability.isAvailable)
        await time.waitForSleepers(2)  // the operation's watch, and the next probe
        time.advance(by: .milliseconds(500))
        let result = await caller.result
        #expect(time.now <= .seconds(2))
        #expect(throws: StoreOperationAbandoned.self) { try result.get() }
        #expect((try? result.get()) == nil)

        // Known to be down: the next operation fails at once.
        #expect(throws: StoreUnreachable.self) { try availability.check() }

        // The database answers again: the next probe (a second after the last) finds it.
        reachable.store(true, ordering: .relaxed)
        time.advance(by: .milliseconds(500))
        #expect(await changed.next() == true)
        #expect(availability.isAvailable)
        try availability.check()
        #expect(probes.load(ordering: .relaxed) == 2)
    }

    @Test func aLostConnectionMakesItProbeAndAnErrorTheDatabaseAnsweredDoesNot() async throws {
        let probes = Atomic<Int>(0)
        let (probed, probe) = AsyncStream.makeStream(of: Void.self)
        let availability = StoreAvailability(
            sleep: { _ in throw CancellationError() },
            probe: {
                probes.add(1, ordering: .relaxed)
                probe.yield()
            })
        availability.failed(Refused())  // not a connection's error
        #expect(probes.load(ordering: .relaxed) == 0)
        availability.failed(StoreOperationAbandoned(reason: "the database connection closed under the operation"))
        for await _ in probed { break }
        #expect(availability.isAvailable)
    }
}

/// Time a test moves by hand: `sleep` waits until ``advance(by:)`` passes its moment.
final class ManualTime: Sendable {
    private struct Sleeper {
        let id: Int
        let due: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now = Duration.zero
        var sleepers: [Sleeper] = []
        var nextID = 0
        /// Cancelled before they began to wait.
        var cancelled: Set<Int> = []
    }
    private let state = Mutex(State())

    var now: Duration { state.withLock { $0.now } }

    @Sendable func sleep(_ duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return true }
                    state.sleepers.append(Sleeper(id: id, due: state.now + duration, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once `count` sleepers wait.
    func waitForSleepers(_ count: Int) async {
        while state.withLock({ $0.sleepers.count }) < count { await Task.yield() }
    }

    /// Moves time on, waking every sleeper whose moment came.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.due <= now }
            state.sleepers.removeAll { $0.due <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
