import Foundation
import PodiumStore
import Testing

@testable import PodiumServer

/// A test that fails half-way stops its server by cancellation, not by a graceful shutdown. The
/// server must still close its database then: an open SQLite connection dropped at deinit is an
/// assertion failure in debug builds, which would take every other test in the process with it.
@Suite struct TeardownTests {
    struct Interrupted: Error {}

    @Test func aServerStoppedByAFailingTestClosesItsDatabase() async throws {
        let server = TestServer()
        defer { server.removeData() }
        for _ in 0..<3 {
            await #expect(throws: Interrupted.self) {
                try await server.run { client in
                    // The store is busy when the failure comes: a live session has written to it.
                    _ = try await client.presentSession()
                    throw Interrupted()
                }
            }
        }
        // Still here, and the data the failed runs wrote is intact for the next server.
        try await server.run { client in
            let token = try await client.login()
            let sessions = try await client.request(.get, "/api/v1/sessions", token: token).array()
            #expect(sessions.count == 3)
        }
    }

    /// A test that fails while a job it holds is running (before the test let it go) still ends:
    /// the server lets the job go on before it stops, instead of waiting for ever for it to end.
    @Test func aTestFailingWhileItHoldsAJobStillEnds() async throws {
        let worker = HeldWorker()
        let server = TestServer { $0.additionalJobWorkers = [worker] }
        defer { server.removeData() }
        let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let at = Date()
        try await store.insertJob(
            JobRecord(
                id: "j_held", kind: HeldWorker.testKind, subjectId: "x", ownerId: nil, payload: #""succeed""#,
                createdAt: at, updatedAt: at))
        await #expect(throws: Interrupted.self) {
            try await server.run(store: store) { _ in
                var started = worker.started.makeAsyncIterator()
                _ = await started.next()
                throw Interrupted()
            }
        }
        try await store.close()
    }
}
