import NIOConcurrencyHelpers
import Testing

@testable import PodiumStore

/// A store operation that cannot finish lets its caller go (after PostgreSQL restarted, a query
/// could wait for ever on a connection already closed, holding a live session's command gate).
@Suite("Operation deadline", .timeLimit(.minutes(1)))
struct OperationDeadlineTests {
    /// Never ends, even when cancelled: what a query waiting for a reply that never comes does.
    static func forever() async {
        await withCheckedContinuation { continuation in parked.withLockedValue { $0.append(continuation) } }
    }
    /// Kept, not dropped: a dropped continuation is reported as a leak.
    static let parked = NIOLockedValueBox<[CheckedContinuation<Void, Never>]>([])

    @Test func anOperationThatEndsGivesItsResultOrItsError() async throws {
        let value = try await OperationDeadline.run(limit: .seconds(10), abandoned: { _ in }) { 42 }
        #expect(value == 42)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await OperationDeadline.run(limit: .seconds(10), abandoned: { _ in }) { () throws -> Int in throw Refused() }
        }
    }

    @Test func aCallerIsLetGoAtTheLimit() async throws {
        let reasons = NIOLockedValueBox<[String]>([])
        let error = await #expect(throws: StoreOperationAbandoned.self) {
            try await OperationDeadline.run(
                limit: .milliseconds(200), abandoned: { reason in reasons.withLockedValue { $0.append(reason) } }
            ) { () async throws -> Int in
                await Self.forever()
                return 0
            }
        }
        #expect(error?.description.contains("did not answer within") == true)
        #expect(reasons.withLockedValue { $0.count } == 1)
    }

    @Test func aCallerIsLetGoSoonAfterTheOperationBecomesHopeless() async throws {
        let closed = NIOLockedValueBox(false)
        let error = await #expect(throws: StoreOperationAbandoned.self) {
            try await OperationDeadline.run(
                limit: .seconds(30), interval: .milliseconds(20), hopeless: { closed.withLockedValue { $0 } },
                abandoned: { _ in }
            ) { () async throws -> Int in
                closed.withLockedValue { $0 = true }
                await Self.forever()
                return 0
            }
        }
        // Not the 30 s limit: the connection's closing let the caller go.
        #expect(error?.description.contains("closed under the operation") == true)
    }

    @Test func anOperationThatFailsByItselfOnAClosedConnectionGivesItsOwnError() async throws {
        struct ConnectionClosed: Error {}
        let closed = NIOLockedValueBox(false)
        await #expect(throws: ConnectionClosed.self) {
            try await OperationDeadline.run(
                limit: .seconds(30), interval: .milliseconds(200), hopeless: { closed.withLockedValue { $0 } },
                abandoned: { _ in }
            ) { () async throws -> Int in
                closed.withLockedValue { $0 = true }
                throw ConnectionClosed()
            }
        }
    }

    @Test func theCallersCancellationReachesTheOperation() async throws {
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let caller = Task {
            try await OperationDeadline.run(limit: .seconds(30), abandoned: { _ in }) { () async throws -> Int in
                start.yield()
                try await Task.sleep(for: .seconds(60))
                return 0
            }
        }
        for await _ in started { break }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
    }
}
